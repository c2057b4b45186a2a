"""A wrong ``--base-url`` costs seconds: before anything is loaded or written, each judge's
server is asked for the API's list of models; a refused connection, an unknown host, a
wrong path or a server that is not the API ends the command with one line naming the URL,
exit 2, and no output directory."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from judgekit.testing import FakeAPIServer
from tests.clirun import ROOT, judgekit
from tests.engine.rawserver import RawServer, html_page


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def _server(kind: str) -> Iterator[tuple[str, str]]:
    """A base URL of the kind named and the words the one line must hold."""
    if kind == "refused":
        yield f"http://127.0.0.1:{_closed_port()}/v1", "connection refused"
    elif kind == "unknown-host":
        yield "http://no-such-host.invalid/v1", "unknown host"
    elif kind == "wrong-path":
        with FakeAPIServer() as server:
            yield f"{server.url}/wrong/v1", "not found (HTTP 404"
    else:
        with RawServer(html_page) as raw:
            yield f"{raw.url}/v1", "HTML page"


KINDS = ["refused", "unknown-host", "wrong-path", "html"]
EXAMPLE = ROOT / "examples" / "bobbin"


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("command", ["judge", "audit"])
def test_a_wrong_server_ends_at_once_in_one_line(tmp_path: Path, kind: str,
                                                 command: str) -> None:
    out = tmp_path / "out"
    with _server(kind) as (url, words):
        extra = ["--no-audit"] if command == "judge" else ["--rubric", "commit-revert"]
        proc = judgekit(command, EXAMPLE, "--judge", "openai:m1", "--base-url", url,
                        *extra, "--out", out, cwd=tmp_path,
                        env={"JUDGEKIT_CACHE": str(tmp_path / "c.sqlite")})
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "judge openai:m1" in lines[0] and url in lines[0] and words in lines[0]
    assert not out.exists()


@pytest.mark.parametrize("kind", KINDS)
def test_evaluate_names_the_server_too(kind: str) -> None:
    from judgekit import evaluate, example_path
    from judgekit.engine.reach import ServerUnreachable

    with _server(kind) as (url, words):
        with pytest.raises(ServerUnreachable, match=words.replace("(", r"\(")) as caught:
            evaluate([example_path()], judge=f"openai:m1@{url}")
    assert url in str(caught.value)


def test_a_server_that_answers_is_not_refused(tmp_path: Path) -> None:
    with FakeAPIServer() as server:
        proc = judgekit("judge", EXAMPLE, "--judge", "openai:m1", "--base-url",
                        server.openai_base_url, "--no-audit", "--out", tmp_path / "out",
                        env={"JUDGEKIT_CACHE": str(tmp_path / "c.sqlite")})
        probes = [r.path for r in server.probes]
    assert proc.returncode == 0, proc.stderr
    assert probes.count("/v1/models") >= 1
