"""``python -m kc_tui``: the ``kings-corners`` command (the same entry point as the console script)."""

from __future__ import annotations

import sys

from kc_tui.cli import main

if __name__ == "__main__":
    sys.exit(main())
