"""The whole ``judgekit index`` command on a large corpus: its rate, each stage's share, the GPU's.

Run through ``python bench/index_speed.py --pipeline`` (see there). The corpus is the
Python source of installed packages (site-packages, packages in name order, whole
packages), copied into a temporary tree until about ``chunks`` chunks. Measured, each in
a fresh process and a fresh index directory (cold):

* ``judgekit index --help``: the start-up every command pays (imports), best of three;
* **stub**: ``JUDGEKIT_INDEX_ENCODER=zeros judgekit index CORPUS --out IDX --json``, the model
  replaced by the zero encoder of the test hook: everything else the command does, as
  chunks / (wall of the command - wall of ``--help``), and, since a shared machine's wall
  time says more about its other users than about the command, chunks per CPU second
  after start-up (the command's ``cpu_seconds``, its scan workers included, less the CPU
  time of ``--help``): on an idle machine of N cores the wall rate approaches N times it
  as far as the stages run in parallel;
* **model**: the same command with the model (``--device`` as given), whole-command
  chunks/s by wall, and each stage's share of that wall from the command's own
  statistics (scan, tokenise, encode, write; they overlap, so the shares can add up to
  more than 1), and the GPU's busy share sampled with ``nvidia-smi`` while the command ran
  ("n/a" without a GPU); then the stored vectors of a sample of chunks against plain
  sentence-transformers fp32 on the same texts (mean and min cosine).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SKIP_DIRS = frozenset({"tests", "test", "testing", "__pycache__", "_vendor", "vendor", "site-packages"})
#: Bytes of Python source per chunk, to size the corpus before it is chunked (measured on
#: installed packages; the real count is reported).
BYTES_PER_CHUNK = 420


def build_corpus(dest: Path, chunks: int) -> list[str]:
    """Copy whole packages' ``.py`` files from site-packages into ``dest``; their names."""
    budget = chunks * BYTES_PER_CHUNK
    used: list[str] = []
    total = 0
    for site in sorted({p for p in sys.path if p.endswith(("site-packages", "dist-packages")) and Path(p).is_dir()}):
        for pkg in sorted(Path(site).iterdir()):
            if total >= budget or not pkg.is_dir() or not (pkg / "__init__.py").is_file():
                continue
            size = _copy_package(pkg, dest / pkg.name, budget - total)
            if size:
                used.append(pkg.name)
                total += size
    return used


def _copy_package(src: Path, dest: Path, room: int) -> int:
    copied = 0
    for path in sorted(src.rglob("*.py")):
        rel = path.relative_to(src)
        if copied >= room or any(part in SKIP_DIRS for part in rel.parts[:-1]):
            continue
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if len(data) > 512 * 1024:
            continue
        out = dest / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
        copied += len(data)
    return copied


class GpuBusy:
    """Mean ``nvidia-smi`` utilisation (0..1) while the ``with`` block runs; ``None`` without a GPU."""

    def __init__(self) -> None:
        self.samples: list[float] = []
        self._proc: subprocess.Popen[str] | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> GpuBusy:
        if shutil.which("nvidia-smi") is None:
            return self
        self._proc = subprocess.Popen(
            ["nvidia-smi", "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits", "-lms", "100", "-i", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()
        return self

    def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        for line in self._proc.stdout:
            try:
                self.samples.append(float(line.strip()) / 100.0)
            except ValueError:
                continue

    def __exit__(self, *exc: object) -> None:
        if self._proc is not None:
            self._proc.terminate()
            self._proc.wait(timeout=10)

    def share(self) -> float | None:
        return round(sum(self.samples) / len(self.samples), 3) if self.samples else None


def _run(cmd: list[str], env: dict[str, str]) -> tuple[float, str]:
    began = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=ROOT, env=env)
    wall = time.perf_counter() - began
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[2:5])}... failed: {proc.stderr.strip()[-800:]}")
    return wall, proc.stdout


def _help_cpu(jk: list[str]) -> float:
    """CPU seconds of ``judgekit index --help`` (start-up: interpreter and imports)."""
    before = os.times()
    _run(jk + ["index", "--help"], _env())
    after = os.times()
    return (after.children_user - before.children_user) + (after.children_system - before.children_system)


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, HF_HUB_OFFLINE="1", **extra)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return env


