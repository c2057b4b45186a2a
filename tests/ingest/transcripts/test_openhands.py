"""OpenHands benchmark output (``output.jsonl``), composed here as its evaluation writes it:
one JSON line per instance (``instance_id``, ``instruction``, ``metadata`` with the LLM
config, ``history`` of serialized events, ``metrics``, ``test_result.git_patch``,
``error``). An action event holds ``id``, ``timestamp``, ``source``, ``message``,
``action``, ``args`` and, when the model called a tool, ``tool_call_metadata``; an
observation holds ``cause`` (the action's id), ``observation``, ``content`` and
``extras`` (a command's ``metadata.exit_code``). OpenHands itself needs Docker and
Python 3.12, so these records are built from the format, not by running it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.clirun import judgekit

PATCH = ("diff --git a/calc.py b/calc.py\nindex 1b2c3d4..5e6f7a8 100644\n--- a/calc.py\n"
         "+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n"
         "+    return a + b\n")
MAX_ITERATIONS = ("RuntimeError: Agent reached maximum iteration. Current iteration: 4, "
                  "max iteration: 4")
MAX_BUDGET = ("RuntimeError: Agent reached maximum budget for conversation.Current budget: "
              "1.02, max budget: 1.00")
STUCK = "AgentStuckInLoopError: Agent got stuck in a loop"


class History:
    """Events numbered and stamped in order, as the event stream serializes them."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def _add(self, event: dict[str, Any]) -> int:
        n = len(self.events)
        self.events.append({"id": n, "timestamp": f"2025-06-02T10:00:{n:02d}.500000",
                            **event})
        return n

    def action(self, action: str, args: dict[str, Any], *, source: str = "agent",
               message: str = "", tool: str | None = None) -> int:
        event: dict[str, Any] = {"source": source, "message": message, "action": action,
                                 "args": args}
        if tool:
            event["tool_call_metadata"] = {
                "function_name": tool, "tool_call_id": f"toolu_{len(self.events)}",
                "model_response": {"id": "resp", "object": "chat.completion"},
                "total_calls_in_response": 1}
        return self._add(event)

    def observation(self, observation: str, cause: int | None, content: str,
                    extras: dict[str, Any]) -> None:
        event: dict[str, Any] = {"source": "agent", "message": content[:40],
                                 "observation": observation, "content": content,
                                 "extras": extras}
        if cause is not None:
            event["cause"] = cause
        self._add(event)

    def start(self, task: str) -> None:
        self.action("system", {"content": "You are OpenHands agent.", "tools": [],
                               "openhands_version": "0.59.0", "agent_class": "CodeActAgent"},
                    message="You are OpenHands agent.")
        self.action("message", {"content": task, "file_urls": [], "image_urls": [],
                                "wait_for_response": False}, source="user", message=task)
        recall = self.action("recall", {"recall_type": "workspace_context", "query": task},
                             source="user", message="Retrieving content for: " + task[:20])
        self.observation("recall", recall, "Added workspace context",
                         {"recall_type": "workspace_context", "repo_name": ""})

    def run(self, command: str, output: str, exit_code: int, thought: str = "") -> None:
        act = self.action("run", {"command": command, "is_input": False, "thought": thought,
                                  "blocking": False, "is_static": False, "cwd": None,
                                  "hidden": False, "confirmation_state": "confirmed"},
                          message=f"Running command: {command}", tool="execute_bash")
        self.observation("run", act, output, {
            "command": command, "metadata": {
                "exit_code": exit_code, "pid": -1, "username": "root", "hostname": "h",
                "working_dir": "/workspace/calc", "py_interpreter_path": "/usr/bin/python",
                "prefix": "", "suffix": f"\n[The command completed with exit code {exit_code}.]"},
            "hidden": False})

    def edit(self, path: str, old: str, new: str, output: str) -> None:
        act = self.action("edit", {"path": path, "command": "str_replace", "file_text": None,
                                   "old_str": old, "new_str": new, "insert_line": None,
                                   "content": "", "start": 1, "end": -1,
                                   "thought": "Fix the sign.", "impl_source": "oh_aci"},
                          tool="str_replace_editor")
        self.observation("edit", act, output, {"path": path, "prev_exist": False,
                                               "old_content": old, "new_content": new,
                                               "impl_source": "oh_aci", "diff": "",
                                               "_diff_cache": None})

    def finish(self, final: str) -> None:
        self.action("finish", {"final_thought": final, "outputs": {},
                               "thought": "The fix is in."}, message=final, tool="finish")


