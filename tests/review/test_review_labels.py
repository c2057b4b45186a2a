"""Label files: each label a whole line or nothing, whatever cuts a write short; every whole
line read back and nothing removed; never read or written through a link."""

from __future__ import annotations

import errno
import json
import os
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

from judgekit.errors import InputError
from judgekit.review.labelfile import LabelWriteError, read_label_lines
from judgekit.review.items import load_queue
from judgekit.review.labels import LabelStore, audit_label_set, pairwise_gold_set
from judgekit.review.server import ReviewState
from tests.clirun import judgekit

SHA = "0" * 64


def _label_fd(fd: int) -> bool:
    """Whether ``fd`` is open on a label file (the fake writes below touch no other)."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}").endswith(".jsonl")
    except OSError:
        return False


def test_writes_cut_short_are_continued_until_the_line_is_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = os.write

    def short(fd: int, data: Any) -> int:  # a few bytes per call, as a full pipe would
        return real(fd, bytes(data[:3])) if _label_fd(fd) else real(fd, data)

    monkeypatch.setattr(os, "write", short)
    store = LabelStore(tmp_path, "ana")
    for dim in ("consistency", "minimality"):
        store.add_pairwise("t1", "x", "y", dim, "A", shown_sha256=SHA)
    monkeypatch.undo()
    got = read_label_lines(tmp_path, "pairwise.jsonl")
    assert got.bad == [] and [r["dimension"] for _, r in got.rows] == ["consistency",
                                                                     "minimality"]


def test_a_write_that_fails_part_way_leaves_the_file_as_it_was_and_is_not_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = LabelStore(tmp_path, "ana")
    store.add_audit(("t1", "a", 0, ""), 0, category=None, shown_sha256=SHA)
    path = tmp_path / "labels" / "audit.jsonl"
    before = path.read_bytes()
    real = os.write

    def full_disk(fd: int, data: Any) -> int:  # half the line, then the disk is full
        if not _label_fd(fd):
            return real(fd, data)
        if len(data) > 20:
            return real(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(LabelWriteError, match="not stored.*No space left.*as it was"):
        store.add_audit(("t2", "a", 0, ""), 1, category=None, shown_sha256=SHA)
    monkeypatch.undo()
    assert path.read_bytes() == before  # no fragment left
    assert list(store.audit) == [("t1", "a", 0, "")]  # not taken as given
    store.add_audit(("t2", "a", 0, ""), 1, category=None, shown_sha256=SHA)
    assert [r["task_id"] for _, r in read_label_lines(tmp_path, "audit.jsonl").rows] == [
        "t1", "t2"]


def test_two_labellers_at_once_one_cut_short_leave_every_confirmed_label_of_both(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = os.write
    calls = {"n": 0}
    lock = threading.Lock()

    def flaky(fd: int, data: Any) -> int:
        """bo's writes: every third one stops after part of its line (a full disk)."""
        if not _label_fd(fd) or b'"bo"' not in bytes(data):
            return real(fd, data)
        with lock:
            calls["n"] += 1
            cut = calls["n"] % 3 == 0
        if cut:
            real(fd, bytes(data[:17]))
            raise OSError(errno.EFBIG, "File too large")
        return real(fd, data)

    monkeypatch.setattr(os, "write", flaky)
    confirmed: dict[str, set[str]] = {"ana": set(), "bo": set()}
    failed: dict[str, int] = {"ana": 0, "bo": 0}

    def label(who: str) -> None:
        store = LabelStore(tmp_path, who)
        for t in range(40):
            try:
                store.add_pairwise(f"t{t}", "x", "y", "minimality", "A", shown_sha256=SHA)
            except LabelWriteError:
                failed[who] += 1
            else:
                confirmed[who].add(f"t{t}")

    threads = [threading.Thread(target=label, args=(who,)) for who in ("ana", "bo")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    monkeypatch.undo()
    assert failed == {"ana": 0, "bo": 13} and len(confirmed["bo"]) == 27
    got = read_label_lines(tmp_path, "pairwise.jsonl")
    assert got.bad == []  # not one fragment
    gold = pairwise_gold_set(tmp_path)
    assert gold.rows == 67
    for who in ("ana", "bo"):
        assert {k[0] for k in gold.by_labeller[who]} == confirmed[who]


def test_a_fragment_glued_before_a_whole_label_gives_the_label_back_and_is_reported(
        tmp_path: Path) -> None:
    (tmp_path / "labels").mkdir()
    path = tmp_path / "labels" / "audit.jsonl"
    whole = {"task_id": "t1", "arm": "a", "attempt": 0, "label": 1, "labeller": "ana",
             "time": "2026-01-01T00:00:00+00:00", "shown_sha256": SHA}
    path.write_text('{"task_id": "t0", "ar' + json.dumps(whole) + "\nnot json\n")
    bad: list[str] = []
    labels = audit_label_set(tmp_path, bad=bad)
    assert labels.labels == {"t1": 1}
    assert bad == [f"{path}: line 1: a fragment before a whole label (the label is kept)",
                   bad[1]] and bad[1].startswith(f"{path}: line 2: not a whole label")


def _user_file(tmp_path: Path) -> tuple[Path, bytes]:
    mine = tmp_path / "mine.txt"
    mine.write_bytes(b"line one\nmy last line, no newline")
    return mine, mine.read_bytes()


@pytest.mark.parametrize("name", ["pairwise.jsonl", "audit.jsonl"])
def test_a_label_file_that_is_a_link_is_refused_and_its_target_untouched(
        tmp_path: Path, name: str) -> None:
    mine, before = _user_file(tmp_path)
    out = tmp_path / "out"
    (out / "labels").mkdir(parents=True)
    (out / "labels" / name).symlink_to(mine)
    with pytest.raises(InputError, match="a symbolic link: refused"):
        LabelStore(out, "ana")
    assert mine.read_bytes() == before


def test_a_dangling_link_is_never_followed_to_create_a_file(tmp_path: Path) -> None:
    out = tmp_path / "out"
    store = LabelStore(out, "ana")  # no labels yet
    (out / "labels").mkdir(parents=True)
    outside = tmp_path / "elsewhere.jsonl"
    (out / "labels" / "audit.jsonl").symlink_to(outside)
    with pytest.raises(InputError, match="a symbolic link: refused"):
        store.add_audit(("t1", "a", 0, ""), 0, category=None, shown_sha256=SHA)
    assert not outside.exists() and store.audit == {}
    with pytest.raises(InputError, match="a symbolic link: refused"):
        LabelStore(out, "ana")
    assert not outside.exists()


def test_a_labels_folder_that_is_a_link_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    (out / "labels").symlink_to(elsewhere)
    with pytest.raises(InputError, match="labels: a symbolic link or not a directory"):
        LabelStore(out, "ana")
    (out / "labels").unlink()
    store = LabelStore(out, "ana")  # no labels yet
    (out / "labels").symlink_to(tmp_path / "missing")  # dangling: never created through
    with pytest.raises(InputError, match="labels: a symbolic link or not a directory"):
        store.add_pairwise("t1", "x", "y", "minimality", "A", shown_sha256=SHA)
    assert not (tmp_path / "missing").exists() and list(elsewhere.iterdir()) == []


def test_a_fifo_in_place_of_a_label_file_is_refused_without_waiting(tmp_path: Path) -> None:
    (tmp_path / "labels").mkdir()
    os.mkfifo(tmp_path / "labels" / "pairwise.jsonl")
    with pytest.raises(InputError, match="not a regular file"):
        LabelStore(tmp_path, "ana")


def test_calibrate_reads_every_whole_label_around_a_fragment_and_names_its_line(
        judged_out: Path, tmp_path: Path) -> None:
    out = Path(shutil.copytree(judged_out, tmp_path / "out"))
    state = ReviewState(load_queue(out, seed=0), LabelStore(out, "ana"))
    dims = state.item_view(0)["view"]["dimensions"]
    path = out / "labels" / "pairwise.jsonl"
    for i in (0, 1):
        for dim in dims:
            state.label({"i": i, "dimension": dim, "choice": "left"})
        if i == 0:
            with path.open("a") as fh:
                fh.write('{"task_id": "t9", "ar')  # a crash mid-write: never confirmed
    before = path.read_bytes()
    got = judgekit("calibrate", out, "--json")
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout)["n_labels"] == 2 * len(dims)
    [said] = [x for x in got.stderr.splitlines() if "left out" in x]
    assert said.startswith(f"calibrate: left out, kept in the file: {path}: line "
                           f"{len(dims) + 1}: not a whole label (")
    assert path.read_bytes() == before
