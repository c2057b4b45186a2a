"""The judge against self-hosted servers' dialects (loopback fakes playing each server):
structured output by capability, context windows, slots, presets, and counts that equal
what the server received."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judgekit.engine import Engine, EngineConfig, JudgeRequest, NotSent
from judgekit.testing import FakeAPIServer
from judgekit.testing.dialects import Dialect

SCHEMA = {"type": "object", "required": ["winner"],
          "properties": {"winner": {"enum": ["A", "B", "draw"]}}}


def _config(server: FakeAPIServer, tmp_path: Path, model: str = "openai:local-model",
            **kw: Any) -> EngineConfig:
    fields: dict[str, Any] = {"model": model, "base_url": server.openai_base_url,
                              "cache_path": tmp_path / "v.sqlite", "progress": False,
                              "backoff_base": 0.01, "backoff_max": 0.02}
    fields.update(kw)
    return EngineConfig(**fields)


def _copy_task(bobbin_dir: Path, task: str, dest: Path) -> Path:
    """The bundled bobbin run directories holding ``task``, copied to ``dest``."""
    import shutil

    dest.mkdir(parents=True)
    for d in sorted(bobbin_dir.iterdir()):
        if any(f.name.startswith(f"{task}_") for f in d.iterdir()):
            shutil.copytree(d, dest / d.name)
    return dest


def _shrinking(key: str, body: str) -> JudgeRequest:
    """A request whose prompt can be cut (like a diff cut by hunks) to any size."""
    def fit(max_chars: int) -> JudgeRequest | None:
        room = max_chars - len("Judge.") - 20
        if room < 50:
            return None
        return JudgeRequest(key=key, system="Judge.", prompt=body[:room] + "\n[cut]",
                            schema=SCHEMA, fit=fit)
    return JudgeRequest(key=key, system="Judge.", prompt=body, schema=SCHEMA, fit=fit)


def test_llama_cpp_python_refused_mode_is_asked_once_then_json_object(tmp_path: Path) -> None:
    with FakeAPIServer(dialect=Dialect.llama_cpp_python(n_ctx=8192)) as server:
        engine = Engine(_config(server, tmp_path, use_cache=False))
        outs = engine.run([JudgeRequest(f"k{i}", "Judge.", f"item {i}", SCHEMA)
                           for i in range(6)])
        statuses = [s for s, _ in server.refused]
    assert [o.state for o in outs] == ["valid"] * 6
    assert statuses == [500]  # json_schema refused once: never sent again
    run = engine.judge_run()
    assert run.structured_output is not None
    assert (run.structured_output.mode, run.structured_output.confirmed) == ("json_object", True)
    assert [s.mode for s in run.structured_output.stepped_down] == ["json_schema"]
    assert run.calls == server.count("openai") == 7 and run.answered == 6
    assert run.failed_calls == {"rejected_mode": 1}
    assert all(o.tries >= 1 for o in outs)
    assert run.concurrency == 1  # llama-cpp-python serves one request at a time


def test_the_mode_found_is_kept_in_the_cache_for_the_next_run(tmp_path: Path) -> None:
    with FakeAPIServer(dialect=Dialect.llama_cpp_python()) as server:
        Engine(_config(server, tmp_path)).run([JudgeRequest("a", "Judge.", "x", SCHEMA)])
        second = Engine(_config(server, tmp_path))
        second.run([JudgeRequest("b", "Judge.", "y", SCHEMA)])
        refused = len(server.refused)
    assert refused == 1  # the second run did not ask json_schema again
    so = second.judge_run().structured_output
    assert so is not None and (so.mode, so.source) == ("json_object", "cache")


def test_vllm_without_json_schema_gets_guided_json(tmp_path: Path) -> None:
    with FakeAPIServer(dialect=Dialect.vllm(max_model_len=4096)) as server:
        engine = Engine(_config(server, tmp_path, model="vllm:local-model", use_cache=False))
        [out] = engine.run([JudgeRequest("k", "Judge.", "x", SCHEMA)])
        bodies = [r.body for r in server.requests if r.api == "openai"]
    assert out.state == "valid"
    assert "guided_json" in bodies[-1] and bodies[-1]["guided_json"] == SCHEMA
    run = engine.judge_run()
    assert run.context.window_tokens == 4096 and "max_model_len" in (run.context.source or "")


def test_prompt_mode_writes_the_schema_into_the_prompt(tmp_path: Path) -> None:
    with FakeAPIServer(dialect=Dialect(modes=("text",))) as server:
        engine = Engine(_config(server, tmp_path, use_cache=False,
                                structured_output="prompt"))
        [out] = engine.run([JudgeRequest("k", "Judge.", "which?", SCHEMA)])
        body = server.requests[-1].body
    assert out.state == "valid" and not server.refused
    assert "response_format" not in body
    assert '"winner"' in body["messages"][-1]["content"]


@pytest.mark.parametrize("dialect", [
    Dialect.llama_server(n_ctx=2048, slots=3), Dialect.vllm(max_model_len=2048),
    Dialect.ollama(num_ctx=2048), Dialect.lmstudio(ctx=2048)],
    ids=["llama.cpp", "vllm", "ollama", "lmstudio"])
def test_a_reported_window_is_never_exceeded(tmp_path: Path, dialect: Dialect) -> None:
    long_body = "line of a long diff\n" * 2000  # ~10k tokens at 4 characters a token
    with FakeAPIServer(dialect=dialect) as server:
        engine = Engine(_config(server, tmp_path, use_cache=False))
        outs = engine.run([_shrinking("long", long_body),
                           JudgeRequest("short", "Judge.", "small", SCHEMA)])
        sent = list(server.prompt_tokens)
        refused = list(server.refused)
    assert [o.state for o in outs] == ["valid", "valid"]
    assert not [r for r in refused if "context" in r[1] or "exceeds" in r[1]]
    assert max(sent) + engine.judge_run().context.answer_tokens <= 2048
    assert outs[0].fitted and not outs[1].fitted
    assert engine.judge_run().context.n_fitted == 1


def test_slots_reported_by_llama_server_set_the_concurrency(tmp_path: Path) -> None:
    with FakeAPIServer(dialect=Dialect.llama_server(slots=3)) as server:
        engine = Engine(_config(server, tmp_path, use_cache=False))
        engine.run([JudgeRequest("k", "Judge.", "x", SCHEMA)])
    run = engine.judge_run()
    assert run.concurrency == 3 and "total_slots" in (run.concurrency_source or "")


def test_window_learnt_from_the_error_costs_one_over_long_request(tmp_path: Path) -> None:
    """llama-cpp-python reports no window: one request may exceed it, and the rest fit."""
    body = "x" * 40_000
    with FakeAPIServer(dialect=Dialect.llama_cpp_python(n_ctx=3000)) as server:
        engine = Engine(_config(server, tmp_path, use_cache=False))
        outs = engine.run([_shrinking(f"k{i}", body) for i in range(3)])
        over = [m for s, m in server.refused if "context" in m]
    assert [o.state for o in outs] == ["valid"] * 3
    assert len(over) == 1
    run = engine.judge_run()
    assert run.context.window_tokens == 3000
    assert run.failed_calls.get("context_exceeded") == 1
    assert run.calls == server.count("openai")


def test_an_item_that_cannot_fit_is_skipped_not_sent(tmp_path: Path) -> None:
    with FakeAPIServer(dialect=Dialect.llama_server(n_ctx=1024)) as server:
        engine = Engine(_config(server, tmp_path, use_cache=False))
        [out] = engine.run([JudgeRequest("k", "Judge.", "y" * 20_000, SCHEMA)])  # no fit
        calls = server.count("openai")
    assert out.state == "unscored" and out.skipped == "too_long_for_context"
    assert out.not_sent is not None and out.not_sent.reason is NotSent.TOO_LONG_FOR_CONTEXT
    assert "context window" in (out.reason or "") and calls == 0
    assert engine.judge_run().skipped == {"too_long_for_context": 1}


def test_judge_context_flag_overrides_the_server(tmp_path: Path) -> None:
    with FakeAPIServer(dialect=Dialect.llama_server(n_ctx=100_000)) as server:
        engine = Engine(_config(server, tmp_path, use_cache=False, context_window=1500))
        [out] = engine.run([_shrinking("k", "z" * 30_000)])
    assert out.state == "valid" and out.fitted
    assert engine.judge_run().context.source == "set by the caller"
    assert max(server.prompt_tokens) + engine.judge_run().context.answer_tokens <= 1500


@pytest.mark.parametrize("preset,port", [("llamacpp", 8080), ("vllm", 8000),
                                         ("ollama", 11434), ("lmstudio", 1234)])
def test_presets_need_no_key_and_know_their_address(preset: str, port: int) -> None:
    config = EngineConfig(model=f"{preset}:m")
    assert config.resolved_base_url() == f"http://127.0.0.1:{port}/v1"
    assert config.local and config.settled().timeout == 600.0
    from judgekit.engine.connect import make_provider

    assert make_provider(config).name == "openai"  # no key in the environment: fine


def test_cli_judge_with_a_preset_and_no_key(tmp_path: Path, bobbin_dir: Path) -> None:
    from tests.clirun import judgekit

    ruff = _copy_task(bobbin_dir, "ruff-005", tmp_path / "runs")
    with FakeAPIServer(dialect=Dialect.llama_cpp_python(n_ctx=6144)) as server:
        result = judgekit("judge", ruff, "--judge", "llamacpp:smollm2", "--base-url",
                          server.openai_base_url, "--no-audit", "--no-cache", "--json",
                          cwd=tmp_path)
        calls = server.count("openai")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    judge = summary["judge"]
    assert judge["calls"] == calls and judge["structured_output"]["mode"] == "json_object"
    assert summary["pairwise_run"]["states"]["valid"] == 1


def test_an_audit_in_json_mode_sends_the_rubrics_logic_as_the_decoding_schema(
        tmp_path: Path, bobbin_dir: Path) -> None:
    """A grammar-constrained server can only decode verdicts that pass the logical checks:
    score 1 with a caused defect of a rubric category, or score 0 (with a category, or
    ``none`` when no defect exists); the published verdict schema stays what is validated."""
    from judgekit.audit.rubric import load_rubric
    from judgekit.audit.verdict import verdict_schema
    from tests.clirun import judgekit

    runs = _copy_task(bobbin_dir, "flask-001", tmp_path / "runs")
    with FakeAPIServer(dialect=Dialect.llama_cpp_python(n_ctx=32768)) as server:
        result = judgekit("audit", runs, "--rubric", "commit-revert", "--judge",
                          "llamacpp:smollm2", "--base-url", server.openai_base_url,
                          "--no-cache", "--out", tmp_path / "out", cwd=tmp_path)
        formats = [r.body.get("response_format") for r in server.requests if r.api == "openai"]
    assert result.returncode == 0, result.stderr
    sent = [f["schema"] for f in formats if f and f.get("type") == "json_object"]
    assert sent and all(s == sent[0] for s in sent)
    branches = sent[0]["anyOf"]
    shapes = {(b["properties"]["score"]["const"], b["properties"]["deficiency_exists"]["const"],
               b["properties"]["deficiency_caused_failure"]["const"]) for b in branches}
    assert shapes == {(1, True, True), (0, True, False), (0, False, False)}
    names = [c.name for c in load_rubric("commit-revert").categories]
    kinds = [b["properties"]["deficiency_type"] for b in branches]
    assert {"const": "none"} in kinds and {"enum": names} in kinds
    assert all(set(b["required"]) == set(verdict_schema()["required"]) for b in branches)
