"""Speed and quality of ``judgekit index`` against plain sentence-transformers, same corpus, same run.

The corpus is real code: the installed sources of a few libraries (``jsonschema``,
``tenacity``, ``git`` ... whichever are present), copied into a temporary tree and cut to
about ``--chunks`` chunks. Measured side by side in one run (the machine may be shared;
the ratios cancel most of its load):

* **whole command**: ``judgekit index CORPUS --out IDX --json`` in a fresh process (imports,
  model load, scanning, chunking, embedding, writing), against a plain script in a fresh
  process: import sentence-transformers, load the model, cut the same files into 40-line
  windows and ``encode(batch_size=32)`` in fp32; the plain encode call alone is reported
  too, and the ratio against it is the strict one.
* **embedding stage**: judgekit's embedder against ``SentenceTransformer.encode`` fp32
  batch 32 on judgekit's own chunk texts, alternating slices; on a GPU also fp16 batch 512.
* **quality**: mean cosine of judgekit's vectors to fp32 ones of the same texts, top-5
  overlap of docstring queries under both, and hit@5 on docstring queries (query: a
  function's first docstring line; hit: a top-5 chunk overlaps the function) for plain
  fp32 on 40-line windows (before), fp32 on token-fitted chunks (the chunking alone), and
  the index as judgekit builds it (after); ``--source-form`` adds fp32 on the same chunks
  embedded as written rather than read as words (:mod:`judgekit.index.text`), and
  ``--full-window`` fp32 on chunks sized to the model's whole window rather than half of
  it (encode time and hit@5). Queries of
  judgekit's chunks take the index's text form, as ``judgekit`` search does.
* **torch backend** (``--torch-backend``): the whole ``judgekit index --backend torch``
  command on a small corpus (the first library, about ``--torch-chunks`` windows), with the
  model run by judgekit's own BERT encoder against the same command with
  sentence-transformers running it, alternating; and the import times of torch and of
  sentence-transformers in fresh processes.

The one-time int8 ONNX export is made (and timed) before anything is measured.

* **pipeline** (``--pipeline``, nothing else then): the whole command on a large corpus of
  installed packages, with the zero encoder of the test hook and with the model: rates,
  each stage's share, the GPU's busy share (:mod:`index_pipeline`; ``bench/index_gpu.sh``
  runs it on a GPU).

Usage:
    python bench/index_speed.py [--chunks 1500] [--slices 4] [--libraries rich jinja2] [--json]
    python bench/index_speed.py --pipeline [--pipeline-chunks 50000] [--model-chunks 3000] [--json]
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import itertools
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judgekit.index.chunking import embedding_text, window_chunks  # noqa: E402
from judgekit.index.embed import get_embedder, resolve_model  # noqa: E402
from judgekit.index.files import candidate_files, read_source  # noqa: E402
from judgekit.index.models import Chunk  # noqa: E402
from judgekit.index.store import read_index  # noqa: E402
from judgekit.index.text import SOURCE, code_words  # noqa: E402

LIBRARIES = ("jsonschema", "tenacity", "git", "click", "requests", "rich", "jinja2")
PLAIN_SCRIPT = r"""
import json, os, sys, time
os.environ.setdefault("HF_HUB_OFFLINE", "1")
texts = json.load(open(sys.argv[2]))
from sentence_transformers import SentenceTransformer
import numpy as np
model = SentenceTransformer(sys.argv[1], device="cpu")
began = time.perf_counter()
vectors = model.encode(texts, batch_size=32, normalize_embeddings=True)
print(json.dumps({"encode_s": time.perf_counter() - began}))
np.save(sys.argv[3], vectors)
"""

#: ``judgekit`` with the torch backend's network forced to sentence-transformers (``st``) or not.
TORCH_DRIVER = r"""
import sys
import judgekit.index.embed as embed
if sys.argv[1] == "st":
    embed._native_model = lambda source, device: (None, "forced by the benchmark")
