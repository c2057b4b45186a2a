"""``python -m judgekit.testing.demo_run``: judge N numbered items (see the package)."""

import sys

from judgekit.testing.cli import demo_main

sys.exit(demo_main())
