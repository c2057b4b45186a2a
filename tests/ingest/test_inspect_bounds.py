"""An ``.eval`` archive is read within bounds, each member counted as it is decompressed
(never trusting the archive's directory), before anything of it is held in memory: a sample's
member over the cap is left unread, that sample scored from its summary and marked, the
other samples scored as read; any other member over the cap, or the archive's total, refuses
the file in one line naming the member."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

import judgekit.ingest.adapters.inspect_log as inspect_log
from judgekit.errors import InputError
from judgekit.ingest.load import load_runs, load_runs_result
from judgekit.scoring.score import score
from judgekit.scoring.stream import iter_scored

from tests.clirun import judgekit


def _bomb(path: Path, member_bytes: int, name: str = "samples/1_epoch_1.json") -> Path:
    """A small zip whose one member ``name`` decompresses to ``member_bytes`` zero bytes."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", '{"version": 2, "status": "success"}')
        with archive.open(name, "w", force_zip64=True) as member:
            block = b"\0" * (1 << 20)
            for _ in range(member_bytes // len(block)):
                member.write(block)
    return path


def test_a_member_other_than_a_sample_over_the_cap_refuses_the_archive_in_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inspect_log, "MAX_MEMBER_BYTES", 4 << 20)
    bomb = _bomb(tmp_path / "bomb.eval", 16 << 20, name="summaries.json")
    assert bomb.stat().st_size < 100_000
    with pytest.raises(InputError) as exc:
        load_runs(bomb)
    assert str(exc.value) == (f"{bomb}: summaries.json: decompresses to more than "
                              f"{4 << 20} bytes: refused")


def _inflated(log: Path, member: str, pad: int, out: Path) -> Path:
    """``log`` with the JSON of ``member`` padded by ``pad`` spaces (the same sample)."""
    with zipfile.ZipFile(log) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == member:
                data = b" " * pad + data
                json.loads(data)
            dst.writestr(info.filename, data)
    return out


def test_one_sample_over_the_cap_is_marked_and_the_others_are_scored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("inspect_ai")  # a real log, written by Inspect
    from tests.ingest import inspect_evals as ev

    log = ev.run(ev.swe_calc(), tmp_path / "logs", "eval", ev.CONTEXT)
    with zipfile.ZipFile(log) as archive:
        largest = max(i.file_size for i in archive.infolist())
    cap = largest + 1000
    big = _inflated(log, "samples/s3_epoch_1.json", 2 * cap, tmp_path / "big.eval")
    monkeypatch.setattr(inspect_log, "MAX_MEMBER_BYTES", cap)

    loaded = load_runs_result(big)
    by_id = {r.task_id.rsplit("/", 1)[1]: r for r in loaded.results}
    assert sorted(by_id) == list(ev.IDS)
    unread = by_id["s3"]
    assert unread.truncated is not None and list(unread.truncated) == ["sample"]
    assert unread.truncated["sample"].bytes > cap and unread.truncated["sample"].kept == 0
    assert unread.metadata["unread_member"] == "samples/s3_epoch_1.json"
    assert unread.success is True and unread.agent_diff is None  # its summary's score
    assert unread.arm == ev.MODEL and unread.attempt == 0
    for sid in ("s1", "s2", "s4", "s5"):  # read whole: their patches are there
        assert not by_id[sid].truncated and by_id[sid].agent_diff == ev.diff(ev.CONTEXT[sid])
    [line] = [w for w in loaded.warnings if "decompresses to more than" in w]
    assert line.startswith(f"1 Inspect AI sample of {big} decompresses to more than {cap} "
                           "bytes: not read (samples/s3_epoch_1.json)")
    assert line.endswith("the other 4 scored as read")

    summary = score(loaded.results)
    assert summary.arms[ev.MODEL].n == 5
    assert any(w.startswith("1 of 5 results have text fields cut") and "(sample)" in w
               for w in summary.warnings)
    streamed = {s.task_id: s.truncated for s in iter_scored(big, workers=1)}
    assert streamed == {r.task_id: list(r.truncated or {}) for r in loaded.results}


def test_the_archive_total_is_capped_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                         ) -> None:
    monkeypatch.setattr(inspect_log, "MAX_ARCHIVE_BYTES", 2 << 20)
    bomb = _bomb(tmp_path / "bomb.eval", 3 << 20)
    with pytest.raises(InputError, match="the archive decompresses to more than 2097152"):
        load_runs(bomb)


def test_a_zip_bomb_at_the_command_line_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bomb = _bomb(tmp_path / "bomb.eval", inspect_log.MAX_MEMBER_BYTES + (2 << 20),
                 name="header.json.big")
    proc = judgekit("score", str(bomb), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"judgekit: error: {bomb}: header.json.big: decompresses to more than "
        f"{inspect_log.MAX_MEMBER_BYTES} bytes: refused"]
