"""Judged and audited output directories for the review app, made with the scripted model
server; a review server run as the user runs it."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from judgekit.testing import FakeAPIServer, Reply, prompt_of
from tests.audit.helpers import agent_verdict, defect_verdict, standard_results
from tests.audit.helpers import result as audit_result
from tests.audit.helpers import write_runs as write_audit_runs
from tests.clirun import ROOT, judgekit
from tests.pairwise.helpers import DIMS, prefers, result, sized_diff, write_runs

JUDGE = "anthropic:claude-haiku-4-5"
#: Arm names and a verdict reason that must not reach the page before an item is labelled.
BASE, CTX = "armzeta", "armomega"
REASON = "VERDICTREASON"
#: Markup in a task description, a diff and a verdict reason: shown as text, never run.
HOSTILE = "<script>window.__pwned = 1</script><img src=x onerror=\"window.__pwned = 2\">"
N_TASKS = 10


def plain_marker(t: int) -> str:
    return f"plainfix{t}"


def ctx_marker(t: int) -> str:
    return f"ctxfix{t} {HOSTILE}"


def _hostile_reasons(respond: Any) -> Any:
    """``respond``'s verdicts with a reason carrying REASON and markup."""
    def reply(api: str, body: dict[str, Any]) -> Reply:
        got = respond(api, body)
        verdict = got.verdict
        if isinstance(verdict, dict):
            for d in DIMS:
                verdict[d]["reasoning"] = f"{REASON} {d} {HOSTILE}"
        return got
    return reply


@pytest.fixture(scope="session")
def judged_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``judgekit judge`` over 10 tasks of two arms: 10 comparisons, 3 dimensions each."""
    tmp = tmp_path_factory.mktemp("judged")
    runs = write_runs(tmp / "runs.json", [
        r for t in range(N_TASKS) for r in (
            result(f"t{t}", BASE, sized_diff(plain_marker(t), 2),
                   description=f"div crashes on zero {HOSTILE}"),
            result(f"t{t}", CTX, sized_diff(ctx_marker(t), 3), passed=t % 2 == 0,
                   description=f"div crashes on zero {HOSTILE}"))])
    out = tmp / "out"
    with FakeAPIServer(_hostile_reasons(prefers("ctxfix"))) as server:
        proc = judgekit("judge", runs, "--judge", JUDGE, "--out", out, "--no-audit",
                        "--no-similarity",
                        env={**server.env(), "ANTHROPIC_API_KEY": "test-key",
                             "JUDGEKIT_CACHE": str(tmp / "cache.sqlite")})
    assert proc.returncode == 0, proc.stderr
    assert REASON in (out / "pairwise.jsonl").read_text()
    return out


def sound_judge(api: str, body: dict[str, Any]) -> Reply:
    """Blames the task for calc-002 (vacuous), the agent for everything else."""
    return Reply.ok(defect_verdict() if "calc-002" in prompt_of(body) else agent_verdict())


@pytest.fixture(scope="session")
def audited_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``judgekit audit`` of four failed results (two per task), with quoted evidence."""
    tmp = tmp_path_factory.mktemp("audited")
    runs = write_audit_runs(tmp / "runs.json", standard_results())
    out = tmp / "out"
    with FakeAPIServer(sound_judge) as server:
        proc = judgekit("audit", runs, "--judge", JUDGE, "--out", out, "--no-similarity",
                        "--no-cache", env={**server.env(), "ANTHROPIC_API_KEY": "test-key"})
    assert proc.returncode == 0, proc.stderr
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


URL = re.compile(r"^http://127\.0\.0\.1:(\d+)/\?token=([A-Za-z0-9_-]{20,})$")


@dataclass
class Served:
    proc: subprocess.Popen[str]
    url: str
    port: int
    token: str


def start_review(out: Path, port: int, *extra: str,
                 preexec_fn: Callable[[], None] | None = None) -> Served:
    """``judgekit review OUT --port P --no-browser``, run until its URL is printed
    (``preexec_fn``: run in the child before it starts, to set a limit, say)."""
    proc = subprocess.Popen([sys.executable, "-m", "judgekit", "review", str(out), "--port",
                             str(port), "--no-browser", *extra],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=preexec_fn)
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    m = URL.match(line)
    if m is None:
        proc.kill()
        raise AssertionError(f"no URL printed: {line!r}; {proc.communicate()[1][-2000:]}")
    assert int(m.group(1)) == port
    return Served(proc, line, port, m.group(2))


@pytest.fixture
def servers() -> Iterator[list[Served]]:
    """Review servers a test started; each is stopped at the end."""
    started: list[Served] = []
    yield started
    for s in started:
        if s.proc.poll() is None:
            s.proc.kill()
        s.proc.communicate()


#: A test output with characters outside the Basic Multilingual Plane (two UTF-16 units
#: each in the page) before the quoted lines.
ASTRAL_OUTPUT = ("🚀 collecting 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ⟨tests⟩\ntests/test_calc.py F\n"
                 "E   ZeroDivisionError: division by zero in calc.py line 7\n"
                 "===== 1 failed in 0.1s =====")
