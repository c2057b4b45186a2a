"""The verdict cache: a content-addressed SQLite file that makes re-runs free and resumable.

Each finished item (a valid verdict, or ``unscored`` once the repair loop ran out) is
committed the moment it completes (WAL journal), so a run
killed at any point, even with ``kill -9``, loses only the items in flight. The file also
records submitted provider batches, so a restarted batch run polls them instead of
submitting again, and *claims*: a process about to ask for an item claims it first (a
lease it renews while it works), so processes sharing one cache file never pay twice for
the same item; a claim of a killed process simply expires. No key material is ever
written.

Example:
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "v.sqlite"
    >>> with VerdictCache(path) as cache:
    ...     cache.put("h1", CachedVerdict(verdict={"winner": "A"}, tries=1, model="m"))
    ...     cache.get("h1").verdict
    {'winner': 'A'}
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field
from typing_extensions import Self

from judgekit.engine.redact import redact, redact_data
from judgekit.engine.structured import canonical_json
from judgekit.engine.types import Usage

#: seconds a process waits for another that holds the cache file's lock.
OPEN_TIMEOUT = 30.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS verdicts (
    hash TEXT PRIMARY KEY,
    data TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS claims (
    hash TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    expires REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS capabilities (
    server TEXT PRIMARY KEY,
    data TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS batches (
    batch_id TEXT PRIMARY KEY,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    items TEXT NOT NULL,
    status TEXT NOT NULL,
    created REAL NOT NULL
);
"""


class CachedVerdict(BaseModel):
    """What the cache keeps of a finished item: a valid verdict, or the reason none came."""

    state: Literal["valid", "unscored"] = "valid"
    verdict: dict[str, Any] | None = None
    reason: str | None = None
    tries: int
    model: str
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float = 0.0
    soft_failures: list[str] = Field(default_factory=list)


def request_hash(provider: str, model: str, params: dict[str, Any], system: str, prompt: str,
                 schema: dict[str, Any], name: str, *, repeat: int = 0) -> str:
    """sha256 of everything that shapes the answer (never the item key or API key); a
    repetition (``repeat`` > 0) of the same question has its own entry.

    The material is the canonical JSON of those fields, written piece by piece in key order
    so that the parts every request shares (schema, system prompt) are encoded once.
    """
    dump = canonical_json
    parts = ['{"model":', dump(model), ',"name":', dump(name), ',"params":', dump(params),
             ',"prompt":', dump(prompt), ',"provider":', dump(provider)]
    if repeat:
        parts += [',"repeat":', dump(repeat)]
    parts += [',"schema":', _shared_json(schema), ',"system":', _shared_json(system), "}"]
    return hashlib.sha256("".join(parts).encode("utf-8")).hexdigest()


_shared: dict[int, tuple[Any, str]] = {}


def _shared_json(value: Any) -> str:
    """Canonical JSON of a value many requests hold (the same object), encoded once."""
    found = _shared.get(id(value))
    if found is not None and found[0] is value:
        return found[1]
    if len(_shared) > 1000:
        _shared.clear()
    text = canonical_json(value)
    _shared[id(value)] = (value, text)
    return text


class VerdictCache:
    """SQLite store of valid verdicts (by request hash) and of submitted batches."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False,
                                   timeout=OPEN_TIMEOUT)
        self._setup()

    def _setup(self) -> None:
        """WAL mode and the tables. Switching a new file to WAL takes a lock that SQLite's
        busy timeout does not wait for, so processes opening one new cache together retry."""
        deadline = time.monotonic() + OPEN_TIMEOUT
        while True:
            try:
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=NORMAL")
                self._db.executescript(_SCHEMA)
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.02)

    def get(self, key: str) -> CachedVerdict | None:
        row = self._db.execute("SELECT data FROM verdicts WHERE hash = ?", (key,)).fetchone()
        return CachedVerdict.model_validate_json(row[0]) if row else None

    def capability(self, server: str) -> dict[str, Any] | None:
        """What an earlier run learnt of a judge server (structured-output mode, window)."""
        row = self._db.execute("SELECT data FROM capabilities WHERE server = ?",
                               (redact(server),)).fetchone()
        if not row:
            return None
        try:
            value = json.loads(row[0])
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    def put_capability(self, server: str, value: dict[str, Any]) -> None:
        """Keep what was learnt of ``server`` (its key and the value without any secret:
        a base URL's credentials, a provider key)."""
        self._db.execute("INSERT OR REPLACE INTO capabilities VALUES (?, ?, ?)",
                         (redact(server), json.dumps(redact_data(value), sort_keys=True),
                          time.time()))

    def put(self, key: str, value: CachedVerdict) -> None:
        """Store and commit at once (autocommit mode: one durable transaction per item)."""
        self._db.execute(
            "INSERT OR REPLACE INTO verdicts (hash, data, created) VALUES (?, ?, ?)",
            (key, value.model_dump_json(), time.time()),
        )

    # -- claims (processes sharing the file) -----------------------------------------
    def claim(self, key: str, owner: str, lease: float) -> bool:
        """Take the claim on ``key`` for ``lease`` seconds; False while another owner holds
        an unexpired one. Atomic across processes (one UPSERT)."""
        now = time.time()
        cur = self._db.execute(
            "INSERT INTO claims (hash, owner, expires) VALUES (?, ?, ?) "
            "ON CONFLICT(hash) DO UPDATE SET owner = excluded.owner, expires = excluded.expires "
            "WHERE claims.expires < ? OR claims.owner = excluded.owner",
            (key, owner, now + lease, now))
        return cur.rowcount > 0

    def renew(self, owner: str, lease: float) -> None:
        """Extend every claim ``owner`` holds."""
        self._db.execute("UPDATE claims SET expires = ? WHERE owner = ?",
                         (time.time() + lease, owner))

    def release(self, key: str, owner: str) -> None:
        self._db.execute("DELETE FROM claims WHERE hash = ? AND owner = ?", (key, owner))

    def release_all(self, owner: str) -> None:
        self._db.execute("DELETE FROM claims WHERE owner = ?", (owner,))

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0])

    # -- provider batches -------------------------------------------------------------
    def add_batch(self, batch_id: str, provider: str, model: str, items: dict[str, str]) -> None:
        """Record a submitted batch; ``items`` maps the batch's custom ids to request hashes."""
        self._db.execute(
            "INSERT OR REPLACE INTO batches (batch_id, provider, model, items, status, created)"
            " VALUES (?, ?, ?, ?, 'submitted', ?)",
            (batch_id, provider, model, json.dumps(items), time.time()),
        )

    def open_batches(self, provider: str, model: str) -> list[tuple[str, dict[str, str]]]:
        """Batches submitted for this model and not yet collected, oldest first."""
        rows = self._db.execute(
            "SELECT batch_id, items FROM batches WHERE provider = ? AND model = ?"
            " AND status = 'submitted' ORDER BY created",
            (provider, model),
        ).fetchall()
        return [(bid, json.loads(items)) for bid, items in rows]

    def close_batch(self, batch_id: str, status: str = "collected") -> None:
        self._db.execute("UPDATE batches SET status = ? WHERE batch_id = ?", (status, batch_id))

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
