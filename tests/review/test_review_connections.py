"""The review server stays the labeller's: idle connections are closed and bounded, every
malformed body is a 400, a label that cannot be stored is an error the page can show, and
the browser never gets the token on its command line.

(How long the labeller waits behind 2,000 idle connections is measured by
``bench/review_idle_connections.py``; here, 300 connections check the behaviour.)"""

from __future__ import annotations

import errno
import http.client
import json
import os
import resource
import shutil
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from judgekit.review.items import load_queue
from judgekit.review.labels import LabelStore
from judgekit.review.server import ReviewServer, ReviewState
from tests.clirun import ROOT, judgekit
from tests.review.conftest import Served, free_port, start_review

DIMS = ("consistency", "completeness", "minimality")


def _serve(out: Path, **options: Any) -> Iterator[ReviewServer]:
    server = ReviewServer(ReviewState(load_queue(out, seed=0), LabelStore(out, "ana")),
                          **options)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def out(judged_out: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(judged_out, tmp_path / "out"))


def _request(server: ReviewServer | Served, method: str, path: str,
             body: bytes | None = None) -> tuple[int, dict[str, Any]]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        headers = {"Host": f"127.0.0.1:{server.port}", "X-Review-Token": server.token}
        if body is not None:
            headers["Content-Type"] = "application/json"
        conn.request(method, path, body=body, headers=headers)
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read())
    finally:
        conn.close()


def _closed_by_server(sock: socket.socket) -> bool:
    """Whether the server has closed ``sock`` (its end read; waits at most 30 s)."""
    sock.settimeout(30)
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def test_300_idle_connections_are_capped_and_the_labeller_is_still_answered(
        out: Path) -> None:
    gen = _serve(out, max_connections=16)
    server = next(gen)
    threads_before = threading.active_count()
    idle = []
    try:
        for _ in range(300):
            s = socket.create_connection(("127.0.0.1", server.port))
            idle.append(s)
        status, queue = _request(server, "GET", "/api/queue")
        assert status == 200 and queue["total"] == 10
        status, view = _request(server, "POST", "/api/label", json.dumps(
            {"i": 0, "dimension": "consistency", "choice": "left"}).encode())
        assert status == 200 and view["labels"] == {"consistency": "left"}
        assert server.open_connections() <= 16
        assert threading.active_count() <= threads_before + 16
        # the longest idle were closed to make room: all but the 16 newest at most
        assert sum(_closed_by_server(s) for s in idle[:284]) == 284
        assert server.evicted >= 284
    finally:
        for s in idle:
            s.close()
        gen.close()


def test_a_connection_idle_past_the_timeout_is_closed(out: Path) -> None:
    gen = _serve(out, idle_timeout=0.3)
    server = next(gen)
    try:
        silent = socket.create_connection(("127.0.0.1", server.port))
        partial = socket.create_connection(("127.0.0.1", server.port))
        partial.sendall(b"GET /api/queue HTTP/1.1\r\nHost: 127.")  # and nothing more
        assert _closed_by_server(silent) and _closed_by_server(partial)
        silent.close()
        partial.close()
        assert _request(server, "GET", "/api/queue")[0] == 200
    finally:
        gen.close()


MALFORMED = {
    "16,000-deep array": b"[" * 16_000,
    "16,000-deep object": b'{"a":' * 16_000,
    "deep but closed": b"[" * 16_000 + b"]" * 16_000,
    "not UTF-8": b'{"i": 0, "choice": "\xff"}',
    "cut short": b'{"i": 0, "dimension": "consis',
    "NaN": b'{"i": NaN}',
    "huge exponent": b'{"i": 1e999}',
    "a list": b"[1, 2]",
    "a string index": b'{"i": "0", "dimension": "consistency", "choice": "left"}',
    "a list dimension": b'{"i": 0, "dimension": ["consistency"], "choice": "left"}',
    "an object choice": b'{"i": 0, "dimension": "consistency", "choice": {"a": 1}}',
    "a bool index": b'{"i": true, "dimension": "consistency", "choice": "left"}',
}


def test_every_malformed_body_is_a_400_and_writes_nothing(
        out: Path, capfd: pytest.CaptureFixture[str]) -> None:
    gen = _serve(out)
    server = next(gen)
    try:
        for name, body in MALFORMED.items():
            status, answer = _request(server, "POST", "/api/label", body)
            assert status == 400 and answer["error"], name
        # a body shorter than its Content-Length, the client then done sending
        with socket.create_connection(("127.0.0.1", server.port)) as s:
            s.sendall(f"POST /api/label HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                      f"X-Review-Token: {server.token}\r\nContent-Type: application/json\r\n"
                      "Content-Length: 100\r\n\r\n{\"i\": 0".encode())
            s.shutdown(socket.SHUT_WR)
            s.settimeout(30)
            assert s.recv(4096).startswith(b"HTTP/1.1 400 ")
        assert _request(server, "GET", "/api/queue")[0] == 200  # still serving
    finally:
        gen.close()
    assert not (out / "labels" / "pairwise.jsonl").exists()
    assert "Traceback" not in capfd.readouterr().err


