"""``python -m judgekit.testing``: run the fake API server until killed (prints its port)."""

import sys

from judgekit.cli.testing_server import main

sys.exit(main())