def record(instance_id: str, history: History, *, patch: str = PATCH,
           error: str | None = None, cost: float = 0.0123) -> dict[str, Any]:
    """One line of output.jsonl, with the fields its evaluation writes."""
    return {
        "instance_id": instance_id,
        "test_result": {"git_patch": patch},
        "instruction": "Fix add in calc.py.",
        "metadata": {"agent_class": "CodeActAgent", "llm_config": {
            "model": "anthropic/claude-sonnet-4-5-20250929", "api_key": "**********",
            "base_url": None, "num_retries": 4, "temperature": 0.0},
            "max_iterations": 4, "eval_output_dir": "evaluation/evaluation_outputs/outputs",
            "start_time": "2025-06-02 10:00:00", "git_commit": "0123abc",
            "dataset": "princeton-nlp/SWE-bench_Verified", "data_split": "test"},
        "history": history.events,
        "metrics": {"accumulated_cost": cost, "max_budget_per_task": None,
                    "accumulated_token_usage": {
                        "model": "default", "prompt_tokens": 5000, "completion_tokens": 300,
                        "cache_read_tokens": 1000, "cache_write_tokens": 200,
                        "context_window": 200000, "per_turn_token": 900, "response_id": ""},
                    "costs": [], "response_latencies": [], "token_usages": [],
                    "condenser": []},
        "error": error,
        "instance": {"instance_id": instance_id, "repo": "example/calc"},
    }


def submitted(instance_id: str = "example__calc-1") -> dict[str, Any]:
    h = History()
    h.start("Fix add in calc.py.")
    h.run("cat calc.py", "def add(a, b):\n    return a - b", 0,
          thought="Let me look at the code.")
    h.edit("/workspace/calc/calc.py", "    return a - b", "    return a + b",
           "The file /workspace/calc/calc.py has been edited.")
    h.run("python -m pytest -q", "1 failed in 0.05s", 1)
    h.finish("I fixed add; the tests pass.")
    return record(instance_id, h)


def stopped_by(error: str, instance_id: str = "example__calc-2") -> dict[str, Any]:
    h = History()
    h.start("Fix add in calc.py.")
    h.run("ls", "calc.py", 0)
    h.edit("/workspace/calc/calc.py", "return a -", "return a +",
           "ERROR:\nNo replacement was performed, old_str `return a -` did not appear "
           "verbatim in /workspace/calc/calc.py.")
    h.run("python -m pytest -q", "1 failed in 0.05s", 1)
    return record(instance_id, h, patch="", error=error)


def crashed(instance_id: str = "example__calc-3") -> dict[str, Any]:
    h = History()
    h.start("Fix add in calc.py.")
    h.run("sleep 1000", "", -1)  # timed out: no exit code
    h.observation("error", None, "Parameter 'command' is expected to be one of "
                  "['view', 'create', 'str_replace', 'insert', 'undo_edit'].", {"error_id": ""})
    return record(instance_id, h, patch="", error=STUCK, cost=0.0)


def _transcript(tmp_path: Path, row: dict[str, Any]) -> dict[str, Any]:
    path = tmp_path / "output.jsonl"
    path.write_text(json.dumps(row) + "\n")
    proc = judgekit("transcript", path, "--json")
    assert proc.returncode == 0, proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def test_submitted_run(tmp_path: Path) -> None:
    data = _transcript(tmp_path, submitted())
    assert data["format"] == "openhands" and data["task_id"] == "example__calc-1"
    assert data["exit_status"] == "submitted" and data["limit"] is None
    calls = data["tool_calls"]
    assert [c["name"] for c in calls] == ["execute_bash", "str_replace_editor", "execute_bash"]
    assert [c["arguments"].get("command") for c in calls] == [
        "cat calc.py", "str_replace", "python -m pytest -q"]
    assert calls[1]["arguments"]["path"] == "/workspace/calc/calc.py"
    assert "thought" not in calls[0]["arguments"]
    assert [c["exit_code"] for c in calls] == [0, None, 1]
    assert calls[2]["output"] == "1 failed in 0.05s" and not calls[1]["error"]
    assert data["patch_files"] == ["calc.py"] and data["patch"] == PATCH
    # prompt tokens hold the cache reads; they are kept apart
    assert (data["tokens_in"], data["tokens_out"]) == (4000, 300)
    assert (data["cache_read_tokens"], data["cache_write_tokens"]) == (1000, 200)
    assert data["cost_usd"] == 0.0123
    assert data["model"] == "anthropic/claude-sonnet-4-5-20250929"
    assert data["final_message"] == "I fixed add; the tests pass."
    roles = [t["role"] for t in data["turns"]]
    # system, task, (no turn for the recall), thought + call, output, ..., the hand-in
    assert roles == ["system", "user", "assistant", "tool", "assistant", "tool", "assistant",
                     "tool", "assistant"]
    assert data["turns"][2]["text"] == "Let me look at the code."
    assert data["n_turns"] == 4 and data["wall_time_s"] == 10.0  # ids 0 to 10, 1 s apart


