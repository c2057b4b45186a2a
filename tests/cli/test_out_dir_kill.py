"""``--out`` under hostile conditions: a kill -9 at each rename, exchange or unlink of a write
leaves the user's files where they were and the directory holding the whole old set or the
whole new set (``judgekit report`` works on it); a mount point is written in place; two
writers of one directory, and a link to nothing, end in one line."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from judgekit.errors import InputError
from judgekit.report import render_reports
from judgekit.report.outdir import INCOMPLETE, OUTPUT_FILES, remove_stale, replace_dir
from tests.cli.helpers import run_file
from tests.clirun import ROOT, judgekit
from tests.conftest import EXAMPLE_BOBBIN

ONE_RUN = EXAMPLE_BOBBIN / "20260210-194843-a327"
NOTES = b"the user's own notes\n"
DATA = ("summary.json", "results.jsonl", "runs.jsonl", "audit.jsonl")

Files = dict[str, bytes]


def _set(out: Path) -> Files:
    return {n: (out / n).read_bytes() for n in OUTPUT_FILES if (out / n).exists()}


def _hidden(where: Path) -> list[str]:
    """Hidden entries: what a writer left (staging directories, locks)."""
    return [n for n in os.listdir(where) if n.startswith(".")]


def _one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


@pytest.fixture(scope="module")
def sets(tmp_path_factory: pytest.TempPathFactory) -> tuple[Files, Files]:
    """The old set (another evaluation, with an audit.jsonl the new set lacks) and the new."""
    base = tmp_path_factory.mktemp("sets")
    old, new = base / "old", base / "new"
    assert judgekit("score", run_file(base), "--out", old).returncode == 0
    (old / "audit.jsonl").write_bytes(b"")
    assert judgekit("score", ONE_RUN, "--out", new).returncode == 0
    return _set(old), _set(new)


def _killed_at(step: int, under: Path, out: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
    return subprocess.run([sys.executable, "-m", "tests.cli.killed_writer", str(step),
                           str(under), "score", str(ONE_RUN), "--out", str(out), "--force"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def _kill_at_every_step(case: Path, out: Path, reset: Callable[[], None],
                        check: Callable[[], str]) -> list[str]:
    """Kill the write at step 1, 2, ... until it runs through; ``check`` after each kill
    names the set found ("old" or "new")."""
    found = []
    for step in range(1, 60):
        reset()
        proc = _killed_at(step, case, out)
        if proc.returncode == 0:
            return found
        assert proc.returncode == -signal.SIGKILL, proc.stderr
        found.append(check())
    raise AssertionError("the write never ran through")


def _which(files: Files, old: Files, new: Files, names: tuple[str, ...] | None = None) -> str:
    pick = (lambda s: {n: b for n, b in s.items() if n in names}) if names else (lambda s: s)
    if files.keys() == old.keys() and pick(files) == pick(old):
        return "old"
    assert files.keys() == new.keys() and pick(files) == pick(new), sorted(files)
    return "new"


def _fill(out: Path, files: Files) -> None:
    for name, data in files.items():
        (out / name).write_bytes(data)


@pytest.mark.parametrize("folder", [False, True], ids=["a-file", "a-file-and-a-folder"])
def test_a_kill_at_any_step_over_the_users_files_keeps_them_and_one_whole_set(
        tmp_path: Path, sets: tuple[Files, Files], folder: bool) -> None:
    """The user's files alone: the set is swapped whole (at the very instant of the kill).
    A folder of theirs too: the set is written in place; at the instant of the kill ``DIR``
    holds the whole old set or the whole new set, or a mix with the commit record
    ``.judgekit-incomplete`` beside it (put there before the first file moves in, removed
    after the last change), and a write cut between its renames is finished by the next
    judgekit process, here ``judgekit report``."""
    old, new = sets
    case = tmp_path / "case"
    out = case / "out"
    mine = ["mine", "notes.txt"] if folder else ["notes.txt"]

    def reset() -> None:
        shutil.rmtree(case, ignore_errors=True)
        out.mkdir(parents=True)
        _fill(out, old)
        (out / "notes.txt").write_bytes(NOTES)
        if folder:
            (out / "mine").mkdir()
            (out / "mine" / "data.csv").write_bytes(NOTES)

    def check() -> str:
        assert (out / "notes.txt").read_bytes() == NOTES
        assert not folder or (out / "mine" / "data.csv").read_bytes() == NOTES
        raw = _set(out)
        marked = (out / INCOMPLETE).exists()
        assert folder or not marked
        if raw not in (old, new):
            assert folder, sorted(raw)  # only an in-place write can be cut between files
            assert marked, sorted(raw)  # and a reader can tell: the record is there
            mixed.append(raw)
        if marked:
            states.append("marked")
        proc = judgekit("report", out)
        assert proc.returncode == 0, proc.stderr
        assert sorted(os.listdir(out)) == sorted([*_set(out), *mine])
        assert os.listdir(case) == ["out"]
        return _which(_set(out), old, new, DATA)

    mixed: list[Files] = []
    states: list[str] = []
    found = _kill_at_every_step(case, out, reset, check)
    assert "old" in found and "new" in found and (mixed or not folder), found
    assert (len(states) > len(mixed) if folder else not states), (states, mixed)
    assert (out / "notes.txt").read_bytes() == NOTES and _set(out) == new


def test_a_kill_at_any_step_of_a_swap_leaves_one_whole_set_at_that_instant(
        tmp_path: Path, sets: tuple[Files, Files]) -> None:
    old, new = sets
    case = tmp_path / "case"
    out = case / "out"

    def reset() -> None:
        shutil.rmtree(case, ignore_errors=True)
        out.mkdir(parents=True)
        _fill(out, old)

    def check() -> str:
        which = _which(_set(out), old, new)  # before any other process opened it
        assert sorted(os.listdir(out)) == sorted(_set(out))
        remove_stale(out)
        assert os.listdir(case) == ["out"]  # what the killed writer left is gone
        render_reports(out)
        return which

    found = _kill_at_every_step(case, out, reset, check)
    assert "old" in found and "new" in found, found


@pytest.fixture
def mount_point(tmp_path: Path) -> Iterator[Path]:
    """A tmpfs mounted inside the test's directory (as a container volume is)."""
    point = tmp_path / "case" / "out"
    point.mkdir(parents=True)
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(point)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"mounting a tmpfs is not permitted here: {proc.stderr.strip()}")
    try:
        yield point
    finally:
        subprocess.run(["umount", "-l", str(point)], check=False)