def test_a_label_that_cannot_be_stored_is_a_500_with_the_reason_and_not_taken(
        out: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = os.write

    def full_disk(fd: int, data: Any) -> int:
        if os.readlink(f"/proc/self/fd/{fd}").endswith("pairwise.jsonl"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, data)

    gen = _serve(out)
    server = next(gen)
    try:
        monkeypatch.setattr(os, "write", full_disk)
        status, answer = _request(server, "POST", "/api/label", json.dumps(
            {"i": 0, "dimension": "consistency", "choice": "left"}).encode())
        monkeypatch.undo()
        assert status == 500 and "not stored" in answer["error"]
        assert "No space left on device" in answer["error"]
        assert _request(server, "GET", "/api/item?i=0")[1]["labels"] == {}
    finally:
        monkeypatch.undo()
        gen.close()
    assert (out / "labels" / "pairwise.jsonl").read_bytes() == b""


def _limit_file_size(limit: int) -> Any:
    def limit_it() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return limit_it


def _post_label(s: Served, i: int, dim: str, choice: str) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=30)
    try:
        conn.request("POST", "/api/label", body=json.dumps(
            {"i": i, "dimension": dim, "choice": choice}).encode(),
            headers={"Host": f"127.0.0.1:{s.port}", "X-Review-Token": s.token,
                     "Content-Type": "application/json"})
        resp = conn.getresponse()
        return resp.status, resp.read().decode()
    finally:
        conn.close()


def test_two_labellers_at_once_one_under_a_file_size_limit_lose_no_confirmed_label(
        out: Path, servers: list[Served]) -> None:
    """The contract as a user meets it: two ``judgekit review`` servers on one output, one
    of them limited to a 2,000-byte file (``RLIMIT_FSIZE``)."""
    ana = start_review(out, free_port(), "--labeller", "ana",
                       preexec_fn=_limit_file_size(2000))
    servers.append(ana)
    bo = start_review(out, free_port(), "--labeller", "bo")
    servers.append(bo)
    confirmed: dict[str, set[tuple[int, str]]] = {"ana": set(), "bo": set()}
    errors: list[str] = []
    items = [(i, d) for i in range(10) for d in DIMS]
    for i, d in items:  # ana alone until the limit cuts a label short
        status, text = _post_label(ana, i, d, "left")
        if status != 200:
            assert status == 500 and "not stored" in text and "File too large" in text
            errors.append(text)
            break
        confirmed["ana"].add((i, d))
    assert errors and confirmed["ana"]

    def label(who: str, s: Served) -> None:
        for i, d in items:
            status, text = _post_label(s, i, d, "right")
            if status == 200:
                confirmed[who].add((i, d))
            else:
                errors.append(text)

    both = [threading.Thread(target=label, args=args) for args in (("ana", ana), ("bo", bo))]
    for t in both:
        t.start()
    for t in both:
        t.join()
    assert len(confirmed["bo"]) == len(items)
    lines = (out / "labels" / "pairwise.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]  # every line whole
    for who, s in (("ana", ana), ("bo", bo)):
        queue = _request(s, "GET", "/api/queue")[1]["items"]  # item i's task, as it serves
        assert {(queue[i]["task_id"], d) for i, d in confirmed[who]} == {
            (r["task_id"], r["dimension"]) for r in rows if r["labeller"] == who}
    got = judgekit("calibrate", out, "--json")
    assert got.returncode == 0, got.stderr
    assert "left out" not in got.stderr


def _recorder(tmp_path: Path) -> Path:
    script = tmp_path / "browser.sh"
    script.write_text("#!/bin/sh\n"
                      f"printf '%s\\n' \"$0\" \"$@\" > {tmp_path}/argv.txt\n"
                      f"cat \"${{1#file://}}\" > {tmp_path}/page.html\n")
    script.chmod(0o755)
    return script


def test_the_browser_is_opened_without_the_token_on_its_command_line(
        out: Path, tmp_path: Path) -> None:
    env = {**os.environ, "BROWSER": str(_recorder(tmp_path)), "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "judgekit", "review", str(out), "--port",
                             str(free_port())], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        token = url.split("token=", 1)[1]
        argv_file = tmp_path / "argv.txt"
        for _ in range(600):
            if (tmp_path / "page.html").exists() and argv_file.exists():
                break
            time.sleep(0.05)
        argv = argv_file.read_text().splitlines()
        assert token not in argv_file.read_text()
        launcher = Path(argv[1].removeprefix("file://"))
        assert argv[1].startswith("file://") and launcher.is_relative_to(tmp_path)
        assert stat.S_IMODE(launcher.stat().st_mode) == 0o600
        assert stat.S_IMODE(launcher.parent.stat().st_mode) == 0o700
        assert f'url={url}"' in (tmp_path / "page.html").read_text()
        port = int(url.split(":")[2].split("/")[0])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", f"/?token={token}", headers={"Host": f"127.0.0.1:{port}"})
        assert conn.getresponse().status == 200
        conn.close()
        for _ in range(600):  # the page was served: the launcher is removed
            if not launcher.parent.exists():
                break
            time.sleep(0.05)
        assert not launcher.parent.exists()
    finally:
        proc.kill()
        proc.communicate()


def test_review_of_an_output_with_nothing_to_label_says_so_and_exits_2(
        out: Path) -> None:
    (out / "pairwise.jsonl").unlink()
    summary = json.loads((out / "summary.json").read_text())
    summary.pop("pairwise", None)
    summary.pop("pairwise_run", None)
    (out / "summary.json").write_text(json.dumps(summary))
    proc = judgekit("review", out, "--no-browser", "--port", str(free_port()), timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [
        f"judgekit: error: {out}: nothing to label: no compared pair (pairwise.jsonl) and no "
        "audited result (audit.jsonl); `judgekit judge` or `judgekit audit` with --out "
        "writes them"]
