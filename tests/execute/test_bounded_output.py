"""What an agent prints or writes is stored bounded: each output stream is read through a
head-and-tail buffer (never whole), each stored text field keeps its head and tail, and the
result's ``truncated`` gives the whole field's size and SHA-256. The run file stays readable
and scored, the cut result marked."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

import judgekit.execute.process as process
import judgekit.ingest.cuts as cuts
from judgekit.cli import main
from judgekit.execute.process import Capture, run_shell
from judgekit.ingest.models import RunResult

from .conftest import FIX_AGENT


def test_a_command_printing_more_than_the_cap_keeps_its_head_tail_size_and_hash(
        tmp_path: Path) -> None:
    total = 20 * 1024 * 1024
    out = run_shell(f"head -c {total} /dev/zero | tr '\\0' x; printf END; printf err >&2",
                    cwd=tmp_path, timeout=60, log_dir=tmp_path / "logs")
    assert out.exit_code == 0
    assert out.stdout_cut is not None and out.stdout_cut.bytes == total + 3
    assert out.stdout_cut.sha256 == hashlib.sha256(b"x" * total + b"END").hexdigest()
    assert out.stdout_cut.kept == process.MAX_OUTPUT_BYTES
    assert out.stdout.startswith("xxxx") and out.stdout.endswith("xEND")
    assert f"[... {total + 3 - process.MAX_OUTPUT_BYTES} bytes cut by judgekit ...]" in out.stdout
    assert len(out.stdout) < process.MAX_OUTPUT_BYTES + 100
    assert out.stderr == "err" and out.stderr_cut is None
    log = tmp_path / "logs" / "command.stdout"  # the log holds what is kept, not the whole
    assert log.stat().st_size < process.MAX_OUTPUT_BYTES + 100


def test_the_capture_keeps_a_short_stream_whole() -> None:
    c = Capture(100)
    for piece in (b"ab", b"", "é".encode()):
        c.feed(piece)
    assert (c.text(), c.cut(), c.size) == ("abé", None, 4)


def test_an_agent_flooding_its_output_and_writing_a_huge_file_is_stored_cut_and_scored(
        suite_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(process, "MAX_OUTPUT_BYTES", 50_000)
    monkeypatch.setattr(cuts, "FIELD_BYTES", 100_000)
    flood = 3_000_000
    agent = (f"{FIX_AGENT} && head -c {flood} /dev/zero | tr '\\0' y && "
             "head -c 600000 /dev/urandom | base64 > big.txt")
    out = tmp_path / "run.jsonl"
    assert main(["run", str(suite_file), "--agent", agent, "--out", str(out)]) == 0
    line = out.read_bytes()
    assert len(line) < 400_000  # three fields of at most 100 kB, and the rest
    (result,) = [RunResult.model_validate_json(x) for x in line.splitlines()]
    cut = result.truncated or {}
    assert cut["metadata.agent_stdout"].bytes == flood
    assert cut["metadata.agent_stdout"].sha256 == hashlib.sha256(b"y" * flood).hexdigest()
    assert cut["agent_diff"].bytes > 800_000 and cut["agent_diff"].sha256
    assert cut["agent_diff"].kept == 50_000  # read from git through the output buffer
    assert len(result.agent_diff.encode()) < 50_200
    assert sorted(result.agent_files or []) == ["big.txt", "calc/__init__.py"]
    capsys.readouterr()
    assert main(["score", str(out), "--json", "--no-similarity"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["arms"]["baseline"]["n"] == 1
    assert any("1 of 1 results have text fields cut" in w and "agent_diff" in w
               for w in summary["warnings"])