def test_a_mount_point_is_written_in_place_and_keeps_the_users_files(
        mount_point: Path, sets: tuple[Files, Files]) -> None:
    out = mount_point
    inode = out.stat().st_ino
    proc = judgekit("score", ONE_RUN, "--out", out)
    assert proc.returncode == 0, proc.stderr
    (out / "notes.txt").write_bytes(NOTES)
    (out / "audit.jsonl").write_bytes(b"")
    proc = judgekit("score", ONE_RUN, "--out", out, "--force")
    assert proc.returncode == 0, proc.stderr
    assert out.stat().st_ino == inode and os.path.ismount(out)
    assert sorted(os.listdir(out)) == sorted([*sets[1], "notes.txt"])
    assert _set(out) == sets[1] and (out / "notes.txt").read_bytes() == NOTES
    assert os.listdir(out.parent) == ["out"]


def test_a_kill_at_any_step_on_a_mount_point_keeps_the_users_files_and_one_whole_set(
        mount_point: Path, sets: tuple[Files, Files]) -> None:
    old, new = sets
    out = mount_point
    case = out.parent

    def reset() -> None:
        for entry in os.listdir(out):
            path = out / entry
            shutil.rmtree(path) if path.is_dir() else path.unlink()
        for entry in os.listdir(case):
            if entry != "out":
                (case / entry).unlink()
        _fill(out, old)
        (out / "notes.txt").write_bytes(NOTES)

    def check() -> str:
        remove_stale(out)
        assert (out / "notes.txt").read_bytes() == NOTES
        assert sorted(os.listdir(out)) == sorted([*_set(out), "notes.txt"])
        render_reports(out)
        return _which(_set(out), old, new, DATA)

    found = _kill_at_every_step(case, out, reset, check)
    assert "old" in found and "new" in found, found


