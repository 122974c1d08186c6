"""A match's secret leaves the data folder only once the match is over: ``kings-corners stats
--json`` and ``--csv`` made while a match is still played (a hosted table's, in the host's
history) hold nothing its deals could be computed from; once it is over, the export holds its
seed, as it does for every finished match."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from kc_tui.cli import main
from kc_tui.engine import Rules, is_secret
from kc_tui.engine.match import secret_text
from kc_tui.match.saves import new_seed
from kc_tui.records.rows import ENV_HISTORY
from kc_tui.records.store import History
from tests.historykit import play_recorded


@pytest.fixture(autouse=True)
def isolated(fixed_world: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KINGS_CORNERS_CONFIG", str(tmp_path / "settings.toml"))
    monkeypatch.delenv(ENV_HISTORY, raising=False)


def exports(capsys: pytest.CaptureFixture[str], path: Path) -> tuple[str, str]:
    """The history at ``path`` as ``stats --json -`` and ``stats --csv -`` print it."""
    texts: list[str] = []
    for option in ("--json", "--csv"):
        assert main(["stats", "--history", str(path), option, "-"]) == 0
        out, err = capsys.readouterr()
        assert err == ""
        texts.append(out)
    return texts[0], texts[1]


def secret_forms(secret: int) -> list[str]:
    """The ways a secret could be written: in decimal, as the save writes it, in hex."""
    return [str(secret), secret_text(secret), f"{secret:x}", str(secret - (1 << 128))]


def test_an_export_made_mid_match_holds_no_secret_and_one_made_after_it_does(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    secret = new_seed()
    assert is_secret(secret)
    whole = play_recorded(["greedy", "greedy", "greedy"], secret, Rules(target=60), human=0, player_seed=0)
    assert len(whole.rounds) >= 2
    path = tmp_path / "h.sqlite3"
    history, message = History.open(path)
    assert message is None
    match_id = history.start_match(
        seats=whole.seats,
        rules=whole.rules,
        seed=whole.seed,
        first_dealer=whole.first_dealer,
        demo=False,
        started_at=whole.started_at,
    )
    history.record_round(match_id, whole.rounds[0])

    as_json, as_csv = exports(capsys, path)
    for text in (as_json, as_csv):
        for form in secret_forms(secret):
            assert form not in text
    (match,) = json.loads(as_json)
    assert match["finished_at"] is None and match["seed"] is None
    (row,) = csv.DictReader(io.StringIO(as_csv))
    assert row["seed"] == "" and row["round"] == "1"

    for r in whole.rounds[1:]:
        history.record_round(match_id, r)
    history.finish_match(match_id, winners=whole.winners, totals=whole.totals, finished_at=whole.finished_at)
    history.close()
    as_json, as_csv = exports(capsys, path)
    (match,) = json.loads(as_json)
    assert match["finished_at"] is not None and match["seed"] == secret
    rows = list(csv.DictReader(io.StringIO(as_csv)))
    assert len(rows) == len(whole.rounds) and {row["seed"] for row in rows} == {str(secret)}


def test_an_unfinished_match_asked_for_by_seed_exports_none_either(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    whole = play_recorded(["greedy", "greedy"], 12345, Rules(target=60), human=0)
    path = tmp_path / "h.sqlite3"
    history, _message = History.open(path)
    match_id = history.start_match(
        seats=whole.seats, rules=whole.rules, seed=whole.seed, first_dealer=0, demo=False, started_at=whole.started_at
    )
    history.record_round(match_id, whole.rounds[0])
    history.close()
    as_json, as_csv = exports(capsys, path)
    assert json.loads(as_json)[0]["seed"] is None
    assert next(csv.DictReader(io.StringIO(as_csv)))["seed"] == ""
