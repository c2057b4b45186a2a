"""The grep context given to an agent reads no file outside the task's workspace: a tracked
link pointing out of it is refused and counted in the result's metadata."""

from __future__ import annotations

import subprocess
from pathlib import Path

from judgekit.execute.context import GrepSource

OUTSIDE = "HOST-ONLY-7e21"


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd,
                   check=True, capture_output=True)


def test_a_tracked_link_out_of_the_workspace_is_not_read(tmp_path: Path) -> None:
    (tmp_path / "host.txt").write_text(f"def compute_total(): {OUTSIDE}\n")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "calc.py").write_text("def compute_total(items):\n    return sum(items)\n")
    (ws / "leak.py").symlink_to(tmp_path / "host.txt")
    _git(ws, "init", "-q")
    _git(ws, "add", "-A")
    _git(ws, "commit", "-qm", "c")
    block = GrepSource().context(ws, "fix `compute_total`", max_tokens=2000)
    assert "calc.py" in block.files and "return sum(items)" in block.text
    assert OUTSIDE not in block.text and "leak.py" not in block.files
    assert block.stats == {"context_paths_refused": 1}