def test_limits_exceeded_names_the_limit(tmp_path: Path) -> None:
    for error, limit in ((MAX_ITERATIONS, "steps"), (MAX_BUDGET, "cost")):
        data = _transcript(tmp_path, stopped_by(error))
        assert data["exit_status"] == "limits_exceeded" and data["limit"] == limit, error
        assert [c["exit_code"] for c in data["tool_calls"]] == [0, None, 1]
        assert data["tool_calls"][1]["error"] is True  # the editor's "ERROR:" output
        assert data["patch"] is None and data["patch_files"] == []
        assert data["final_message"] == "Fix the sign."  # the last thing it said


def test_error_run(tmp_path: Path) -> None:
    data = _transcript(tmp_path, crashed())
    assert data["exit_status"] == "error" and data["limit"] is None
    (call,) = data["tool_calls"]
    assert call["arguments"]["command"] == "sleep 1000" and call["exit_code"] is None
    # an error observation that answers no call is a turn of its own
    assert data["turns"][-1] == {"role": "tool", "tool_calls": [], "text": (
        "Parameter 'command' is expected to be one of ['view', 'create', 'str_replace', "
        "'insert', 'undo_edit'].")}
    assert data["cost_usd"] == 0.0


def test_old_style_history_of_action_observation_pairs(tmp_path: Path) -> None:
    row = submitted()
    events = row["history"]
    row["history"] = [[events[0], {}], [events[1], {}]] + [
        [events[i], events[i + 1]] for i in range(2, len(events) - 1, 2)] + [[events[-1], {}]]
    data = _transcript(tmp_path, row)
    assert [c["exit_code"] for c in data["tool_calls"]] == [0, None, 1]
    assert data["exit_status"] == "submitted"


