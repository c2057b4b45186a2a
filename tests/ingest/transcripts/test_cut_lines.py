"""A JSON-lines session file with lines that are not JSON (a cut-off last line, a line
mangled in a copy): what reads is kept, and the lines left out are counted and said."""

from __future__ import annotations

import json
from pathlib import Path

from tests.clirun import judgekit
from tests.ingest.transcripts.test_openhands import MAX_ITERATIONS, crashed, stopped_by, \
    submitted


def _cut_output(tmp_path: Path) -> Path:
    out = tmp_path / "sessions" / "output.jsonl"
    out.parent.mkdir()
    rows = [submitted("example__calc-1"), stopped_by(MAX_ITERATIONS, "example__calc-2"),
            crashed("example__calc-3")]
    lines = [json.dumps(r) for r in rows]
    lines[2] = lines[2][: len(lines[2]) // 2]  # the run was killed while writing it
    out.write_text("\n".join(lines) + "\n")
    return out


def test_transcript_says_how_many_lines_were_left_out(tmp_path: Path) -> None:
    out = _cut_output(tmp_path)
    proc = judgekit("transcript", out, "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert [d["task_id"] for d in data] == ["example__calc-1", "example__calc-2"]
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [f"warning: {out}: 1 line not JSON, left out"]


def test_linking_counts_the_lines_left_out(tmp_path: Path) -> None:
    out = _cut_output(tmp_path)
    run = tmp_path / "run.json"
    run.write_text(json.dumps({"results": [
        {"task": {"id": f"example__calc-{n}"}, "arm": "oh", "agent_diff": "",
         "test": {"exit_code": 1, "output": "1 failed in 0.05s"}} for n in (1, 2, 3)]}))
    proc = judgekit("score", run, "--transcripts", out.parent, "--json", "--no-similarity")
    assert proc.returncode == 0, proc.stderr
    scored = json.loads(proc.stdout)
    assert scored["arms"]["oh"]["transcripts"]["n_with_transcript"] == 2
    said = [w for w in scored["warnings"] if "read in part" in w]
    assert said == [f"1 transcript file(s) read in part: {out}: 1 line not JSON, left out"]
