"""``kings-corners tournament``: AI players measured over duplicate deals, by rounds or by matches.

Every deal is played once per rotation of the seats (both orders for two players, every cyclic
rotation for three or four), so the luck of the cards and of the seat cancels out. Deals are
spread over processes with ``--jobs``; each deal's seed, dealer and AI seeds come from ``--seed``
and the deal's number only, so the results are the same whatever ``--jobs`` is (think times and
timeouts aside: they are measured, and reported apart under ``timing``). The batches of deals are
made as the workers need them and the results are counted as they come, so memory does not grow
with ``--deals``. Every option is checked before anything starts (:func:`~kc_tui.lab.options.parse_options`,
:func:`~kc_tui.lab.options.check_output`).

The parts: :mod:`~kc_tui.lab.options` (the options, checked), :mod:`~kc_tui.lab.play` (one deal or
match played), :mod:`~kc_tui.lab.batching` (the batches and the worker processes),
:mod:`~kc_tui.lab.results` (the results) and :mod:`~kc_tui.lab.reports` (the printed tables).

With ``--matches N`` (instead of ``--deals``) whole matches are played to their end with
:class:`kc_tui.engine.Match` (R15 points to the target, or R16 chips): match ``k``'s seed comes
from ``--seed`` and ``k`` only, and each match seed is played once per cyclic rotation of the
seats (seat entry ``j`` at match seat ``(j + rotation) % n``), so every rotation gets the same
deals round after round as long as the same players are left in (duplicate deals). Each seat
entry gets one AI per match (seeded from the seed, the match, the rotation and the entry), told
of every new round. A match in which a round runs past ``--max-turns`` turns, or which is not
over after :data:`~kc_tui.lab.play.MAX_MATCH_ROUNDS` rounds, is stopped and counted as *capped*: a win shared by
every seat (``1/n`` each), left out of every per-round figure and of the mean final score.

The match-mode results (:func:`~kc_tui.lab.results.summarize_matches`), per seat entry: ``matches_won`` (a win tied
between ``k`` players gives ``1/k`` to each, so the wins add up to the matches played),
``match_win_rate``, ``match_ci95``, ``mean_final_score`` (points, or chips), per-round means
(penalty points, and in chips mode chips won) and ``rounds_won``; and per pair of entries the
paired differences of win share and of the per-round figure. The intervals are normal
approximations clustered by match seed (the rotations of one seed share their deals, so they are
not independent): each seed gives one value (the seat's win share averaged over the seed's
rotations, or a difference of two such values), and the interval is
``mean ± 1.96 × sd / sqrt(seeds)`` with the sample standard deviation over seeds; a rate's interval
is clipped to [0, 1]. With fewer than two seeds there is no spread to measure and the interval is
``[null, null]``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from kc_tui.i18n import _
from kc_tui.lab.batching import iter_match_records, iter_records
from kc_tui.lab.options import EXIT_BAD_INPUT, EXIT_NOT_WRITTEN, TournamentError, check_output, parse_options
from kc_tui.lab.reports import format_match_table, format_rounds_table
from kc_tui.lab.results import summarize_matches, summarize_rounds
from kc_tui.util.files import atomic_write, shared_mode
from kc_tui.util.printable import one_line


def main(args: argparse.Namespace) -> int:
    """Check every option, play the tournament, print the table (and the JSON). Exit status 0;
    2 for a bad option (one line on stderr, nothing started); 1 when ``--json FILE`` could not be
    written at the end (the JSON is then printed on stdout after the table)."""
    try:
        cfg = parse_options(args)
        check_output(args.json)
    except TournamentError as exc:
        print(_("kings-corners tournament: {message}").format(message=one_line(str(exc))), file=sys.stderr)
        return EXIT_BAD_INPUT
    bar = None if args.quiet else sys.stderr
    if cfg.match_mode:
        summary = summarize_matches(cfg, iter_match_records(cfg, bar))
        print(format_match_table(summary))
    else:
        summary = summarize_rounds(cfg, iter_records(cfg, bar))
        print(format_rounds_table(summary))
    if not args.json:
        return 0
    text = json.dumps(summary, indent=2)
    if args.json == "-":
        print(text)
        return 0
    try:
        atomic_write(Path(args.json), (text + "\n").encode("utf-8"), mode=shared_mode())
    except OSError as exc:
        reason = one_line(str(exc.strerror or exc))
        print(
            # Translators: {file} is the file's name (quoted), {reason} why it cannot be written.
            _("kings-corners tournament: cannot write {file}: {reason}; the JSON follows on stdout").format(
                file=one_line(repr(args.json)), reason=reason
            ),
            file=sys.stderr,
        )
        print(text)
        return EXIT_NOT_WRITTEN
    return 0
