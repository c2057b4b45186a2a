"""Session files are read safely: a regular file only, inside the directory given, bytes
counted as they are read. A link out of the directory, ``/dev/zero`` and a FIFO are
refused or skipped with one line, at once, whether named on the command line, found under
``--transcripts DIR`` or named by a run's metadata."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from judgekit.errors import InputError
from judgekit.ingest.transcripts import read_transcripts, registry
from judgekit.ingest.transcripts.link import UNREADABLE_KEY, attach, link_named
from judgekit.ingest.models import RunResult
from tests.clirun import judgekit

HOST_SECRET = "hunter2-host-password"
SESSION = json.dumps({"trajectory_format": "mini-swe-agent-1.1",
                      "info": {"exit_status": "Submitted"},
                      "messages": [{"role": "system", "content": "s"},
                                   {"role": "assistant", "content": "done"}]})


#: Runs the command after it and writes its peak memory (kB) to the file ``$PEAK_FILE``.
_MEASURE = ("import os, resource, subprocess, sys; rc = subprocess.call(sys.argv[1:]); "
            "open(os.environ['PEAK_FILE'], 'w').write("
            "str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)); sys.exit(rc)")


def _measured(tmp_path: Path, *args: str | Path) -> tuple[subprocess.CompletedProcess[str], int]:
    """``judgekit ARGS`` and its peak resident memory in bytes."""
    peak = tmp_path / "peak"
    proc = judgekit(*args, timeout=60, prefix=[sys.executable, "-c", _MEASURE],
                    env={"PEAK_FILE": str(peak)})
    return proc, int(peak.read_text()) * 1024


def _hostile_dir(tmp_path: Path) -> Path:
    """A sessions directory whose tasks' files are a link to a host file, a link to
    ``/dev/zero`` and a FIFO; ``ok``'s is a real session."""
    host = tmp_path / "host-file"
    host.write_text(f"password={HOST_SECRET}\n")
    d = tmp_path / "sessions"
    d.mkdir()
    (d / "leak.traj.json").symlink_to(host)
    (d / "zero.traj.json").symlink_to("/dev/zero")
    os.mkfifo(d / "fifo.traj.json")
    (d / "ok.traj.json").write_text(SESSION)
    return d


@pytest.mark.parametrize("name,why", [("leak", "leads out of the directory"),
                                      ("zero", "leads out of the directory"),
                                      ("fifo", "not a regular file (a FIFO)")])
def test_a_hostile_file_under_a_directory_is_refused(tmp_path: Path, name: str,
                                                     why: str) -> None:
    d = _hostile_dir(tmp_path)
    with pytest.raises(InputError) as info:
        read_transcripts(d / f"{name}.traj.json", within=d)
    assert why in info.value.reason


@pytest.mark.parametrize("path,why", [("/dev/zero", "a character device"),
                                      ("fifo", "a FIFO"), ("dir", "a directory")])
def test_a_named_file_that_is_not_regular_is_refused(tmp_path: Path, path: str,
                                                     why: str) -> None:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "dir").mkdir()
    with pytest.raises(InputError) as info:
        read_transcripts(tmp_path / path)
    assert f"not a regular file ({why})" in info.value.reason


def test_the_cap_counts_bytes_read_not_the_size_stat_gives(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    monkeypatch.setattr(registry, "MAX_BYTES", 1000)
    big = tmp_path / "big.traj.json"
    big.write_text(SESSION + " " * 2000)
    with pytest.raises(InputError, match="more than 1000 bytes"):
        read_transcripts(big)
    # /proc files stat as 0 bytes and still hold some: they are read and counted
    with pytest.raises(InputError, match="more than 1000 bytes"):
        read_transcripts(Path("/proc/self/maps"), within=Path("/proc/self")) \
            if len(Path("/proc/self/maps").read_bytes()) > 1000 else pytest.skip("small maps")


def test_a_link_inside_the_directory_is_read(tmp_path: Path) -> None:
    d = tmp_path / "sessions"
    (d / "real").mkdir(parents=True)
    (d / "real" / "t.traj.json").write_text(SESSION)
    (d / "t.traj.json").symlink_to(d / "real" / "t.traj.json")
    assert read_transcripts(d / "t.traj.json", within=d).transcripts[0].format \
        == "mini-swe-agent"


def test_transcripts_dir_skips_each_hostile_file_and_reads_the_rest(tmp_path: Path) -> None:
    d = _hostile_dir(tmp_path)
    results = [RunResult.model_validate({"task": {"id": t}, "arm": "a", "agent_diff": ""})
               for t in ("leak", "zero", "fifo", "ok")]
    report = attach(results, [d])
    assert report.matched == 1 and len(report.unreadable) == 3
    assert results[3].session is not None
    assert all(r.session is None and UNREADABLE_KEY in r.metadata for r in results[:3])


def test_run_metadata_naming_a_link_out_is_not_read(tmp_path: Path) -> None:
    d = _hostile_dir(tmp_path)
    run_file = d / "run.json"
    for name in ("leak", "zero", "fifo"):
        result = RunResult.model_validate({"task": {"id": name}, "arm": "a",
                                           "metadata": {"transcript_file":
                                                        f"{name}.traj.json"}})
        link_named(run_file, result)
        assert result.session is None and result.metadata[UNREADABLE_KEY]


def test_the_cli_refuses_dev_zero_and_a_fifo_in_one_line(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    for path in ("/dev/zero", tmp_path / "fifo"):
        proc, peak = _measured(tmp_path, "transcript", path)
        assert proc.returncode == 2 and proc.stdout == "" and peak < 200 * 1024 * 1024
        assert proc.stderr.count("\n") == 1 and "not a regular file" in proc.stderr


def test_score_with_hostile_transcripts_writes_no_host_file(tmp_path: Path) -> None:
    d = _hostile_dir(tmp_path)
    run = tmp_path / "run.json"
    run.write_text(json.dumps({"results": [
        {"task": {"id": t}, "arm": "a", "agent_diff": "", "test": {"exit_code": 0}}
        for t in ("leak", "zero", "fifo", "ok")]}))
    proc, peak = _measured(tmp_path, "score", run, "--transcripts", d, "--out",
                           tmp_path / "out", "--no-similarity")
    assert proc.returncode == 0, proc.stderr
    assert "3 transcript file(s) could not be read" in proc.stdout + proc.stderr
    for p in (tmp_path / "out").rglob("*"):
        if p.is_file():
            assert HOST_SECRET not in p.read_text(errors="replace")
    assert peak < 200 * 1024 * 1024