def pipeline(chunks: int, model_chunks: int, device: str | None, rounds: int, sample: int,
             model_flags: tuple[str, ...] = ()) -> dict[str, Any]:
    """The figures described in the module docstring."""
    jk = [sys.executable, "-m", "judgekit"]
    out: dict[str, Any] = {"cores": len(os.sched_getaffinity(0)), "load_average_before": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory(prefix="index-pipeline-") as tmp:
        tmp_p = Path(tmp)
        out["corpus"] = build_corpus(tmp_p / "corpus", chunks)
        if rounds == 0:  # the run with the model only
            out["model"] = _model_run(jk, tmp_p, model_chunks, model_chunks, device, sample, model_flags)
            return out
        help_wall = min(_run([*jk, "index", "--help"], _env())[0] for _ in range(3))
        out["help_wall_s"] = round(help_wall, 3)
        help_cpu = min(_help_cpu(jk) for _ in range(3))
        out["help_cpu_s"] = round(help_cpu, 3)
        stub_runs = []
        for n in range(rounds):
            idx = tmp_p / f"stub-{n}"
            wall, text = _run([*jk, "index", str(tmp_p / "corpus"), "--out", str(idx), "--json"],
                              _env(JUDGEKIT_INDEX_ENCODER="zeros"))
            stats = json.loads(text)
            stub_runs.append({"wall_s": round(wall, 3), "chunks": stats["embedded"], "files": stats["files"],
                              "workers": stats["workers"], "scan_s": stats["scan_seconds"],
                              "scan_cpu_s": stats["scan_cpu_seconds"],
                              "write_s": stats["write_seconds"], "cpu_s": stats["cpu_seconds"],
                              "chunks_per_s_after_startup": round(stats["embedded"] / (wall - help_wall), 1),
                              "chunks_per_cpu_s_after_startup":
                                  round(stats["embedded"] / (stats["cpu_seconds"] - help_cpu), 1)})
            shutil.rmtree(idx)
        out["stub"] = stub_runs
        out["stub_chunks_per_s_after_startup"] = max(r["chunks_per_s_after_startup"] for r in stub_runs)
        out["stub_chunks_per_cpu_s_after_startup"] = max(r["chunks_per_cpu_s_after_startup"] for r in stub_runs)
        out["model"] = _model_run(jk, tmp_p, model_chunks, chunks, device, sample, model_flags)
    out["load_average_after"] = os.getloadavg()[0]
    return out


def _model_run(jk: list[str], tmp: Path, model_chunks: int, chunks: int, device: str | None,
               sample: int, flags: tuple[str, ...]) -> dict[str, Any]:
    corpus = tmp / "corpus"
    if model_chunks < chunks:  # a smaller corpus where the model is slow (a CPU)
        corpus = tmp / "model-corpus"
        build_corpus(corpus, model_chunks)
    idx = tmp / "model-idx"
    cmd = [*jk, "index", str(corpus), "--out", str(idx), "--json", *flags] + (["--device", device] if device else [])
    with GpuBusy() as busy:
        wall, text = _run(cmd, _env())
    stats = json.loads(text)
    shares = {name: round(stats[key] / wall, 3) for name, key in
              (("scan", "scan_seconds"), ("tokenise", "tokenize_seconds"), ("encode", "embed_seconds"),
               ("write", "write_seconds"), ("load", "load_seconds"))}
    result: dict[str, Any] = {
        "chunks": stats["embedded"], "files": stats["files"], "wall_s": round(wall, 3),
        "chunks_per_s_by_wall": round(stats["embedded"] / wall, 1), "stage_share_of_wall": shares,
        "gpu_busy_share": busy.share() if busy.samples else "n/a",
        "device": stats["device"], "backend": stats["backend"], "dtype": stats["dtype"],
        "implementation": stats["implementation"], "workers": stats["workers"],
        "embed_chunks_per_s": stats["embed_chunks_per_s"], "command_stats": stats,
    }
    result.update(_against_plain(idx, stats["device"], sample))
    return result


def _against_plain(idx: Path, device: str, sample: int) -> dict[str, Any]:
    """Stored vectors of a sample of chunks against plain sentence-transformers fp32."""
    from sentence_transformers import SentenceTransformer

    from judgekit.index.chunking import embedding_text
    from judgekit.index.embed import resolve_model
    from judgekit.index.store import read_index

    stored = read_index(idx)
    picks = np.linspace(0, len(stored.chunks) - 1, min(sample, len(stored.chunks))).astype(int)
    texts = [embedding_text(stored.chunks[i]) for i in picks]
    plain = SentenceTransformer(resolve_model(None)[1], device=device.split(":")[0] if device else "cpu")
    ref = plain.encode(texts, batch_size=32, normalize_embeddings=True)
    cos = (np.asarray(ref, dtype=np.float32) * stored.vectors[picks]).sum(axis=1)
    return {"sample": len(texts), "mean_cosine_to_plain_fp32": round(float(cos.mean()), 6),
            "min_cosine_to_plain_fp32": round(float(cos.min()), 6)}
