"""A loopback model server that speaks just enough of the Anthropic Messages API and the
OpenAI Responses API (both streamed) to drive Claude Code and Codex CLI through a short
scripted session: a command that succeeds, (for Codex) an ``apply_patch``, a command that
exits 1, then a final message that claims the tests pass.

Run as ``python agentapi.py PORT``; the tests start it on a free port.
"""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COMMANDS = ["printf 'def test_a():\\n    assert 1\\n' > test_a.py && ls", "python3 -c 'import sys; print(\"1 failed\"); sys.exit(1)'"]
FINAL = "All tests pass now (2 passed)."

def sse(events):
    return b"".join(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in events)

def anthropic(body):
    msgs = body.get("messages", [])
    done = sum(1 for m in msgs if isinstance(m.get("content"), list) for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result")
    has_tools = bool(body.get("tools"))
    usage = {"input_tokens": 50 + done, "output_tokens": 0, "cache_read_input_tokens": 7, "cache_creation_input_tokens": 0}
    ev = [("message_start", {"type": "message_start", "message": {"id": f"msg_{done}_{has_tools}", "type": "message", "role": "assistant", "content": [], "model": body.get("model"), "stop_reason": None, "stop_sequence": None, "usage": usage}})]
    if has_tools and done < len(COMMANDS):
        ev += [("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
               ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": f"Step {done + 1}."}}),
               ("content_block_stop", {"type": "content_block_stop", "index": 0}),
               ("content_block_start", {"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": f"toolu_{done}", "name": "Bash", "input": {}}}),
               ("content_block_delta", {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": json.dumps({"command": COMMANDS[done], "description": "run"})}}),
               ("content_block_stop", {"type": "content_block_stop", "index": 1}),
               ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None}, "usage": {"output_tokens": 12}})]
    else:
        text = FINAL if has_tools else "ok"
        ev += [("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
               ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
               ("content_block_stop", {"type": "content_block_stop", "index": 0}),
               ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 9}})]
    ev.append(("message_stop", {"type": "message_stop"}))
    return sse(ev)

class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, fmt, *a): sys.stderr.write(fmt % a + "\n")
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        path = self.path.split("?")[0]
        if path.endswith("/count_tokens"):
            out, ctype = json.dumps({"input_tokens": 10}).encode(), "application/json"
        elif path.endswith("/messages"):
            if body.get("stream"):
                out, ctype = anthropic(body), "text/event-stream"
            else:
                out, ctype = json.dumps({"id": "m", "type": "message", "role": "assistant", "model": body.get("model"), "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}}).encode(), "application/json"
        elif path.endswith("/chat/completions"):
            out, ctype = chat(body), "application/json"
        elif path.endswith("/responses"):
            out, ctype = responses(body), "text/event-stream"
        else:
            self.send_response(404); self.send_header("content-length", "0"); self.end_headers(); return
        self.send_response(200); self.send_header("content-type", ctype); self.send_header("content-length", str(len(out))); self.end_headers(); self.wfile.write(out)
    def do_GET(self):
        out = json.dumps({"data": [], "models": []}).encode()
        self.send_response(200); self.send_header("content-type", "application/json"); self.send_header("content-length", str(len(out))); self.end_headers(); self.wfile.write(out)

def chat(body):
    """Chat Completions (not streamed) with a ``bash`` tool call, as mini-swe-agent uses it."""
    done = sum(1 for m in body.get("messages", []) if m.get("role") == "tool")
    steps = [*COMMANDS, "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"]
    text = FINAL if done == len(steps) - 1 else f"Step {done + 1}."
    message = {"role": "assistant", "content": text, "tool_calls": [
        {"id": f"call_{done}", "type": "function",
         "function": {"name": "bash", "arguments": json.dumps({"command": steps[min(done, len(steps) - 1)]})}}]}
    return json.dumps({"id": f"chat_{done}", "object": "chat.completion", "created": 1, "model": body.get("model"),
                       "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
                       "usage": {"prompt_tokens": 100 + done, "completion_tokens": 10, "total_tokens": 110 + done}}).encode()


def responses(body):
    items = body.get("input", [])
    done = sum(1 for i in items if isinstance(i, dict) and i.get("type") in ("function_call_output", "custom_tool_call_output"))
    rid = f"resp_{done}"
    def item_events(item, idx):
        return [("response.output_item.added", {"type": "response.output_item.added", "output_index": idx, "item": item}),
                ("response.output_item.done", {"type": "response.output_item.done", "output_index": idx, "item": item})]
    ev = [("response.created", {"type": "response.created", "response": {"id": rid}})]
    steps = [("exec", COMMANDS[0]), ("patch", "*** Begin Patch\n*** Add File: hello.py\n+print('hi')\n*** End Patch\n"), ("exec", COMMANDS[1])]
    if done < len(steps):
        kind, what = steps[done]
        msg = {"type": "message", "role": "assistant", "id": f"msg_{done}", "content": [{"type": "output_text", "text": f"Step {done + 1}.", "annotations": []}]}
        if kind == "exec":
            call = {"type": "function_call", "id": f"fc_{done}", "call_id": f"call_{done}", "name": "exec_command", "arguments": json.dumps({"cmd": what})}
        else:
            call = {"type": "custom_tool_call", "id": f"ctc_{done}", "call_id": f"call_{done}", "name": "apply_patch", "input": what}
        ev += item_events(msg, 0) + item_events(call, 1)
    else:
        msg = {"type": "message", "role": "assistant", "id": "msg_final", "content": [{"type": "output_text", "text": FINAL, "annotations": []}]}
        ev += item_events(msg, 0)
    ev.append(("response.completed", {"type": "response.completed", "response": {"id": rid, "usage": {"input_tokens": 60 + done, "input_tokens_details": {"cached_tokens": 5}, "output_tokens": 11, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 71 + done}}}))
    return sse(ev)

if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
