"""Model providers from other installed packages: the ``judgekit.providers`` entry points.

Each test installs a tiny distribution into a directory on ``sys.path`` (a real
``.dist-info`` with its ``entry_points.txt``, beside the module it names), the way pip
leaves one in ``site-packages``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from judgekit.engine import PROVIDERS, Engine, EngineConfig, ProviderSpec
from judgekit.engine import registry
from judgekit.errors import ConfigError
from judgekit.testing import FakeAPIServer, Reply
from tests.engine.engine_helpers import GOOD, reqs

PLUGIN = '''
from judgekit.engine import ProviderSpec
from judgekit.engine.providers.openai import OpenAIProvider
from judgekit.engine.registry import openai_params


def _client(config, key, base_url):
    return OpenAIProvider(config, api_key="plugin-key", base_url=base_url)


MYPROV = ProviderSpec("myprov", "MYPROV_API_KEY", "MYPROV_BASE_URL", None, ("mine-",),
                      openai_params, _client, key_required=False)
ANTHROPIC = ProviderSpec("anthropic", "X_KEY", "X_URL", None, (), openai_params, _client)
NOT_A_SPEC = "myprov"
'''


def _install(root: Path, monkeypatch: pytest.MonkeyPatch, entries: dict[str, str],
             dist: str = "judgekit_myprov") -> None:
    info = root / f"{dist}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n",
                                   encoding="utf-8")
    lines = "".join(f"{name} = {value}\n" for name, value in entries.items())
    (info / "entry_points.txt").write_text(f"[judgekit.providers]\n{lines}", encoding="utf-8")
    (root / "myprov_plugin.py").write_text(PLUGIN, encoding="utf-8")
    monkeypatch.syspath_prepend(str(root))
    registry.refresh()


@pytest.fixture(autouse=True)
def _fresh_registry() -> Iterator[None]:
    registry.refresh()
    yield
    sys.modules.pop("myprov_plugin", None)
    registry.refresh()


def test_without_plug_ins_the_built_in_table_stands() -> None:
    assert list(PROVIDERS)[:2] == ["anthropic", "openai"]
    assert PROVIDERS["llamacpp"] is registry.LLAMACPP
    assert all(isinstance(spec, ProviderSpec) for spec in PROVIDERS.values())
    assert registry.problems() == []


def test_a_plug_in_provider_is_listed_and_judges(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 server: FakeAPIServer) -> None:
    _install(tmp_path, monkeypatch, {"myprov": "myprov_plugin:MYPROV"})
    assert "myprov" in PROVIDERS and PROVIDERS["myprov"].name == "myprov"
    assert registry.parse_model("myprov:m1") == ("myprov", "m1")
    assert registry.parse_model("mine-7b") == ("myprov", "mine-7b")  # its bare names
    monkeypatch.setenv("MYPROV_BASE_URL", server.openai_base_url)
    server.responder = lambda api, body: Reply.ok(GOOD)
    config = EngineConfig(model="myprov:m1", cache_path=tmp_path / "v.sqlite", progress=False)
    [out] = Engine(config).run(reqs(1))
    assert (out.state, out.verdict, out.model) == ("valid", GOOD, "myprov:m1")
    [call] = server.requests
    assert call.api == "openai" and call.body is not None and call.body["model"] == "m1"
    assert call.headers.get("authorization") == "Bearer plugin-key"


def test_the_cli_takes_a_plug_in_judge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse

    from judgekit.cli._engine_flags import add_engine_arguments, config_from_args

    _install(tmp_path, monkeypatch, {"myprov": "myprov_plugin:MYPROV"})
    parser = argparse.ArgumentParser()
    add_engine_arguments(parser)
    config = config_from_args(parser.parse_args(["--judge", "myprov:m1"]))
    assert config is not None and (config.provider, config.model_name) == ("myprov", "m1")


def test_a_plug_in_named_like_a_built_in_is_ignored_with_a_warning(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: FakeAPIServer) -> None:
    _install(tmp_path, monkeypatch, {"anthropic": "myprov_plugin:ANTHROPIC",
                                     "myprov": "myprov_plugin:MYPROV"})
    assert PROVIDERS["anthropic"] is registry.ANTHROPIC and "myprov" in PROVIDERS
    [problem] = registry.problems()
    assert problem.name == "anthropic" and problem.distribution == "judgekit_myprov"
    assert "ignored" in str(problem)
    notes: list[str] = []
    server.responder = lambda api, body: Reply.ok(GOOD)
    config = EngineConfig(model="anthropic:claude-haiku-4-5", base_url=server.url,
                          use_cache=False, progress=False,
                          on_event=lambda e: notes.append(e.text) if e.kind == "note" else None)
    for _ in range(2):  # said once, not by every engine
        [out] = Engine(config).run(reqs(1))
    assert out.state == "valid" and server.requests[0].api == "anthropic"  # the built-in
    assert notes == [f"warning: {problem}"]


def test_a_plug_in_that_fails_to_load_is_reported_not_fatal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _install(tmp_path, monkeypatch, {"broken": "no_such_module_here:SPEC",
                                     "odd": "myprov_plugin:NOT_A_SPEC",
                                     "myprov": "myprov_plugin:MYPROV"})
    assert "myprov" in PROVIDERS and "broken" not in PROVIDERS and "odd" not in PROVIDERS
    reasons = {p.name: p.reason for p in registry.problems()}
    assert "ModuleNotFoundError" in reasons["broken"] and "not a ProviderSpec" in reasons["odd"]
    with pytest.raises(ConfigError, match="unknown judge model") as err:
        EngineConfig(model="broken:m1")
    assert "no_such_module_here" in str(err.value)  # the problem is named where it matters
