from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from judgekit.testing import FakeAPIServer
from tests.engine.engine_helpers import FAKE_KEY, OPENAI_KEY


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for var in ("ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "JUDGEKIT_CACHE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("JUDGEKIT_CACHE", str(tmp_path / "default-cache.sqlite"))


@pytest.fixture
def server() -> Iterator[FakeAPIServer]:
    with FakeAPIServer() as srv:
        yield srv