from judgekit.cli import main
raise SystemExit(main(sys.argv[2:]))
"""


def make_corpus(dest: Path, target_chunks: int, libraries: tuple[str, ...] = LIBRARIES) -> list[str]:
    """Copy library sources into ``dest`` until ~``target_chunks`` 40-line windows; their names."""
    used: list[str] = []
    count = 0
    for name in libraries:
        spec = importlib.util.find_spec(name)
        if not spec or not spec.submodule_search_locations:
            continue
        src = Path(next(iter(spec.submodule_search_locations)))
        used.append(name)
        for rel in candidate_files(src):
            if not rel.endswith(".py") or count >= target_chunks:
                continue
            text = read_source(src / rel)
            if not text:
                continue
            out = dest / name / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text, encoding="utf-8")
            count += len(_windows(f"{name}/{rel}", text))
        if count >= target_chunks:
            break
    return used


def _windows(path: str, text: str) -> list[Chunk]:
    lines = text.splitlines()
    return window_chunks(path, lines, 1, len(lines), "window") if lines else []


def corpus_files(root: Path) -> dict[str, str]:
    return {rel: read_source(root / rel) or "" for rel in candidate_files(root)}


def docstring_queries(files: dict[str, str], limit: int) -> list[tuple[str, str, int, int]]:
    """``(query, path, start, end)`` for functions whose docstring's first line has ≥ 4 words."""
    out = []
    for rel, text in files.items():
        if not rel.endswith(".py"):
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node) or ""
                first = doc.strip().splitlines()[0].strip() if doc.strip() else ""
                if len(first.split()) >= 4:
                    out.append((first, rel, node.lineno, node.end_lineno or node.lineno))
    if len(out) > limit:
        picks = np.linspace(0, len(out) - 1, limit).astype(int)
        out = [out[i] for i in picks]
    return out


def hit_at_5(vectors: np.ndarray, chunks: list[Chunk], qvecs: np.ndarray, queries: list) -> float:
    hits = 0
    top = np.argsort(-(qvecs @ vectors.T), axis=1)[:, :5]
    for row, (_, path, start, end) in zip(top, queries, strict=True):
        if any(chunks[i].path == path and chunks[i].start_line <= end and chunks[i].end_line >= start for i in row):
            hits += 1
    return hits / len(queries) if queries else 0.0


def top5_overlap(a: np.ndarray, b: np.ndarray, qa: np.ndarray, qb: np.ndarray) -> float:
    ta = np.argsort(-(qa @ a.T), axis=1)[:, :5]
    tb = np.argsort(-(qb @ b.T), axis=1)[:, :5]
    return float(np.mean([len(set(x) & set(y)) / 5 for x, y in zip(ta, tb, strict=True)]))


