"""Run the real CLI in a subprocess, as a user would."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def as_plain_user() -> list[str]:
    """A command prefix that takes root's power to read any file away (``setpriv``), so
    permission tests mean the same as root and as a normal user."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    assert setpriv, "setpriv (util-linux) is needed to test permissions as root"
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search"]


def judgekit(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
             timeout: float = 300, prefix: list[str] | None = None
             ) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items()
                if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
    full_env.update(env or {})
    return subprocess.run([*(prefix or []), sys.executable, "-m", "judgekit", *map(str, args)],
                          cwd=cwd or ROOT,
                          env=full_env, capture_output=True, text=True, timeout=timeout)
