"""An ``.eval`` archive is read within bounds: a member that decompresses to more than the
cap refuses the file in one line naming the member, counted as it is decompressed (never
trusting the archive's directory), before anything of it is held in memory."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

import judgekit.ingest.adapters.inspect_log as inspect_log
from judgekit.errors import InputError
from judgekit.ingest.load import load_runs

from tests.clirun import judgekit


def _bomb(path: Path, member_bytes: int) -> Path:
    """A small zip whose one sample member decompresses to ``member_bytes`` zero bytes."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", '{"version": 2, "status": "success"}')
        with archive.open("samples/1_epoch_1.json", "w", force_zip64=True) as member:
            block = b"\0" * (1 << 20)
            for _ in range(member_bytes // len(block)):
                member.write(block)
    return path


def test_a_member_over_the_cap_refuses_the_archive_in_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inspect_log, "MAX_MEMBER_BYTES", 4 << 20)
    bomb = _bomb(tmp_path / "bomb.eval", 16 << 20)
    assert bomb.stat().st_size < 100_000
    with pytest.raises(InputError) as exc:
        load_runs(bomb)
    assert str(exc.value) == (f"{bomb}: samples/1_epoch_1.json: decompresses to more than "
                              f"{4 << 20} bytes: refused")


def test_the_archive_total_is_capped_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                         ) -> None:
    monkeypatch.setattr(inspect_log, "MAX_ARCHIVE_BYTES", 2 << 20)
    bomb = _bomb(tmp_path / "bomb.eval", 3 << 20)
    with pytest.raises(InputError, match="the archive decompresses to more than 2097152"):
        load_runs(bomb)


def test_a_zip_bomb_at_the_command_line_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bomb = _bomb(tmp_path / "bomb.eval", inspect_log.MAX_MEMBER_BYTES + (2 << 20))
    proc = judgekit("score", str(bomb), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"judgekit: error: {bomb}: samples/1_epoch_1.json: decompresses to more than "
        f"{inspect_log.MAX_MEMBER_BYTES} bytes: refused"]
