"""``python -m judgekit.testing``: run the fake API server until killed (prints its port)."""

import sys

from judgekit.testing.cli import main

sys.exit(main())
