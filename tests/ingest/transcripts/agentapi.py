"""A loopback model server that speaks just enough of the Anthropic Messages API and the
OpenAI Responses API (both streamed) and of Chat Completions to drive Claude Code, Codex CLI
and mini-swe-agent through a short scripted session: a command that succeeds, (for Codex)
an ``apply_patch``, a command that exits 1, then a final message that claims the tests pass.
A Chat Completions request with no tools (aider's) gets one search/replace edit.

Run as ``python agentapi.py PORT``; the tests start it on a free port.
"""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COMMANDS = ["printf 'def test_a():\\n    assert 1\\n' > test_a.py && ls",
            "python3 -c 'import sys; print(\"1 failed\"); sys.exit(1)'"]
PATCH = "*** Begin Patch\n*** Add File: hello.py\n+print('hi')\n*** End Patch\n"
FINAL = "All tests pass now (2 passed)."


def sse(events):
    return b"".join(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
                    for name, data in events)


def _block(index, start, delta):
    return [("content_block_start", {"type": "content_block_start", "index": index,
                                     "content_block": start}),
            ("content_block_delta", {"type": "content_block_delta", "index": index,
                                     "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": index})]


def _text_block(index, text):
    return _block(index, {"type": "text", "text": ""}, {"type": "text_delta", "text": text})


def anthropic(body):
    """A streamed Messages API answer: a Bash ``tool_use`` per scripted command, then text."""
    done = sum(1 for m in body.get("messages", []) if isinstance(m.get("content"), list)
               for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result")
    tools = bool(body.get("tools"))
    usage = {"input_tokens": 50 + done, "output_tokens": 0, "cache_read_input_tokens": 7,
             "cache_creation_input_tokens": 0}
    message = {"id": f"msg_{done}_{tools}", "type": "message", "role": "assistant",
               "content": [], "model": body.get("model"), "stop_reason": None,
               "stop_sequence": None, "usage": usage}
    events = [("message_start", {"type": "message_start", "message": message})]
    if tools and done < len(COMMANDS):
        call = {"command": COMMANDS[done], "description": "run"}
        events += _text_block(0, f"Step {done + 1}.")
        events += _block(1, {"type": "tool_use", "id": f"toolu_{done}", "name": "Bash",
                             "input": {}},
                         {"type": "input_json_delta", "partial_json": json.dumps(call)})
        stop, out = "tool_use", 12
    else:
        events += _text_block(0, FINAL if tools else "ok")
        stop, out = "end_turn", 9
    events += [("message_delta", {"type": "message_delta",
                                  "delta": {"stop_reason": stop, "stop_sequence": None},
                                  "usage": {"output_tokens": out}}),
               ("message_stop", {"type": "message_stop"})]
    return sse(events)


AIDER_EDIT = ("I'll fix the sign.\n\ncalc.py\n```python\n<<<<<<< SEARCH\n    return a - b\n"
              "=======\n    return a + b\n>>>>>>> REPLACE\n```\n")


def aider_chat(body):
    """Chat Completions with no tools (not streamed), as aider uses it: a search/replace
    edit of ``calc.py`` in the reply's text, or the commit message it asks for after."""
    system = " ".join(str(m.get("content")) for m in body.get("messages", [])
                      if m.get("role") == "system")
    text = "fix add" if "commit message" in system.lower() else AIDER_EDIT
    return json.dumps({
        "id": "chat_aider", "object": "chat.completion", "created": 1,
        "model": body.get("model"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1200, "completion_tokens": 40,
                  "total_tokens": 1240}}).encode()


def chat(body):
    """Chat Completions (not streamed) with a ``bash`` tool call, as mini-swe-agent uses it."""
    done = sum(1 for m in body.get("messages", []) if m.get("role") == "tool")
    steps = [*COMMANDS, "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"]
    text = FINAL if done == len(steps) - 1 else f"Step {done + 1}."
    command = steps[min(done, len(steps) - 1)]
    message = {"role": "assistant", "content": text, "tool_calls": [
        {"id": f"call_{done}", "type": "function",
         "function": {"name": "bash", "arguments": json.dumps({"command": command})}}]}
    return json.dumps({
        "id": f"chat_{done}", "object": "chat.completion", "created": 1,
        "model": body.get("model"),
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 100 + done, "completion_tokens": 10,
                  "total_tokens": 110 + done}}).encode()


def responses(body):
    """A streamed Responses API answer: ``exec_command``, ``apply_patch``, then text."""
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

    steps = [("exec", COMMANDS[0]), ("patch", PATCH), ("exec", COMMANDS[1])]
    events = [("response.created", {"type": "response.created", "response": {"id": rid}})]
    if done < len(steps):
        kind, what = steps[done]
        if kind == "exec":
            call = {"type": "function_call", "id": f"fc_{done}", "call_id": f"call_{done}",
                    "name": "exec_command", "arguments": json.dumps({"cmd": what})}
        else:
            call = {"type": "custom_tool_call", "id": f"ctc_{done}",
                    "call_id": f"call_{done}", "name": "apply_patch", "input": what}
        events += item(message(f"Step {done + 1}.", f"msg_{done}"), 0) + item(call, 1)
    else:
        events += item(message(FINAL, "msg_final"), 0)
    usage = {"input_tokens": 60 + done, "input_tokens_details": {"cached_tokens": 5},
             "output_tokens": 11, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": 71 + done}
    events.append(("response.completed", {"type": "response.completed",
                                          "response": {"id": rid, "usage": usage}}))
    return sse(events)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        sys.stderr.write(fmt % args + "\n")

    def _send(self, status, body, ctype="application/json"):
        self.send_response(status)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        path = self.path.split("?")[0]
        if path.endswith("/count_tokens"):
            self._send(200, json.dumps({"input_tokens": 10}).encode())
        elif path.endswith("/messages") and body.get("stream"):
            self._send(200, anthropic(body), "text/event-stream")
        elif path.endswith("/messages"):
            self._send(200, json.dumps({
                "id": "m", "type": "message", "role": "assistant", "model": body.get("model"),
                "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
                "usage": {"input_tokens": 1, "output_tokens": 1}}).encode())
        elif path.endswith("/chat/completions") and not body.get("tools"):
            self._send(200, aider_chat(body))
        elif path.endswith("/chat/completions"):
            self._send(200, chat(body))
        elif path.endswith("/responses"):
            self._send(200, responses(body), "text/event-stream")
        else:
            self._send(404, b"")

    def do_GET(self):
        self._send(200, json.dumps({"data": [], "models": []}).encode())


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
