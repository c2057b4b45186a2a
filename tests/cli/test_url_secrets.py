"""Secrets stay out of what judgekit writes and prints: the credentials of a ``--base-url``
(user-info, ``?api-key=...``) and a provider key a server echoes inside its verdict.

The URL's secrets still reach the server: its query on every request (probes included),
its user-info as a ``Basic`` ``Authorization`` header.
"""

from __future__ import annotations

import base64
import json
import sqlite3
from pathlib import Path
from typing import Any

from judgekit.testing import FakeAPIServer, Reply, prompt_of
from judgekit.testing.dialects import Dialect
from tests.audit.helpers import agent_verdict, defect_verdict
from tests.cli.helpers import judge_reply, run_file
from tests.clirun import judgekit
from tests.pairwise.helpers import verdict

PASSWORD, QUERY_KEY = "secret123", "secret456"


def _bytes_under(root: Path) -> list[tuple[Path, bytes]]:
    return [(p, p.read_bytes()) for p in sorted(root.rglob("*")) if p.is_file()]


def _holders(secret: str, *roots: Path, texts: tuple[str, ...] = ()) -> list[str]:
    """Every file under ``roots`` and every text holding ``secret``."""
    found = [str(p) for root in roots for p, data in _bytes_under(root)
             if secret.encode() in data]
    return found + [f"text {i}" for i, t in enumerate(texts) if secret in t]


def test_credentials_in_the_base_url_reach_the_server_and_nothing_else(tmp_path: Path) -> None:
    with FakeAPIServer(judge_reply, dialect=Dialect.llama_server()) as server:
        url = (f"http://user:{PASSWORD}@127.0.0.1:{server.port}/v1?api-key={QUERY_KEY}")
        out, cache = tmp_path / "out", tmp_path / "cache"
        proc = judgekit("judge", str(run_file(tmp_path)), "--out", str(out),
                        "--judge", "openai:local-model", "--base-url", url,
                        env={"JUDGEKIT_CACHE": str(cache / "v.sqlite")})
        assert proc.returncode == 0, proc.stderr
        summary = json.loads((out / "summary.json").read_text())
        assert summary["pairwise_run"]["n_pairs"] > 0
        assert summary["judge"]["base_url"] == (
            f"http://[redacted]@127.0.0.1:{server.port}/v1?api-key=[redacted]")
        for secret in (PASSWORD, QUERY_KEY):
            assert _holders(secret, out, cache, texts=(proc.stdout, proc.stderr)) == []
        with sqlite3.connect(cache / "v.sqlite") as db:
            servers = [row[0] for row in db.execute("SELECT server FROM capabilities")]
        assert servers == [f"openai|{summary['judge']['base_url']}|local-model"]
        basic = "Basic " + base64.b64encode(f"user:{PASSWORD}".encode()).decode()
        calls = [r for r in server.requests if r.api == "openai"]
        assert calls and all(r.query == f"api-key={QUERY_KEY}" for r in calls)
        assert all(r.headers.get("authorization") == basic for r in calls)
        props = [r for r in server.probes if r.path == "/props"]
        assert props and all(r.query == f"api-key={QUERY_KEY}" for r in props)
        assert all(r.headers.get("authorization") == basic for r in props)


def test_a_base_url_that_is_not_one_is_refused_without_its_secret(tmp_path: Path) -> None:
    proc = judgekit("judge", str(run_file(tmp_path)), "--out", str(tmp_path / "out"),
                    "--judge", "openai:local-model",
                    "--base-url", f"ftp://user:{PASSWORD}@host/v1?token={QUERY_KEY}")
    assert proc.returncode == 2
    assert "--base-url" in proc.stderr and "Traceback" not in proc.stderr
    assert PASSWORD not in proc.stderr + proc.stdout
    assert QUERY_KEY not in proc.stderr + proc.stdout


ECHOED_KEY = "echoed-provider-key-7f3a9c"


def _received_key(headers: dict[str, str]) -> str:
    """The API key a request carried (``x-api-key``, or ``Authorization: Bearer``)."""
    return headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ")


def _echo(server: FakeAPIServer):
    """A judge that writes the key it received into every reasoning it gives."""
    def respond(api: str, body: dict[str, Any]) -> Reply:
        key = _received_key(server.requests[-1].headers)
        text = prompt_of(body)
        if "## Solution A" in text and "## Solution B" in text:
            v = verdict("A")
            return Reply.ok({d: {**x, "reasoning": f"the key {key} was used"}
                             for d, x in v.items()})
        base = defect_verdict() if "calc-002" in text else agent_verdict()
        return Reply.ok({**base, "causation_reasoning": f"seen {key}",
                         "existence_reasoning": f"seen {key}"})
    return respond


def test_a_key_the_server_echoes_is_stored_nowhere(tmp_path: Path) -> None:
    server = FakeAPIServer()
    server.responder = _echo(server)
    with server:
        out = tmp_path / "out"
        env = {**server.env(), "ANTHROPIC_API_KEY": ECHOED_KEY,
               "JUDGEKIT_CACHE": str(tmp_path / "cache" / "v.sqlite")}
        proc = judgekit("judge", str(run_file(tmp_path)), "--out", str(out),
                        "--judge", "anthropic:claude-haiku-4-5", env=env)
        assert proc.returncode == 0, proc.stderr
        assert server.requests and all(_received_key(r.headers) == ECHOED_KEY
                                       for r in server.requests if r.api == "anthropic")
        records = (out / "pairwise.jsonl").read_text()
        assert "[redacted]" in records  # the reasoning is kept, the key hidden
        assert _holders(ECHOED_KEY, out, tmp_path / "cache",
                        texts=(proc.stdout, proc.stderr)) == []
        again = judgekit("report", str(out))
        assert ECHOED_KEY not in again.stdout + again.stderr


def test_a_url_with_credentials_in_a_jury_label_is_redacted(tmp_path: Path) -> None:
    with FakeAPIServer(judge_reply) as one, FakeAPIServer(judge_reply) as two:
        urls = [f"http://user:{PASSWORD}@127.0.0.1:{s.port}/v1?key={QUERY_KEY}"
                for s in (one, two)]
        out = tmp_path / "out"
        proc = judgekit("judge", str(run_file(tmp_path)), "--out", str(out),
                        *[a for u in urls for a in ("--judge", f"openai:local-model@{u}")],
                        env={"JUDGEKIT_CACHE": str(tmp_path / "cache" / "v.sqlite")})
        assert proc.returncode == 0, proc.stderr
        for secret in (PASSWORD, QUERY_KEY):
            assert _holders(secret, out, tmp_path / "cache",
                            texts=(proc.stdout, proc.stderr)) == []
        assert one.count("openai") and two.count("openai")


