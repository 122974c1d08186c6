"""The history as plain data (kc_tui/records/export.py): JSON and CSV rows."""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime

from kc_tui.records.export import EXPORT_COLUMNS
from kc_tui.records.store import History
from tests.records.kit import made, play, record, rnd


def test_exports_are_plain_data(history: History) -> None:
    record(history, play(["greedy", "greedy"], 4))
    unfinished = made(0, ["human", "greedy", "expert"], [rnd(1, [0, 1, 2], None, [3, 4, 5])], day=1, finished=False)
    record(history, unfinished, finish=False)
    doc = history.export_json()
    assert json.loads(json.dumps(doc)) == doc  # nothing but JSON types
    assert [len(m["rounds"]) for m in doc][1] == 1
    assert doc[1]["finished_at"] is None and isinstance(doc[0]["started_at"], str)
    datetime.fromisoformat(doc[0]["rounds"][0]["played_at"])
    rows = history.export_rows()
    assert len(rows) == sum(len(m["rounds"]) for m in doc)
    assert all(tuple(row) == EXPORT_COLUMNS for row in rows)
    assert rows[-1]["winner"] == "" and rows[-1]["winner_name"] == ""
    assert json.loads(rows[0]["moves"]) == doc[0]["rounds"][0]["moves"]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=EXPORT_COLUMNS)
    writer.writeheader()
    writer.writerows(rows)
    assert len(list(csv.DictReader(io.StringIO(out.getvalue())))) == len(rows)
