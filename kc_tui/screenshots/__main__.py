"""``python -m kc_tui.screenshots``: regenerate the screenshots from a source checkout."""

from __future__ import annotations

import sys

from kc_tui.screenshots import main

sys.exit(main())
