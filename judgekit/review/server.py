"""The review app's HTTP server: 127.0.0.1 only, a token for every data request, its own
origin only, a strict content security policy.

Routes: ``GET /?token=T`` the page; ``GET /static/NAME`` its script and style (no data);
``GET /api/queue``, ``GET /api/item?i=N`` and ``POST /api/label`` with the token in the
``X-Review-Token`` header. A request whose ``Host`` is not the app's address, whose
``Origin`` is another site's, or that lacks the token is answered 403 and changes nothing.
A body that is not a JSON object of at most :data:`MAX_BODY` bytes (malformed, nested too
deep, cut short) is answered 400; a label that could not be stored whole, 500 with the
reason, and nothing of it is in the file.

Connections are bounded: each is closed after :data:`IDLE_TIMEOUT_S` seconds without a
byte, and at most ``max_connections`` are open at once (a thread each). A connection that
would go over the cap closes the one idle longest (a connection is idle while it waits for
or reads a request's first line and headers, before anything is checked): idle
connections, however many are opened, never keep the labeller's own requests waiting.
"""

from __future__ import annotations

import errno
import hmac
import json
import resource
import secrets
import select
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from judgekit.errors import InputError, JudgekitError
from judgekit.jsonread import loads
from judgekit.review.items import AuditItem, Item, PairItem, Queue
from judgekit.pairwise.gold import GoldLabel
from judgekit.review.labels import AuditLabel, LabelStore

HOST = "127.0.0.1"
TOKEN_HEADER = "X-Review-Token"
#: the largest body read (a label's is under 1 KiB; a larger one is answered 413 unread)
MAX_BODY = 1 << 20
#: seconds a connection may stay without sending a byte before it is closed
IDLE_TIMEOUT_S = 15.0
#: the most connections open at once (each holds a thread and a file descriptor)
MAX_CONNECTIONS = 64
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
       "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
STATIC = {"app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8"}


STATIC_DIR = Path(__file__).with_name("static")


def _static(name: str) -> bytes:
    return (STATIC_DIR / name).read_bytes()


class ReviewState:
    """The queue, the labels and how one item looks to the labeller."""

    def __init__(self, queue: Queue, store: LabelStore) -> None:
        self.queue = queue
        self.store = store

    def pair_label(self, item: PairItem, dimension: str) -> GoldLabel | None:
        """The labeller's label of ``item`` on ``dimension``, unless it is stale."""
        got = self.store.pairwise.get(item.key(dimension))
        return got if got is not None and item.fresh(got.shown_sha256) else None

    def audit_label(self, item: AuditItem) -> AuditLabel | None:
        """The labeller's label of ``item``, unless it is stale."""
        got = self.store.audit.get(item.key())
        return got if got is not None and item.fresh(got.shown_sha256) else None

    def labelled(self, item: Item) -> bool:
        if isinstance(item, PairItem):
            return all(self.pair_label(item, d) is not None for d in item.blind["dimensions"])
        return self.audit_label(item) is not None

    def stale_labels(self) -> int:
        """The labeller's labels given to an item whose content has changed since (it was
        re-judged with other patches, say): not counted, the item is to be labelled again."""
        n = 0
        for item in self.queue.items:
            if isinstance(item, PairItem):
                for d in item.blind["dimensions"]:
                    got = self.store.pairwise.get(item.key(d))
                    n += got is not None and not item.fresh(got.shown_sha256)
            else:
                a = self.store.audit.get(item.key())
                n += a is not None and not item.fresh(a.shown_sha256)
        return n

    def first_unlabelled(self) -> int | None:
        return next((i for i, it in enumerate(self.queue.items) if not self.labelled(it)),
                    None)

    def queue_view(self) -> dict[str, Any]:
        items = [self._entry(i, it) for i, it in enumerate(self.queue.items)]
        return {"labeller": self.store.labeller, "total": len(items),
                "first_unlabelled": self.first_unlabelled(),
                "stale_labels": self.stale_labels(), "items": items}

    def _entry(self, i: int, item: Item) -> dict[str, Any]:
        """One item of the queue: what the filters match. What depends on the arms or the
        verdicts (``facets``) is sent for a labelled item only, so a filter on it can never
        tell which unlabelled items it would match."""
        done = self.labelled(item)
        out: dict[str, Any] = {"i": i, "kind": item.kind, "task_id": item.task_id,
                               "status": item.statuses(), "labelled": done}
        if done:
            out["facets"] = item.facets()
        return out

    def item_view(self, i: int) -> dict[str, Any]:
        item = self.queue.items[i]
        done = self.labelled(item)
        out: dict[str, Any] = {"i": i, "total": len(self.queue.items), "kind": item.kind,
                               "view": item.blind, "labelled": done}
        if isinstance(item, PairItem):
            labels = {d: self.pair_label(item, d) for d in item.blind["dimensions"]}
            out["labels"] = {d: item.shown_side(g.label) for d, g in labels.items() if g}
        else:
            got = self.audit_label(item)
            out["label"] = got.label if got else None
            out["category"] = got.category if got else None
            out["categories"] = self.queue.categories
        if done:  # only now: the arms' names and the judge's verdicts
            out["reveal"] = item.reveal()
        return out

    def label(self, body: dict[str, Any]) -> dict[str, Any]:
        i = body.get("i")
        if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(self.queue.items):
            raise ValueError("i: no such item")
        item = self.queue.items[i]
        choice = body.get("choice")
        if isinstance(item, PairItem):
            dim = body.get("dimension")
            if not isinstance(dim, str) or dim not in item.blind["dimensions"]:
                raise ValueError("dimension: not one of the item's dimensions")
            if choice not in ("left", "right", "draw"):
                raise ValueError("choice: not left, right or draw")
            r = item.record
            self.store.add_pairwise(r.task_id, r.arm_a, r.arm_b, dim,
                                    item.stored_label(choice), shown_sha256=item.shown_sha256,
                                    attempt_a=r.attempt_a, attempt_b=r.attempt_b)
        else:
            assert isinstance(item, AuditItem)
            if choice not in (0, 1) or isinstance(choice, bool):
                raise ValueError("choice: not 0 or 1")
            category = body.get("category")
            if category is not None and (choice != 1 or category not in self.queue.categories):
                raise ValueError("category: not one of the rubric's categories of a label 1")
            self.store.add_audit(item.key(), choice, category=category,
                                 shown_sha256=item.shown_sha256)
        return self.item_view(i)


