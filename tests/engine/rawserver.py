"""A raw HTTP server on loopback that answers every request the same hostile way: a body
trickled one byte at a time, or an HTML page. For faults the scripted API server does not
speak (it answers in one write)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable


class RawServer:
    """Serves each connection with ``answer(conn, request line)`` in a thread of its own;
    counts requests."""

    def __init__(self, answer: Callable[[socket.socket, str], None]) -> None:
        self.answer = answer
        self.requests: list[str] = []
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self._stop = threading.Event()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> RawServer:
        threading.Thread(target=self._serve, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self.sock.close()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            try:
                head = conn.recv(65536).decode("latin-1")
            except OSError:
                return
            line = head.split("\r\n", 1)[0]
            self.requests.append(line)
            try:
                self.answer(conn, line)
            except OSError:
                pass


def trickle(every: float = 0.5, limit: float = 90.0) -> Callable[[socket.socket, str], None]:
    """200, ``Content-Length: 1000000``, then one byte every ``every`` seconds (at most
    ``limit`` seconds)."""

    def answer(conn: socket.socket, line: str) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                     b"content-length: 1000000\r\n\r\n")
        ends = time.monotonic() + limit
        while time.monotonic() < ends:
            conn.sendall(b" ")
            time.sleep(every)

    return answer


def html_page(conn: socket.socket, line: str) -> None:
    """A captive portal's page, whatever was asked."""
    body = b"<!DOCTYPE html><html><body><h1>Sign in to the network</h1></body></html>"
    conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: "
                 + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n" + body)


def announced(size: int) -> Callable[[socket.socket, str], None]:
    """200 announcing ``size`` bytes, then a few of them."""

    def answer(conn: socket.socket, line: str) -> None:
        if models(conn, line):
            return
        conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: "
                     + str(size).encode() + b"\r\n\r\n" + b" " * 1024)

    return answer


def chunked(size: int) -> Callable[[socket.socket, str], None]:
    """200 with a chunked body of ``size`` bytes (no length said beforehand)."""

    def answer(conn: socket.socket, line: str) -> None:
        if models(conn, line):
            return
        conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                     b"transfer-encoding: chunked\r\n\r\n")
        block = b" " * (1 << 20)
        for _ in range(size >> 20):
            conn.sendall(b"%x\r\n" % len(block) + block + b"\r\n")
        conn.sendall(b"0\r\n\r\n")

    return answer


def models(conn: socket.socket, line: str) -> bool:
    """Answer a request for the list of models as an API does; False for any other."""
    if " /v1/models " not in line:
        return False
    body = b'{"object": "list", "data": [{"id": "m1", "object": "model"}]}'
    conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: "
                 + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n" + body)
    return True