def test_output_jsonl_of_several_instances(tmp_path: Path) -> None:
    out = tmp_path / "sessions" / "output.jsonl"
    out.parent.mkdir()
    rows = [submitted("example__calc-1"), stopped_by(MAX_ITERATIONS, "example__calc-2"),
            crashed("example__calc-3")]
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    proc = judgekit("transcript", out, "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)  # one transcript per instance, in order
    assert [(d["task_id"], d["exit_status"]) for d in data] == [
        ("example__calc-1", "submitted"), ("example__calc-2", "limits_exceeded"),
        ("example__calc-3", "error")]
    # matched to results by the instance each line names, whatever the file is called
    run = tmp_path / "run.json"
    run.write_text(json.dumps({"results": [
        {"task": {"id": "example__calc-1"}, "arm": "oh", "agent_diff": PATCH,
         "test": {"exit_code": 1, "output": "1 failed in 0.05s"}},
        {"task": {"id": "example__calc-2"}, "arm": "oh", "agent_diff": "",
         "test": {"exit_code": 1, "output": "1 failed in 0.05s"}},
        {"task": {"id": "example__calc-9"}, "arm": "oh", "agent_diff": "",
         "test": {"exit_code": 1, "output": "1 failed in 0.05s"}}]}))
    proc = judgekit("score", run, "--transcripts", out.parent, "--json", "--no-similarity")
    assert proc.returncode == 0, proc.stderr
    scored = json.loads(proc.stdout)
    arm = scored["arms"]["oh"]["transcripts"]
    assert arm["n_with_transcript"] == 2
    assert arm["exit_statuses"] == {"submitted": 1, "limits_exceeded": 1}
    rows_out = {r["task_id"]: r for r in scored["results"]}
    assert rows_out["example__calc-1"]["tool_calls"] == 3
    assert rows_out["example__calc-2"]["tool_calls"] == 3
    assert rows_out["example__calc-9"]["tool_calls"] is None
    # its hand-in says the tests pass; its tests failed
    assert arm["n_claimed_unverified"] == 1


class SdkHistory:
    """OpenHands 1.x: the software-agent SDK's events, each tagged with its ``kind``."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def add(self, kind: str, source: str, **fields: Any) -> str:
        n = len(self.events)
        event_id = f"00000000-0000-4000-8000-{n:012d}"
        self.events.append({"id": event_id, "timestamp": f"2026-03-02T10:00:{n:02d}.250000",
                            "source": source, **fields, "kind": kind})
        return event_id

    def start(self, task: str) -> None:
        self.add("ConversationStateUpdateEvent", "environment", key="execution_status",
                 value="running")
        self.add("SystemPromptEvent", "agent",
                 system_prompt={"cache_prompt": False, "type": "text",
                                "text": "You are OpenHands agent."}, tools=[])
        self.add("MessageEvent", "user", llm_message={
            "role": "user", "content": [{"cache_prompt": False, "type": "text", "text": task}],
            "tool_calls": None}, activated_skills=[], extended_content=[])

    def call(self, tool: str, action: dict[str, Any], thought: str = "") -> tuple[str, str]:
        call_id = f"call_{len(self.events)}"
        arguments = json.dumps({k: v for k, v in action.items() if k != "kind"})
        event_id = self.add(
            "ActionEvent", "agent",
            thought=[{"cache_prompt": False, "type": "text", "text": thought}] if thought else [],
            reasoning_content=None, thinking_blocks=[], responses_reasoning_item=None,
            action=action, tool_name=tool, tool_call_id=call_id,
            tool_call={"id": call_id, "responses_item_id": None, "name": tool,
                       "arguments": arguments, "origin": "completion"},
            llm_response_id=f"resp_{len(self.events)}", security_risk="UNKNOWN",
            critic_result=None, summary=None)
        return event_id, call_id

    def answer(self, tool: str, ids: tuple[str, str], observation: dict[str, Any]) -> None:
        self.add("ObservationEvent", "environment", tool_name=tool, tool_call_id=ids[1],
                 observation=observation, action_id=ids[0])

    def terminal(self, command: str, output: str, exit_code: int, thought: str = "") -> None:
        ids = self.call("terminal", {"command": command, "is_input": False, "timeout": None,
                                     "reset": False, "kind": "TerminalAction"}, thought)
        self.answer("terminal", ids, {
            "content": [{"cache_prompt": False, "type": "text", "text": output}],
            "is_error": False, "command": command, "exit_code": exit_code, "timeout": False,
            "metadata": {"exit_code": exit_code, "pid": -1, "username": "openhands",
                         "hostname": "h", "working_dir": "/workspace/calc",
                         "py_interpreter_path": "/usr/bin/python", "prefix": "",
                         "suffix": f"\n[The command completed with exit code {exit_code}.]"},
            "full_output_save_dir": None, "kind": "TerminalObservation"})

    def edit(self, old: str, new: str, output: str, is_error: bool) -> None:
        action = {"command": "str_replace", "path": "/workspace/calc/calc.py",
                  "file_text": None, "old_str": old, "new_str": new, "insert_line": None,
                  "view_range": None, "kind": "FileEditorAction"}
        ids = self.call("file_editor", action, "Fix the sign.")
        self.answer("file_editor", ids, {
            "content": [{"cache_prompt": False, "type": "text", "text": output}],
            "is_error": is_error, "command": "str_replace", "path": "/workspace/calc/calc.py",
            "prev_exist": True, "old_content": None, "new_content": None,
            "kind": "FileEditorObservation"})

    def finish(self, message: str) -> None:
        ids = self.call("finish", {"message": message, "kind": "FinishAction"})
        self.answer("finish", ids, {
            "content": [{"cache_prompt": False, "type": "text", "text": message}],
            "is_error": False, "kind": "FinishObservation"})
        self.add("ConversationStateUpdateEvent", "environment", key="execution_status",
                 value="finished")


def sdk_record(instance_id: str, history: SdkHistory, *, patch: str = PATCH,
               error: str | None = None) -> dict[str, Any]:
    """A 1.x output.jsonl line: its benchmarks leave ``metadata`` out of it."""
    return {"instance_id": instance_id, "attempt": 1, "test_result": {"git_patch": patch},
            "instruction": "Fix add in calc.py.", "metadata": None,
            "history": history.events,
            "metrics": {"model_name": "litellm_proxy/claude-sonnet-4-5",
                        "accumulated_cost": 0.0456, "max_budget_per_task": None,
                        "accumulated_token_usage": {
                            "model": "litellm_proxy/claude-sonnet-4-5", "prompt_tokens": 7000,
                            "completion_tokens": 420, "cache_read_tokens": 2500,
                            "cache_write_tokens": 0, "reasoning_tokens": 0,
                            "context_window": 200000, "per_turn_token": 1800,
                            "response_id": ""},
                        "costs": [], "response_latencies": [], "token_usages": []},
            "error": error, "instance": {"instance_id": instance_id}, "runtime_runs": None}


def test_sdk_submitted_run(tmp_path: Path) -> None:
    h = SdkHistory()
    h.start("Fix add in calc.py.")
    h.terminal("cat calc.py", "def add(a, b):\n    return a - b", 0, "Let me look.")
    h.edit("    return a - b", "    return a + b", "The file has been edited.", False)
    h.terminal("python -m pytest -q", "1 failed in 0.05s", 1)
    h.finish("Fixed add; the tests pass.")
    data = _transcript(tmp_path, sdk_record("example__calc-1", h))
    assert data["format"] == "openhands" and data["task_id"] == "example__calc-1"
    assert data["exit_status"] == "submitted"
    calls = data["tool_calls"]
    assert [c["name"] for c in calls] == ["terminal", "file_editor", "terminal"]
    assert [c["arguments"]["command"] for c in calls] == [
        "cat calc.py", "str_replace", "python -m pytest -q"]
    assert "kind" not in calls[0]["arguments"]
    assert [c["exit_code"] for c in calls] == [0, None, 1]
    assert calls[2]["output"] == "1 failed in 0.05s" and not calls[1]["error"]
    assert data["patch_files"] == ["calc.py"]
    assert (data["tokens_in"], data["tokens_out"], data["cache_read_tokens"]) == (
        4500, 420, 2500)
    assert data["cost_usd"] == 0.0456 and data["model"] == "litellm_proxy/claude-sonnet-4-5"
    assert data["final_message"] == "Fixed add; the tests pass."
    assert [t["role"] for t in data["turns"]] == [
        "system", "user", "assistant", "tool", "assistant", "tool", "assistant", "tool",
        "assistant"]


def test_sdk_run_stopped_by_a_limit_or_an_error(tmp_path: Path) -> None:
    for code, detail, status, limit in (
            ("MaxIterationsReached", "Agent reached maximum iterations limit (3).",
             "limits_exceeded", "steps"),
            ("MaxBudgetReached", "Agent reached maximum budget limit ($1.0000); "
                                 "accumulated cost $1.0200.", "limits_exceeded", "cost"),
            ("AgentStuckError", "Agent got stuck in a loop", "error", None)):
        h = SdkHistory()
        h.start("Fix add in calc.py.")
        h.terminal("ls", "calc.py", 0)
        h.edit("return a -", "return a +", "No replacement was performed.", True)
        h.add("AgentErrorEvent", "agent", tool_name="terminal", tool_call_id="call_bad",
              error="Error validating args {} for tool 'terminal': command is required")
        h.add("ConversationStateUpdateEvent", "environment", key="execution_status",
              value="error")
        h.add("ConversationErrorEvent", "environment", code=code, detail=detail)
        data = _transcript(tmp_path, sdk_record("example__calc-2", h, patch=""))
        assert (data["exit_status"], data["limit"]) == (status, limit), code
        assert [c["error"] for c in data["tool_calls"]] == [None, True]
        # the call that never became an action is a turn of its own
        assert data["turns"][-1]["role"] == "tool"
        assert "command is required" in data["turns"][-1]["text"]
        assert data["patch_files"] == []


def test_instance_that_failed_before_any_event(tmp_path: Path) -> None:
    row = sdk_record("example__calc-3", SdkHistory(), patch="", error=(
        "Instance failed after 3 retries. Last error: RuntimeError: sandbox did not start"))
    row["metrics"] = None
    data = _transcript(tmp_path, row)
    assert data["exit_status"] == "error" and data["turns"] == [] and data["tool_calls"] == []
    assert data["tokens_in"] is None and data["cost_usd"] is None
