"""The shared judge flags, the config they make, and the checks done before any work."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from judgekit.cli._engine_flags import add_engine_arguments, config_from_args
from judgekit.engine import EngineConfig
from judgekit.engine.config import split_model
from judgekit.engine.registry import PROVIDERS
from judgekit.errors import ConfigError
from tests.clirun import judgekit


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_engine_arguments(parser)
    return parser.parse_args(list(argv))


def test_all_flags_reach_the_config() -> None:
    args = _parse("--judge", "openai:gpt-4.1", "--base-url", "http://127.0.0.1:1/v1",
                  "--concurrency", "5", "--cache", "c.sqlite", "--no-cache", "--dry-run",
                  "--max-cost", "2.5", "--batch", "--max-tries", "4", "--timeout", "7.5",
                  "--max-retries", "2")
    cfg = config_from_args(args)
    assert cfg is not None and cfg.on_event is not None
    assert cfg.model_dump() == EngineConfig(
        model="openai:gpt-4.1", base_url="http://127.0.0.1:1/v1", concurrency=5,
        cache_path=Path("c.sqlite"), use_cache=False, dry_run=True, max_cost_usd=2.5,
        batch=True, max_tries=4, timeout=7.5, retry_attempts=3).model_dump()


@pytest.mark.parametrize("argv,words", [
    (("--concurrency", "0"), "--concurrency 0: must be at least 1"),
    (("--concurrency", "many"), "--concurrency 'many': expected a number"),
    (("--max-cost", "-1"), "--max-cost -1: must be greater than 0"),
    (("--max-cost", "0"), "--max-cost 0: must be greater than 0"),
    (("--timeout", "0"), "--timeout 0: must be greater than 0"),
    (("--max-retries", "-1"), "--max-retries -1: must be at least 0"),
    (("--base-url", "localhost:37267"), "is not a URL"),
])
def test_bad_values_are_config_errors(argv: tuple[str, ...], words: str) -> None:
    with pytest.raises(ConfigError, match=words.replace("(", r"\(")):
        config_from_args(_parse("--judge", "anthropic:claude-haiku-4-5", *argv))


@pytest.mark.parametrize("argv", [("--concurrency", "0"), ("--base-url", "localhost:37267"),
                                  ("--max-cost", "-1")])
def test_bad_values_fail_at_once_on_the_cli_with_one_line(tmp_path: Path,
                                                         argv: tuple[str, ...]) -> None:
    proc = judgekit("judge", "examples/bobbin", "--judge", "anthropic:claude-haiku-4-5",
                    "--no-audit", "--out", tmp_path / "out", *argv,
                    env={"ANTHROPIC_API_KEY": "k", "JUDGEKIT_CACHE": str(tmp_path / "c.sqlite")})
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and argv[0] in lines[0] and "usage:" not in proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "out").exists()


def test_base_url_from_the_environment_is_checked_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "localhost:1")
    with pytest.raises(ConfigError, match="ANTHROPIC_BASE_URL"):
        EngineConfig(model="anthropic:claude-haiku-4-5").resolved_base_url()


def test_no_judge_and_no_key_gives_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.delenv("OPENAI_API_KEY")
    assert config_from_args(_parse()) is None


def test_no_judge_picks_default_model_of_the_key_present(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    cfg = config_from_args(_parse())
    assert cfg is not None and cfg.provider == "openai"
    assert cfg.model == PROVIDERS["openai"].default_model


def test_model_id_is_parsed_once_on_the_config() -> None:
    assert split_model("anthropic:claude-haiku-4-5") == ("anthropic", "claude-haiku-4-5")
    assert split_model("claude-haiku-4-5") == ("anthropic", "claude-haiku-4-5")
    cfg = EngineConfig(model="gpt-4.1-mini")
    assert (cfg.model, cfg.provider, cfg.model_name) == ("openai:gpt-4.1-mini", "openai",
                                                         "gpt-4.1-mini")
    with pytest.raises(ConfigError):
        split_model("mistral:large")
    with pytest.raises(ConfigError):
        EngineConfig(model="mistral:large")


def test_one_spec_per_provider() -> None:
    for name, spec in PROVIDERS.items():
        model = spec.default_model or f"{name}:some-model"
        assert spec.name == name and model.startswith(f"{name}:")
        cfg = EngineConfig(model=model)
        assert cfg.request_params() == spec.params(cfg) and "max_tokens" in cfg.request_params()
        # a provider with no default model is never picked by a key alone
        assert spec.default_model is not None or spec.local or spec.name in (
            "azure", "bedrock", "vertex")


def test_cache_path_defaults(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("JUDGEKIT_CACHE", str(tmp_path / "x.sqlite"))
    assert EngineConfig(model="openai:gpt-4.1").resolved_cache_path() == tmp_path / "x.sqlite"
    monkeypatch.delenv("JUDGEKIT_CACHE")
    assert EngineConfig(model="openai:gpt-4.1").resolved_cache_path().name == "verdicts.sqlite"
