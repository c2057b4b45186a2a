"""ATIF trajectories written by Harbor's own models and converters, read with
``judgekit transcript FILE --json``: turns, tool calls, tokens and cost equal the file's."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from judgekit.cli import main

ATIF = Path(__file__).resolve().parents[1] / "fixtures" / "harbor" / "atif"
VERSIONED = sorted(ATIF.glob("v1.*.json"))
CONVERTED = sorted(ATIF.glob("*.trajectory.json"))


def _text(message: Any) -> str:
    if isinstance(message, str):
        return message
    return "\n".join(p["text"] for p in message or [] if p.get("type") == "text")


def expected(doc: dict[str, Any]) -> dict[str, Any]:
    """What the file records, read from it directly."""
    calls, outputs, turns = [], {}, 0
    for step in doc["steps"]:
        if step["source"] != "agent" or step.get("message") or step.get("tool_calls") or \
                step.get("reasoning_content"):
            turns += bool(_text(step.get("message")) or step.get("tool_calls")
                          or step.get("reasoning_content"))
        for c in step.get("tool_calls") or []:
            calls.append((c["function_name"], c["arguments"], c["tool_call_id"]))
        ids = {c[2] for c in calls}
        for r in (step.get("observation") or {}).get("results", []):
            if r.get("source_call_id") in ids:
                outputs.setdefault(r["source_call_id"], []).append(_text(r.get("content")))
            else:
                turns += bool(_text(r.get("content")))  # a result of no call: a tool turn
    fm = doc.get("final_metrics")
    if fm is not None:
        prompt, out = fm.get("total_prompt_tokens"), fm.get("total_completion_tokens")
        cached, cost = fm.get("total_cached_tokens"), fm.get("total_cost_usd")
    else:
        ms = [s["metrics"] for s in doc["steps"] if s.get("metrics")]
        prompt = sum(m.get("prompt_tokens") or 0 for m in ms)
        out = sum(m.get("completion_tokens") or 0 for m in ms)
        cached = sum(m.get("cached_tokens") or 0 for m in ms)
        cost = sum(m.get("cost_usd") or 0 for m in ms)
    return {"calls": calls, "outputs": outputs, "turns": turns,
            "tokens_in": None if prompt is None else prompt - (cached or 0),
            "tokens_out": out, "cost": cost, "agent": doc["agent"]["name"],
            "version": doc["agent"].get("version")}


def transcript_json(path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["transcript", str(path), "--json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


@pytest.mark.parametrize("path", VERSIONED + CONVERTED, ids=lambda p: p.name)
def test_transcript_equals_the_file(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(path.read_text())
    want = expected(doc)
    got = transcript_json(path, capsys)
    assert got["format"] == "atif"
    assert (got["agent"], got["agent_version"]) == (want["agent"], want["version"])
    assert [(c["name"], c["arguments"], c["id"]) for c in got["tool_calls"]] == want["calls"]
    for c in got["tool_calls"]:
        if c["id"] in want["outputs"]:
            assert c["output"] == "\n".join(want["outputs"][c["id"]])
    assert len(got["turns"]) == want["turns"]
    assert got["tokens_in"] == want["tokens_in"]
    assert got["tokens_out"] == want["tokens_out"]
    assert got["cost_usd"] == pytest.approx(want["cost"])
    assert want["calls"], "each fixture has tool calls"


def test_every_version_the_fixtures_hold_is_read() -> None:
    versions = {json.loads(p.read_text())["schema_version"] for p in VERSIONED}
    assert versions == {f"ATIF-v1.{n}" for n in range(8)}


def test_shell_commands_are_the_calls_command_argument(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    got = transcript_json(ATIF / "claude-code.trajectory.json", capsys)
    bash = [c for c in got["tool_calls"] if c["name"] == "Bash"]
    assert bash and all(isinstance(c["arguments"]["command"], str) for c in bash)


def test_subagents_embedded_and_beside_are_followed(capsys: pytest.CaptureFixture[str]
                                                    ) -> None:
    parent = json.loads((ATIF / "subagents.json").read_text())
    child = parent["subagent_trajectories"][0]
    filed = json.loads((ATIF / "review-1.json").read_text())
    got = transcript_json(ATIF / "subagents.json", capsys)
    commands = [c["arguments"].get("command") for c in got["tool_calls"]]
    assert child["steps"][1]["tool_calls"][0]["arguments"]["command"] in commands
    assert filed["steps"][1]["tool_calls"][0]["arguments"]["command"] in commands
    steps = [parent["steps"][1], child["steps"][1], filed["steps"][1]]
    assert got["cost_usd"] == pytest.approx(sum(s["metrics"]["cost_usd"] for s in steps))
    assert got["tokens_out"] == sum(s["metrics"]["completion_tokens"] for s in steps)


def test_a_subagent_file_out_of_the_directory_or_a_link_is_not_followed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads((ATIF / "subagents.json").read_text())
    refs = doc["steps"][1]["observation"]["results"][1]["subagent_trajectory_ref"]
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "review-1.json").write_text((ATIF / "review-1.json").read_text())
    inside = tmp_path / "run"
    inside.mkdir()
    refs[0]["trajectory_path"] = "../outside/review-1.json"
    (inside / "up.json").write_text(json.dumps(doc))
    os.symlink(outside / "review-1.json", inside / "linked.json")
    refs[0]["trajectory_path"] = "linked.json"
    (inside / "link.json").write_text(json.dumps(doc))
    for name in ("up.json", "link.json"):
        got = transcript_json(inside / name, capsys)
        assert "git diff" not in [c["arguments"].get("command") for c in got["tool_calls"]]


@pytest.mark.parametrize("change,field", [
    (lambda d: d.update(schema_version="ATIF-v9.0"), "schema_version"),
    (lambda d: d["agent"].pop("name"), "agent.name"),
    (lambda d: d["steps"][1]["tool_calls"][0].pop("function_name"),
     "steps[1].tool_calls[0].function_name"),
    (lambda d: d["steps"][0].update(source="robot"), "steps[0].source"),
])
def test_a_malformed_trajectory_is_one_line_exit_2(tmp_path: Path, change: Any, field: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads((ATIF / "v1.7.json").read_text())
    change(doc)
    bad = tmp_path / "trajectory.json"
    bad.write_text(json.dumps(doc))
    assert main(["transcript", str(bad), "--json"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and str(bad) in lines[0] and field in lines[0]
