"""Fuzz every file the program reads: position files, saved matches, settings, history rows.

Each target (``tests/fuzz_targets/<kind>.py``) makes damaged files from valid ones (wrong
types, huge and non-finite numbers, deep nesting, markup and control characters in every
string, truncation, byte flips) and checks the contract for each:

- positions: ``check``/``moves``/``apply`` exit 2 with one line on stderr and nothing on
  stdout, or exit 0 with valid strict JSON that reads back;
- saves and settings: the loader never raises; an unusable file is reported in one line and
  kept aside, a usable one loads and round-trips;
- history rows: no value in any column makes a history reader raise or take over 2 s, and the
  read-only open changes no file.

    python tests/benchmarks/fuzz_files.py                # 20,000 cases, seed 0
    python tests/benchmarks/fuzz_files.py --cases 2000 --seed 7 --kinds saves

Prints the cases run and violations per kind, the first few violations in full, and a last
line ``violations: N`` (must be 0). Exit status 1 when N > 0.
"""

from __future__ import annotations

import argparse
import importlib
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

KINDS = ("positions", "saves", "settings", "history_rows")


def run_kind(kind: str, n: int, seed: int, show: int) -> tuple[int, list[str]]:
    """Run ``n`` cases of one kind; return how many ran and the violations found."""
    target = importlib.import_module(f"tests.fuzz_targets.{kind}")
    rng = random.Random(f"{kind}:{seed}")
    found: list[str] = []
    ran = 0
    with tempfile.TemporaryDirectory(prefix=f"kc-fuzz-{kind}-") as tmp:
        for i, data in enumerate(target.cases(rng, n)):
            folder = Path(tmp) / str(i)
            folder.mkdir()
            problem = target.check(data, folder)
            ran += 1
            if problem is not None:
                found.append(f"{kind} case {i}: {problem}")
                if len(found) <= show:
                    print(f"  VIOLATION {found[-1]}\n    input (first 300 bytes): {data[:300]!r}", flush=True)
    return ran, found


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cases", type=int, default=20_000, help="cases in all, shared between the kinds (20000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--kinds", default=",".join(KINDS), help=f"comma-separated, from {', '.join(KINDS)}")
    p.add_argument("--show", type=int, default=5, help="violations printed in full per kind")
    args = p.parse_args(argv)
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds or args.cases < len(kinds):
        p.error(f"choose kinds from {', '.join(KINDS)} and at least one case per kind")
    share = args.cases // len(kinds)
    total_ran, total_found = 0, 0
    for k, kind in enumerate(kinds):
        n = share + (args.cases - share * len(kinds) if k == 0 else 0)
        start = time.perf_counter()
        ran, found = run_kind(kind, n, args.seed, args.show)
        took = time.perf_counter() - start
        print(f"{kind}: {ran} cases, {len(found)} violations, {took:.1f} s ({1000 * took / max(ran, 1):.2f} ms a case)")
        total_ran += ran
        total_found += len(found)
    print(f"cases: {total_ran}")
    print(f"violations: {total_found}")
    return 1 if total_found else 0


if __name__ == "__main__":
    sys.exit(main())
