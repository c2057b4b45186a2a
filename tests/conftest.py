"""Fixtures shared by every test package."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_BOBBIN = ROOT / "examples" / "bobbin"


@pytest.fixture
def bobbin_dir() -> Path:
    """The bundled real bobbin runs (10 tasks, two arms, one harness failure)."""
    return EXAMPLE_BOBBIN


#: Environment that would point a test at a real provider, a user's data or a user's cache.
_ISOLATED_VARS = ("ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "OPENAI_API_KEY",
                  "JUDGEKIT_DATA", "JUDGEKIT_CACHE")


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No provider keys or URLs, the package's own data, and a judge cache of the test's own
    (returned), for every test."""
    for var in _ISOLATED_VARS:
        monkeypatch.delenv(var, raising=False)
    cache = tmp_path / "cache.sqlite"
    monkeypatch.setenv("JUDGEKIT_CACHE", str(cache))
    return cache


# A real llama-cpp-python model server for the tests marked ``realmodel`` (tests/realmodel.py).
from tests.realmodel import llama_server  # noqa: E402,F401


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "realmodel: needs a real model server (llama-cpp-python with SmolLM2); "
                   "run them alone with -m realmodel")