def connection_cap(wanted: int = MAX_CONNECTIONS) -> int:
    """``wanted``, less where the process may open too few files for it (a descriptor per
    connection, a margin kept for the label files and the rest)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(2, min(wanted, soft - 32))


class ReviewServer(ThreadingHTTPServer):
    """Serves one :class:`ReviewState` on 127.0.0.1:``port`` (0: any free port), with at
    most ``max_connections`` connections (default :func:`connection_cap`) each closed after
    ``idle_timeout`` seconds without a byte."""

    daemon_threads = True
    block_on_close = False
    request_queue_size = 1024  # a burst of connections waits in the backlog, not dropped

    def __init__(self, state: ReviewState, port: int = 0, *,
                 idle_timeout: float = IDLE_TIMEOUT_S,
                 max_connections: int | None = None) -> None:
        self.state = state
        self.token = secrets.token_urlsafe(24)
        self.write_lock = threading.Lock()
        self.idle_timeout = idle_timeout
        self.max_connections = max_connections or connection_cap()
        #: set once the page has been served with the token
        self.page_served = threading.Event()
        #: each open connection: since when it is idle (monotonic), None while busy
        self._conns: dict[socket.socket, float | None] = {}
        self._conns_lock = threading.RLock()
        #: connections closed to make room for newer ones, and refused (none idle)
        self.evicted = 0
        self.refused = 0
        super().__init__((HOST, port), _Handler)

    # -- the connection cap ------------------------------------------------------------
    def open_connections(self) -> int:
        with self._conns_lock:
            return len(self._conns)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away mid-answer is no error of the app's: nothing printed."""
        if isinstance(sys.exc_info()[1], OSError):
            return
        super().handle_error(request, client_address)

    def get_request(self) -> tuple[socket.socket, Any]:
        try:
            return super().get_request()
        except OSError as exc:
            if exc.errno not in (errno.EMFILE, errno.ENFILE):  # make room, try once more
                raise
            with self._conns_lock:
                self._evict_locked()
            return super().get_request()

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._conns_lock:
            while len(self._conns) >= self.max_connections and self._evict_locked():
                pass
            if len(self._conns) >= self.max_connections:
                self.refused += 1
                self.shutdown_request(request)
                return
            self._conns[request] = time.monotonic()
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._conns_lock:
            self._conns.pop(request, None)
        super().shutdown_request(request)

    def mark(self, conn: socket.socket, idle: bool) -> None:
        """Note that ``conn`` waits for a request (idle) or is being answered (busy)."""
        with self._conns_lock:
            if conn in self._conns:
                self._conns[conn] = time.monotonic() if idle else None

    def _evict_locked(self) -> bool:
        """Close the connection idle longest that has no bytes waiting; False when none
        is idle."""
        idle = sorted((since, id(c), c) for c, since in self._conns.items()
                      if since is not None)
        for _, _, conn in idle:
            if _has_bytes_waiting(conn):
                continue  # a request has arrived: about to be busy
            del self._conns[conn]
            try:
                conn.shutdown(socket.SHUT_RDWR)  # its thread reads the end and finishes
            except OSError:
                pass
            self.evicted += 1
            return True
        return False

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/?token={self.token}"

    def own_hosts(self) -> set[str]:
        return {f"{HOST}:{self.port}", f"localhost:{self.port}"}