#: Two quotes that overlap ("division by zero"), one apart, one found nowhere.
ASTRAL_QUOTES = ['"ZeroDivisionError: division by zero"',
                 '"division by zero in calc.py line 7"', '"1 failed in 0.1s"',
                 '"this quote is nowhere"']


@pytest.fixture(scope="session")
def astral_audited_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``judgekit audit`` of one failed result whose test output has astral characters
    before the quotes, two of which overlap."""
    tmp = tmp_path_factory.mktemp("astral")
    run = audit_result("calc-001", "a", "failed")
    assert run.test is not None
    run.test.output = ASTRAL_OUTPUT
    runs = write_audit_runs(tmp / "runs.json", [run])
    out = tmp / "out"
    with FakeAPIServer(lambda api, body: Reply.ok(agent_verdict(evidence=ASTRAL_QUOTES))
                       ) as server:
        proc = judgekit("audit", runs, "--judge", JUDGE, "--out", out, "--no-similarity",
                        "--no-cache", env={**server.env(), "ANTHROPIC_API_KEY": "test-key"})
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture(scope="session")
def attempts_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``judgekit judge --select all`` over 2 tasks of two arms, two attempts each: four
    comparisons per task (each attempt pair), 8 in all."""
    tmp = tmp_path_factory.mktemp("attempts")
    runs = write_runs(tmp / "runs.json", [
        result(f"t{t}", arm, sized_diff(f"{marker}{t}a{k}", 2 + k), attempt=k)
        for t in range(2) for k in range(2)
        for arm, marker in ((BASE, "plainfix"), (CTX, "ctxfix"))])
    out = tmp / "out"
    with FakeAPIServer(prefers("ctxfix")) as server:
        proc = judgekit("judge", runs, "--judge", JUDGE, "--out", out, "--no-audit",
                        "--no-similarity", "--select", "all",
                        env={**server.env(), "ANTHROPIC_API_KEY": "test-key",
                             "JUDGEKIT_CACHE": str(tmp / "cache.sqlite")})
    assert proc.returncode == 0, proc.stderr
    return out


def _reasons(respond: Any, tag: str) -> Any:
    """``respond``'s verdicts with reasons naming ``tag``."""
    def reply(api: str, body: dict[str, Any]) -> Reply:
        got = respond(api, body)
        if isinstance(got.verdict, dict):
            for d in DIMS:
                got.verdict[d]["reasoning"] = f"{tag} on {d}"
        return got
    return reply


@pytest.fixture(scope="session")
def jury_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``judgekit judge`` with a jury of two judges over 2 tasks of two arms."""
    tmp = tmp_path_factory.mktemp("jury")
    runs = write_runs(tmp / "runs.json", [
        r for t in range(2) for r in (
            result(f"t{t}", BASE, sized_diff(plain_marker(t), 2)),
            result(f"t{t}", CTX, sized_diff(f"ctxfix{t}", 3)))])
    out = tmp / "out"
    with FakeAPIServer(_reasons(prefers("ctxfix"), "FIRSTJUROR")) as one, \
            FakeAPIServer(_reasons(prefers("plainfix"), "SECONDJUROR")) as two:
        proc = judgekit("judge", runs, "--judge", f"{JUDGE}@{one.url}", "--judge",
                        f"anthropic:claude-sonnet-4-5@{two.url}", "--out", out, "--no-audit",
                        "--no-similarity",
                        env={"ANTHROPIC_API_KEY": "test-key",
                             "JUDGEKIT_CACHE": str(tmp / "cache.sqlite")})
    assert proc.returncode == 0, proc.stderr
    return out


#: In a task's description: the scripted judge gives no valid answer on that task.
NO_ANSWER = "UNANSWERABLE"


@pytest.fixture(scope="session")
def unanswered_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``judgekit judge`` over 2 tasks of two arms: the judge answers t1 (preferring the
    context arm) and gives no valid answer on t0."""
    tmp = tmp_path_factory.mktemp("unanswered")
    runs = write_runs(tmp / "runs.json", [
        r for t in range(2) for r in (
            result(f"t{t}", BASE, sized_diff(plain_marker(t), 2),
                   description=NO_ANSWER if t == 0 else "div crashes on zero"),
            result(f"t{t}", CTX, sized_diff(f"ctxfix{t}", 3),
                   description=NO_ANSWER if t == 0 else "div crashes on zero"))])
    out = tmp / "out"
    judge = prefers("ctxfix")

    def respond(api: str, body: dict[str, Any]) -> Reply:
        return Reply.invalid_json() if NO_ANSWER in prompt_of(body) else judge(api, body)

    with FakeAPIServer(respond) as server:
        proc = judgekit("judge", runs, "--judge", JUDGE, "--out", out, "--no-audit",
                        "--no-similarity",
                        env={**server.env(), "ANTHROPIC_API_KEY": "test-key",
                             "JUDGEKIT_CACHE": str(tmp / "cache.sqlite")})
    assert proc.returncode == 0, proc.stderr
    return out
