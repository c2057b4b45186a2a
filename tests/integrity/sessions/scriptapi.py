"""The loopback model server of ``tests/ingest/transcripts/agentapi.py``, scripted with one
scenario's commands and final message (a JSON file): each command is one tool call (Claude
Code's ``Bash``, Codex's ``exec_command``, mini-swe-agent's ``bash``), then the final
message.

    python scriptapi.py PORT SCENARIO.json
"""

import json
import sys
from http.server import ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "ingest" / "transcripts"))
import agentapi  # noqa: E402


def responses(body):
    """A streamed Responses API answer: one ``exec_command`` per scripted command, then
    the final message."""
    done = sum(1 for i in body.get("input", []) if isinstance(i, dict) and i.get("type") in (
        "function_call_output", "custom_tool_call_output"))
    rid = f"resp_{done}"

    def item(value, index):
        return [("response.output_item.added", {"type": "response.output_item.added",
                                                "output_index": index, "item": value}),
                ("response.output_item.done", {"type": "response.output_item.done",
                                               "output_index": index, "item": value})]

    def message(text, mid):
        return {"type": "message", "role": "assistant", "id": mid,
                "content": [{"type": "output_text", "text": text, "annotations": []}]}

    events = [("response.created", {"type": "response.created", "response": {"id": rid}})]
    if done < len(agentapi.COMMANDS):
        call = {"type": "function_call", "id": f"fc_{done}", "call_id": f"call_{done}",
                "name": "exec_command",
                "arguments": json.dumps({"cmd": agentapi.COMMANDS[done]})}
        events += item(message(f"Step {done + 1}.", f"msg_{done}"), 0) + item(call, 1)
    else:
        events += item(message(agentapi.FINAL, "msg_final"), 0)
    usage = {"input_tokens": 60 + done, "input_tokens_details": {"cached_tokens": 5},
             "output_tokens": 11, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": 71 + done}
    events.append(("response.completed", {"type": "response.completed",
                                          "response": {"id": rid, "usage": usage}}))
    return agentapi.sse(events)


if __name__ == "__main__":
    scenario = json.loads(Path(sys.argv[2]).read_text())
    agentapi.COMMANDS = scenario["commands"]
    agentapi.FINAL = scenario["final"]
    agentapi.responses = responses
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), agentapi.Handler).serve_forever()