def timed_run(cmd: list[str]) -> tuple[float, str]:
    began = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=ROOT)
    wall = time.perf_counter() - began
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])}... failed: {proc.stderr.strip()[-500:]}")
    return wall, proc.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=1500, help="corpus size in 40-line windows")
    parser.add_argument("--slices", type=int, default=4, help="alternations in the embedding-stage comparison")
    parser.add_argument("--stage-chunks", type=int, default=600, help="texts in the embedding-stage comparison")
    parser.add_argument("--queries", type=int, default=150)
    parser.add_argument("--libraries", nargs="+", default=list(LIBRARIES), metavar="NAME",
                        help="installed packages whose sources make the corpus, in order")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--full-window", action="store_true",
                        help="also chunk to the model's whole window (fp32 encode time and "
                             "hit@5): what sizing chunks to half of it changes")
    parser.add_argument("--torch-backend", action="store_true",
                        help="also time the whole command with --backend torch, judgekit's BERT "
                             "encoder against sentence-transformers, on a small corpus")
    parser.add_argument("--torch-chunks", type=int, default=300, help="size of that corpus in 40-line windows")
    parser.add_argument("--source-form", action="store_true",
                        help="also embed judgekit's chunks as written (fp32) for hit@5: what "
                             "reading code as words changes")
    parser.add_argument("--pipeline", action="store_true",
                        help="measure only the whole command on a large corpus of installed packages: "
                             "its rate with the zero encoder and with the model, stage shares, GPU busy "
                             "share (bench/index_pipeline.py)")
    parser.add_argument("--pipeline-chunks", type=int, default=50000, help="corpus size for --pipeline")
    parser.add_argument("--model-chunks", type=int, default=None,
                        help="corpus size for the run with the model (default: --pipeline-chunks)")
    parser.add_argument("--device", default=None, help="--device of the run with the model")
    parser.add_argument("--rounds", type=int, default=2, help="runs with the zero encoder (0: only the model's run)")
    parser.add_argument("--model-flags", default="", metavar="FLAGS",
                        help="more flags of the run with the model, one string: '--backend torch --dtype float32'")
    parser.add_argument("--sample", type=int, default=2000, help="chunks compared with plain fp32")
    parser.add_argument("--out", default=None, help="also write the JSON result to this file")
    args = parser.parse_args()

    if args.pipeline:
        from index_pipeline import pipeline

        figures = pipeline(args.pipeline_chunks, args.model_chunks or args.pipeline_chunks, args.device,
                           args.rounds, args.sample, tuple(shlex.split(args.model_flags)))
        text = json.dumps(figures, indent=1)
        if args.out:
            Path(args.out).write_text(text + "\n")
        print(text if args.json else "\n".join(f"{k:34} {v}" for k, v in figures.items()))
        return 0

    result: dict[str, object] = {}
    began = time.perf_counter()
    emb = get_embedder()  # makes the int8 export once, if it is missing
    result["first_load_s"] = round(time.perf_counter() - began, 2)
    result["export_s"] = emb.export_seconds
    result.update(backend=emb.backend, dtype=emb.dtype, device=emb.device, fallback=emb.fallback)
    model_dir = resolve_model(None)[1]

    with tempfile.TemporaryDirectory(prefix="index-bench-") as tmp:
        tmp_p = Path(tmp)
        corpus = tmp_p / "corpus"
        result["corpus"] = "+".join(make_corpus(corpus, args.chunks, tuple(args.libraries)))
        files = corpus_files(corpus)
        plain_chunks = [c for rel, text in files.items() for c in _windows(rel, text)]
        plain_texts = [embedding_text(c, SOURCE) for c in plain_chunks]
        (tmp_p / "plain.json").write_text(json.dumps(plain_texts))  # 40-line windows
        (tmp_p / "plain.py").write_text(PLAIN_SCRIPT)

        # Whole command against plain scripts, alternated: judgekit, plain on 40-line windows of
        # the same files, plain on judgekit's own chunk texts, judgekit.
        jk_walls, stats = [], {}
        plain: dict[str, tuple[float, float]] = {}
        jk_texts: list[str] = []
        for turn in ("judgekit", "windows", "same", "judgekit"):
            if turn == "judgekit":
                shutil.rmtree(tmp_p / "idx", ignore_errors=True)
                wall, out = timed_run([sys.executable, "-m", "judgekit", "index", str(corpus), "--out", str(tmp_p / "idx"), "--json"])
                jk_walls.append(wall)
                stats = json.loads(out)
                if not jk_texts:
                    jk_texts = [embedding_text(c) for c in read_index(tmp_p / "idx").chunks]
                    (tmp_p / "same.json").write_text(json.dumps(jk_texts))
                continue
            source = "plain.json" if turn == "windows" else "same.json"
            wall, out = timed_run([sys.executable, str(tmp_p / "plain.py"), model_dir, str(tmp_p / source),
                                   str(tmp_p / f"{turn}.npy")])
            plain[turn] = (wall, json.loads(out.strip().splitlines()[-1])["encode_s"])
        jk_wall = float(np.mean(jk_walls))
        result.update(
            plain_chunks=len(plain_texts), judgekit_chunks=stats["chunks"],
            judgekit_command_s=round(jk_wall, 2), judgekit_command_runs_s=[round(w, 2) for w in jk_walls],
            judgekit_reported_chunks_per_s=stats["chunks_per_s"], judgekit_embed_chunks_per_s=stats["embed_chunks_per_s"],
            plain_windows_script_s=round(plain["windows"][0], 2), plain_windows_encode_s=round(plain["windows"][1], 2),
            plain_same_texts_script_s=round(plain["same"][0], 2), plain_same_texts_encode_s=round(plain["same"][1], 2),
            speedup_vs_plain_encode_same_texts=round(plain["same"][1] / jk_wall, 2),
            speedup_vs_plain_encode_windows=round(plain["windows"][1] / jk_wall, 2),
            speedup_vs_plain_script_windows=round(plain["windows"][0] / jk_wall, 2),
        )

        # Embedding stage on a spread of judgekit's chunk texts, alternating slices.
        from sentence_transformers import SentenceTransformer

        stored = read_index(tmp_p / "idx")
        st = SentenceTransformer(model_dir, device=emb.device if emb.backend == "torch" else "cpu")
        picks = np.linspace(0, len(jk_texts) - 1, min(args.stage_chunks, len(jk_texts))).astype(int)
        stage, _, got = _stage(emb, st, [jk_texts[i] for i in picks], args.slices)
        result.update(stage)
        result["index_equals_stage_vectors"] = bool(np.allclose(got, stored.vectors[picks], atol=1e-4))
        ref_fit = np.load(tmp_p / "same.npy")

        # Quality: the built index against fp32 vectors of the same chunks and of 40-line windows.
        ref_plain = np.load(tmp_p / "windows.npy")
        queries = docstring_queries(files, args.queries)
        q_texts = [q for q, *_ in queries]
        q_ref = st.encode(q_texts, batch_size=32, normalize_embeddings=True)
        q_words = [code_words(q) for q in q_texts]  # judgekit queries an index in its text form
        q_ref_words = st.encode(q_words, batch_size=32, normalize_embeddings=True)
        q_jk = emb.encode(q_words)
        cos = (ref_fit * stored.vectors).sum(axis=1)
        result.update(
            queries=len(queries),
            mean_cosine_to_fp32=round(float(cos.mean()), 5), min_cosine_to_fp32=round(float(cos.min()), 5),
            top5_overlap=round(top5_overlap(stored.vectors, ref_fit, q_jk, q_ref_words), 4),
            hit5_plain_fp32_40_line_windows=round(hit_at_5(ref_plain, plain_chunks, q_ref, queries), 4),
            hit5_fp32_token_fitted_chunks=round(hit_at_5(ref_fit, stored.chunks, q_ref_words, queries), 4),
            hit5_judgekit=round(hit_at_5(stored.vectors, stored.chunks, q_jk, queries), 4),
        )
        if args.source_form:  # the same chunks embedded as written (fp32), queried as written
            src = st.encode([embedding_text(c, SOURCE) for c in stored.chunks], batch_size=32,
                            normalize_embeddings=True)
            result["hit5_fp32_token_fitted_chunks_source_text"] = round(
                hit_at_5(src, stored.chunks, q_ref, queries), 4)
        if args.full_window:  # chunks sized to the model's whole window, fp32, as words
            from judgekit.index.scan import Chunker
            from judgekit.index.tokens import ModelTokenizer

            whole = Chunker(ModelTokenizer.from_dir(model_dir, emb.max_length), emb.max_length)
            wchunks = [c for rel, text in files.items() for c in whole.chunk(rel, text)]
            wtexts = [embedding_text(c) for c in wchunks]
            began_w = time.perf_counter()
            wvecs = st.encode(wtexts, batch_size=32, normalize_embeddings=True)
            result.update(
                full_window_chunks=len(wchunks),
                full_window_fp32_encode_s=round(time.perf_counter() - began_w, 2),
                half_window_fp32_encode_s=round(plain["same"][1], 2),
                hit5_fp32_full_window_chunks=round(hit_at_5(wvecs, wchunks, q_ref_words, queries), 4))
        tok = emb.tokenizer
        if tok is not None:
            full = tok.line_tokens(plain_texts)
            result["plain_windows_truncated"] = round(float(np.mean([n + 2 > emb.max_length for n in full])), 4)
            fitted = tok.line_tokens(jk_texts)
            result["judgekit_chunks_truncated"] = round(float(np.mean([n + 2 > emb.max_length for n in fitted])), 4)
            result["plain_tokens_embedded"] = int(sum(min(n + 2, emb.max_length) for n in full))
            result["judgekit_tokens_embedded"] = int(sum(min(n + 2, emb.max_length) for n in fitted))
            written = tok.line_tokens([embedding_text(c, SOURCE) for c in stored.chunks])
            result["judgekit_tokens_as_written"] = int(sum(min(n + 2, emb.max_length) for n in written))
        if args.torch_backend:
            result["torch_backend"] = _torch_backend(tmp_p, args.libraries, args.torch_chunks)
    result["gpu"] = _gpu_stage(jk_texts, args.slices)

    if args.json:
        print(json.dumps(result))
        return 0
    for key, value in result.items():
        print(f"{key:34} {value}")
    return 0


