"""Run the real CLI in a subprocess, as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def judgekit(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
             timeout: float = 300) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items()
                if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "judgekit", *map(str, args)], cwd=cwd or ROOT,
                          env=full_env, capture_output=True, text=True, timeout=timeout)