def _has_bytes_waiting(conn: socket.socket) -> bool:
    """Whether ``conn`` has bytes (or its end) to read, asked without waiting (a read on a
    socket with a timeout would wait for it)."""
    try:
        poll = select.poll()
        poll.register(conn.fileno(), select.POLLIN)
        return bool(poll.poll(0))
    except (OSError, ValueError):
        return False


class _Handler(BaseHTTPRequestHandler):
    server: ReviewServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass  # requests carry the token in their URL: never logged

    # -- the connection's state --------------------------------------------------------
    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.idle_timeout)  # each read: at most this long

    def handle_one_request(self) -> None:
        self.server.mark(self.connection, idle=True)
        super().handle_one_request()

    def parse_request(self) -> bool:
        ok = super().parse_request()
        self.server.mark(self.connection, idle=False)
        return ok

    # -- responses ---------------------------------------------------------------------
    def _send(self, code: int, body: bytes, ctype: str) -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, code: int, obj: Any) -> None:
        self._send(code, json.dumps(obj).encode(), "application/json; charset=utf-8")

    def _refuse(self, code: int, why: str) -> None:
        self._json(code, {"error": why})

    # -- checks ------------------------------------------------------------------------
    def _own_request(self) -> bool:
        """The Host is the app's and the Origin, when sent, is the app's own."""
        if self.headers.get("Host", "") not in self.server.own_hosts():
            return False
        origin = self.headers.get("Origin")
        if origin is not None and origin.removeprefix("http://") not in \
                self.server.own_hosts():
            return False
        return self.headers.get("Sec-Fetch-Site", "same-origin") in ("same-origin", "none")

    def _token_ok(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(),
                                                         self.server.token.encode())

    # -- routes ------------------------------------------------------------------------
    def do_GET(self) -> None:  # noqa: N802
        if not self._own_request():
            return self._refuse(403, "foreign host or origin")
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        if url.path == "/":
            if not self._token_ok(next(iter(query.get("token") or []), None)):
                return self._refuse(403, "token required")
            self.server.page_served.set()
            return self._send(200, _static("index.html"), "text/html; charset=utf-8")
        if url.path.startswith("/static/") and url.path[8:] in STATIC:
            name = url.path[8:]
            return self._send(200, _static(name), STATIC[name])
        if not url.path.startswith("/api/"):
            return self._refuse(404, "not found")
        if not self._token_ok(self.headers.get(TOKEN_HEADER)):
            return self._refuse(403, "token required")
        state = self.server.state
        if url.path == "/api/queue":
            return self._json(200, state.queue_view())
        if url.path == "/api/item":
            try:
                i = int((query.get("i") or [""])[0])
            except ValueError:
                return self._refuse(400, "i: not a number")
            if not 0 <= i < len(state.queue.items):
                return self._refuse(404, "no such item")
            return self._json(200, state.item_view(i))
        return self._refuse(404, "not found")

    def do_POST(self) -> None:  # noqa: N802
        keep_alive = not self.close_connection
        self.close_connection = True  # until its body is read: it would be taken as a request
        if not self._own_request():
            return self._refuse(403, "foreign host or origin")
        if not self._token_ok(self.headers.get(TOKEN_HEADER)):
            return self._refuse(403, "token required")
        if urlsplit(self.path).path != "/api/label":
            return self._refuse(404, "not found")
        if self.headers.get_content_type() != "application/json":
            return self._refuse(415, "expected application/json")
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            return self._refuse(400, "bad Content-Length")
        if not 0 < length <= MAX_BODY:
            return self._refuse(413 if length > MAX_BODY else 400, "body size")
        data = self.rfile.read(length)
        if len(data) != length:
            return self._refuse(400, "body cut short")
        self.close_connection = not keep_alive
        try:  # judgekit's JSON guard: too deep, malformed, not UTF-8 are one error each
            body = loads(data, "request body")
        except InputError as exc:
            return self._refuse(400, f"malformed JSON ({exc.reason})")
        if not isinstance(body, dict):
            return self._refuse(400, "expected a JSON object")
        try:
            with self.server.write_lock:
                view = self.server.state.label(body)
        except (ValueError, TypeError) as exc:
            return self._refuse(400, str(exc))
        except JudgekitError as exc:  # the label could not be stored: nothing of it was
            return self._refuse(500, str(exc))
        return self._json(200, view)