def _torch_backend(tmp: Path, libraries: list[str], chunks: int, rounds: int = 2) -> dict[str, object]:
    """Whole ``judgekit index --backend torch`` runs: judgekit's encoder against sentence-transformers."""
    corpus = tmp / "torch-corpus"
    used = make_corpus(corpus, chunks, tuple(libraries))
    driver = tmp / "torch_driver.py"
    driver.write_text(f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n{TORCH_DRIVER}")
    walls: dict[str, list[float]] = {"judgekit-bert": [], "sentence-transformers": []}
    stats: dict[str, dict[str, Any]] = {}
    for _ in range(rounds):
        for which, flag in (("judgekit-bert", "own"), ("sentence-transformers", "st")):
            shutil.rmtree(tmp / "torch-idx", ignore_errors=True)
            wall, out = timed_run([sys.executable, str(driver), flag, "index", str(corpus), "--out",
                                   str(tmp / "torch-idx"), "--backend", "torch", "--json"])
            walls[which].append(wall)
            stats[which] = json.loads(out)
    imports = {}
    for module in ("torch", "sentence_transformers"):
        imports[module] = min(timed_run([sys.executable, "-c", f"import {module}"])[0] for _ in range(rounds))
    own, st = (float(np.mean(walls[k])) for k in ("judgekit-bert", "sentence-transformers"))
    return {
        "corpus": "+".join(used), "chunks": stats["judgekit-bert"]["chunks"],
        "implementations": [stats[k]["implementation"] for k in walls],
        "judgekit_bert_command_s": round(own, 2), "sentence_transformers_command_s": round(st, 2),
        "command_ratio": round(own / st, 2),
        "judgekit_bert_load_s": stats["judgekit-bert"]["load_seconds"],
        "sentence_transformers_load_s": stats["sentence-transformers"]["load_seconds"],
        "judgekit_bert_embed_chunks_per_s": stats["judgekit-bert"]["embed_chunks_per_s"],
        "sentence_transformers_embed_chunks_per_s": stats["sentence-transformers"]["embed_chunks_per_s"],
        "import_torch_s": round(imports["torch"], 2),
        "import_sentence_transformers_s": round(imports["sentence_transformers"], 2),
    }


def _stage(emb: Any, st: Any, texts: list[str], slices: int) -> tuple[dict[str, object], np.ndarray, np.ndarray]:
    """Plain fp32 batch 32 and judgekit on the same texts, alternating slices; both sets of vectors."""
    bounds = np.linspace(0, len(texts), slices + 1).astype(int)
    st.encode(texts[:32], batch_size=32)
    emb.encode(texts[:32])
    ref = np.zeros((len(texts), emb.dim), dtype=np.float32)
    got = np.zeros((len(texts), emb.dim), dtype=np.float32)
    t_base = t_jk = 0.0
    for lo, hi in itertools.pairwise(bounds.tolist()):
        part = texts[lo:hi]
        t0 = time.perf_counter()
        ref[lo:hi] = st.encode(part, batch_size=32, normalize_embeddings=True)
        t_base += time.perf_counter() - t0
        t0 = time.perf_counter()
        got[lo:hi] = emb.encode(part)
        t_jk += time.perf_counter() - t0
    figures = {
        "stage_texts": len(texts),
        "stage_plain_fp32_b32_chunks_per_s": round(len(texts) / t_base, 1),
        "stage_judgekit_chunks_per_s": round(len(texts) / t_jk, 1),
        "stage_speedup": round(t_base / t_jk, 2),
        "stage_threads_chosen": getattr(emb, "last_threads", None),
    }
    return figures, ref, got


def _gpu_stage(texts: list[str], slices: int) -> dict[str, object] | None:
    """On CUDA: judgekit (torch, fp16) against plain fp32 batch 32 and fp16 batch 512."""
    import torch

    if not torch.cuda.is_available():
        return None
    from sentence_transformers import SentenceTransformer

    from judgekit.index.embed import Embedder
    from judgekit.index.gpu import UtilisationSampler

    model_dir = resolve_model(None)[1]
    jk = Embedder(None, device="cuda")
    fp32 = SentenceTransformer(model_dir, device="cuda")
    fp16 = SentenceTransformer(model_dir, device="cuda").half()
    runs = {
        "plain_fp32_b32": lambda t: fp32.encode(t, batch_size=32, normalize_embeddings=True),
        "plain_fp16_b512": lambda t: fp16.encode(t, batch_size=512, normalize_embeddings=True),
        "judgekit": jk.encode,
    }
    for run in runs.values():
        run(texts[:512])
    out: dict[str, object] = {"name": torch.cuda.get_device_name(0), "texts": len(texts), "judgekit_dtype": jk.dtype}
    vecs = {}
    for name, run in runs.items():
        with UtilisationSampler(0) as sampler:
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            vecs[name] = np.asarray(run(texts))
            torch.cuda.synchronize()
            seconds = time.perf_counter() - t0
        out[f"{name}_chunks_per_s"] = round(len(texts) / seconds, 1)
        out[f"{name}_gpu_utilisation"] = sampler.mean()
    cos = (vecs["judgekit"] * vecs["plain_fp32_b32"]).sum(axis=1)
    out["mean_cosine_to_fp32"] = round(float(cos.mean()), 5)
    return out


if __name__ == "__main__":
    raise SystemExit(main())
