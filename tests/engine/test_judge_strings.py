"""One API: ``evaluate()`` takes the judge strings the command line takes (``MODEL@URL``,
juries), parsed in one place below both (:func:`judgekit.engine.config.judge_configs`)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

import judgekit
from judgekit.cli._engine_flags import add_engine_arguments, configs_from_args
from judgekit.engine.config import EngineConfig, judge_configs
from judgekit.errors import ConfigError
from judgekit.testing import FakeAPIServer

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "bobbin"


@pytest.fixture
def no_keys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL",
                 "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("JUDGEKIT_CACHE", str(tmp_path / "verdicts.sqlite"))
    return tmp_path


def _valid(part: object) -> int:
    records = getattr(part, "records")
    return sum(1 for r in records if not r.identical
               and all(o.state == "valid" for o in r.orders))


def test_evaluate_takes_model_at_url_without_a_key(no_keys: Path) -> None:
    with FakeAPIServer() as server:
        result = judgekit.evaluate([str(EXAMPLE)], audit=False,
                                   judge=f"anthropic:claude-sonnet-4-6@{server.url}")
        assert server.requests, "the judge's own server was not called"
    assert result.pairwise is not None and _valid(result.pairwise) > 0
    assert result.judge is not None and result.judge.model == "anthropic:claude-sonnet-4-6"


def test_evaluate_takes_a_jury_of_judge_strings(no_keys: Path) -> None:
    with FakeAPIServer() as one, FakeAPIServer() as two:
        result = judgekit.evaluate([str(EXAMPLE)], audit=False, judge=[
            f"anthropic:claude-sonnet-4-6@{one.url}",
            f"openai:gpt-4.1@{two.openai_base_url}"])
        assert one.requests and two.requests
    jurors = getattr(result.pairwise, "jurors")
    assert [j.base_url for j in jurors] == [one.url, two.openai_base_url]


def test_evaluate_and_the_command_line_make_the_same_judges() -> None:
    parser = argparse.ArgumentParser()
    add_engine_arguments(parser, jury=True)
    judges = ["openai:m1@http://127.0.0.1:1/v1", "anthropic:claude-haiku-4-5"]
    args = parser.parse_args([a for j in judges for a in ("--judge", j)]
                             + ["--base-url", "http://127.0.0.1:2"])
    cli = configs_from_args(args) or []
    api = judge_configs(judges, base_url="http://127.0.0.1:2")
    assert [(c.model, c.base_url, c.cache_scope) for c in cli] == \
        [(c.model, c.base_url, c.cache_scope) for c in api] == [
            ("openai:m1", "http://127.0.0.1:1/v1", "http://127.0.0.1:1/v1"),
            ("anthropic:claude-haiku-4-5", "http://127.0.0.1:2", None)]
    defaults = EngineConfig(model="openai:m1")
    for field in ("max_tries", "retry_attempts", "structured_output", "use_cache",
                  "prompt_cache", "concurrency", "timeout", "max_cost_usd"):
        assert getattr(cli[0], field) == getattr(defaults, field), field


def test_a_bad_judge_string_is_one_config_error() -> None:
    with pytest.raises(ConfigError, match="is not a URL"):
        judge_configs("openai:m1@http://")
    with pytest.raises(ConfigError, match="the same judge is given twice"):
        judge_configs(["openai:m1@http://127.0.0.1:1/v1", "openai:m1@http://127.0.0.1:1/v1"])
    with pytest.raises(ConfigError, match="judge"):
        judgekit.evaluate([str(EXAMPLE)], judge="")


def test_evaluate_has_the_command_lines_defaults() -> None:
    import inspect

    from judgekit.audit import AuditOptions
    from judgekit.cli import build_parser
    from judgekit.cli._audit_flags import audit_options_from_args
    from dataclasses import fields

    from judgekit.cli._common import pipeline_options
    from judgekit.cli._pairwise_flags import pairwise_options_from_args
    from judgekit.evaluate import PipelineOptions
    from judgekit.pairwise import PairwiseOptions

    args = build_parser().parse_args(["judge", "runs/"])
    assert pipeline_options(args) == PipelineOptions()  # one options object, one set of defaults
    params = inspect.signature(judgekit.evaluate).parameters
    for f in fields(PipelineOptions):
        if f.name == "off":  # evaluate() switches each registered step by its own name
            assert params["integrity"].default is True and PipelineOptions().off == frozenset()
            continue
        default = params[f.name].default
        assert (tuple(default) if f.name == "exclude" else default) == getattr(
            PipelineOptions(), f.name), f.name
    assert params["base_url"].default is args.base_url is None
    assert pairwise_options_from_args(args) == PairwiseOptions()
    assert audit_options_from_args(args) == AuditOptions()


def test_a_bare_model_at_a_url_is_refused_with_the_forms_that_work() -> None:
    with pytest.raises(ConfigError) as refused:
        EngineConfig(model="smollm2@http://127.0.0.1:8080/v1")
    said = str(refused.value)
    assert "llamacpp:smollm2@http://127.0.0.1:8080/v1" in said
    assert "openai:smollm2@http://127.0.0.1:8080/v1" in said
    local = EngineConfig(model="llamacpp:smollm2@http://127.0.0.1:8080/v1")
    assert (local.provider, local.model_name, local.base_url) == (
        "llamacpp", "smollm2", "http://127.0.0.1:8080/v1")
    # a bare name that selects its provider (gpt…, claude…) needs no prefix
    assert EngineConfig(model="gpt-4.1@http://127.0.0.1:1/v1").provider == "openai"