def test_a_directory_another_process_is_writing_is_refused_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "out"
    ready, go = tmp_path / "ready", tmp_path / "go"
    code = ("import time\nfrom pathlib import Path\n"
            "from judgekit.report.outdir import replace_dir\n"
            "def fill(d):\n"
            f"    Path({str(ready)!r}).touch()\n"
            f"    while not Path({str(go)!r}).exists():\n        time.sleep(0.02)\n"
            "    (d / 'summary.json').write_text('{}')\n"
            f"replace_dir({str(out)!r}, fill)\n")
    writer = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT)
    try:
        while not ready.exists():
            assert writer.poll() is None, "the first writer ended early"
            time.sleep(0.02)
        line = _one_line_error(judgekit("score", ONE_RUN, "--out", out))
        assert "another judgekit process" in line and f"pid {writer.pid}" in line
        assert not out.exists()
    finally:
        go.touch()
        assert writer.wait(timeout=60) == 0
    assert os.listdir(out) == ["summary.json"] and not _hidden(tmp_path)


def test_two_processes_creating_one_out_end_cleanly(tmp_path: Path) -> None:
    out = tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
    procs = [subprocess.Popen([sys.executable, "-m", "judgekit", "score", str(ONE_RUN),
                               "--out", str(out)], cwd=ROOT, env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for _ in range(2)]
    ends = [(p.wait(timeout=120), p.communicate()[1]) for p in procs]
    assert any(code == 0 for code, _ in ends), ends
    for code, err in ends:
        assert "Traceback" not in err, err
        assert code == 0 or (code == 2 and len(err.strip().splitlines()) == 1), err
    assert sorted(os.listdir(out)) == ["report.html", "report.md", "results.jsonl",
                                       "runs.jsonl", "summary.json"]
    assert not _hidden(tmp_path)
    assert judgekit("report", out).returncode == 0


def test_a_link_to_nothing_as_out_is_refused_and_creates_nothing(tmp_path: Path) -> None:
    link = tmp_path / "out"
    link.symlink_to(tmp_path / "nowhere" / "deep")
    line = _one_line_error(judgekit("score", ONE_RUN, "--out", link))
    assert "symbolic link to nothing" in line and "--out" in line
    assert not (tmp_path / "nowhere").exists()
    with pytest.raises(InputError, match="does not exist"):
        replace_dir(link, lambda d: (d / "summary.json").write_text("{}"))
    assert not (tmp_path / "nowhere").exists()


def test_a_link_to_a_directory_writes_into_that_directory(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "out").symlink_to(real)
    replace_dir(tmp_path / "out", lambda d: (d / "summary.json").write_text("{}"))
    assert (tmp_path / "out").is_symlink() and os.listdir(real) == ["summary.json"]


def test_what_an_older_writer_moved_aside_is_never_deleted(tmp_path: Path) -> None:
    """A staging directory that a killed writer filled with the user's files (as judgekit
    once did): the next write removes judgekit's files from it and leaves the user's."""
    out = tmp_path / "out"
    replace_dir(out, lambda d: (d / "summary.json").write_text("{}"))
    aside = tmp_path / ".out.judgekit-999999999-0badc0de"
    aside.mkdir()
    (aside / "notes.txt").write_bytes(NOTES)
    (aside / "report.md").write_text("#")
    replace_dir(out, lambda d: (d / "summary.json").write_text("{}"))
    assert os.listdir(aside) == ["notes.txt"]
    assert (aside / "notes.txt").read_bytes() == NOTES
