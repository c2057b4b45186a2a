"""The shared judge flags and the config they make."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from judgekit.engine import EngineConfig, add_engine_arguments, config_from_args
from judgekit.engine.options import split_model
from judgekit.errors import ConfigError


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_engine_arguments(parser)
    return parser.parse_args(list(argv))


def test_all_flags_reach_the_config() -> None:
    args = _parse("--judge", "openai:gpt-4.1", "--base-url", "http://127.0.0.1:1/v1",
                  "--concurrency", "5", "--cache", "c.sqlite", "--no-cache", "--dry-run",
                  "--max-cost", "2.5", "--batch", "--max-tries", "4")
    cfg = config_from_args(args)
    assert cfg == EngineConfig(model="openai:gpt-4.1", base_url="http://127.0.0.1:1/v1",
                               concurrency=5, cache_path=Path("c.sqlite"), use_cache=False,
                               dry_run=True, max_cost_usd=2.5, batch=True, max_tries=4)


def test_no_judge_and_no_key_gives_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.delenv("OPENAI_API_KEY")
    assert config_from_args(_parse()) is None


def test_no_judge_picks_default_model_of_the_key_present(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    cfg = config_from_args(_parse())
    assert cfg is not None and cfg.provider == "openai"


def test_model_names() -> None:
    assert split_model("anthropic:claude-haiku-4-5") == ("anthropic", "claude-haiku-4-5")
    assert split_model("claude-haiku-4-5") == ("anthropic", "claude-haiku-4-5")
    with pytest.raises(ConfigError):
        split_model("mistral:large")


def test_cache_path_defaults(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("JUDGEKIT_CACHE", str(tmp_path / "x.sqlite"))
    assert EngineConfig(model="openai:gpt-4.1").resolved_cache_path() == tmp_path / "x.sqlite"
    monkeypatch.delenv("JUDGEKIT_CACHE")
    assert EngineConfig(model="openai:gpt-4.1").resolved_cache_path().name == "verdicts.sqlite"
