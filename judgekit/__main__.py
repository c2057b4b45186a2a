import sys

from judgekit.cli import main

sys.exit(main())
