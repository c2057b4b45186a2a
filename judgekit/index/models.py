"""Data shapes of the code index: chunks, hits, stats, context blocks and the manifest.

The pydantic models here are the single source of truth for the on-disk index format
(``manifest.json`` and ``chunks.jsonl``) and for the JSON the CLI prints.

Example:
    >>> Chunk(path="a.py", start_line=1, end_line=3, kind="function", text="def f(): ...").lines
    (1, 3)
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

#: What a chunk covers: a Python definition, module-level code, or a plain line window.
ChunkKind = Literal["function", "class", "method", "module", "window"]

#: Version of the on-disk layout; bumped when old indexes can no longer be read.
INDEX_FORMAT = 1


class Chunk(BaseModel):
    """A contiguous piece of one file: 1-based inclusive line range plus its text."""

    path: str = Field(description="Path relative to the indexed root, with '/' separators.")
    start_line: int = Field(ge=1)
    end_line: int = Field(ge=1)
    kind: ChunkKind
    text: str
    name: str | None = Field(default=None, description="Qualified name of a definition.")

    @property
    def lines(self) -> tuple[int, int]:
        return (self.start_line, self.end_line)


class Hit(BaseModel):
    """One search result: a chunk and its cosine similarity to the query."""

    path: str
    start_line: int
    end_line: int
    score: float
    kind: ChunkKind
    text: str


class IndexStats(BaseModel):
    """What one :func:`build_index` call did, how fast, and with which numerics."""

    files: int = Field(description="Files in the index after this build.")
    refused_paths: int = Field(default=0, description=(
        "Files left out because they lead outside the indexed root (a link pointing out)."))
    chunks: int = Field(description="Chunks in the index after this build.")
    embedded: int = Field(description="Chunks embedded by this build (new or changed files).")
    seconds: float = Field(description="Wall time of the whole build (or, from the CLI, the whole command).")
    chunks_per_s: float = Field(description="Embedded chunks per second of the whole build (or command).")
    embed_chunks_per_s: float = Field(default=0.0, description="Embedded chunks per second of embedding time.")
    scan_seconds: float = Field(default=0.0, description=(
        "Listing, reading, hashing and chunking files: from the start of the scan to its last file "
        "(overlapped with embedding)."))
    scan_cpu_seconds: float = Field(default=0.0, description=(
        "CPU time the scan took, over its worker processes (or this process): what it costs on an idle machine."))
    cpu_seconds: float | None = Field(default=None, description=(
        "CPU time of the whole command: this process from its start and the scan's worker processes "
        "(from the CLI only)."))
    load_seconds: float = Field(default=0.0, description="Loading the model in this call (0 when already loaded).")
    export_seconds: float = Field(default=0.0, description="Making the int8 ONNX copy of the model (first use only).")
    tokenize_seconds: float = Field(default=0.0, description=(
        "Turning the chunks' texts into token ids for the model (overlapped with the model's work)."))
    embed_seconds: float = Field(default=0.0, description=(
        "Time the build spent on the model: waiting on the embedder, less the time the embedder "
        "itself waited for files (or, streaming, for tokenised groups)."))
    write_seconds: float = Field(default=0.0, description="Writing the index (checkpoints included).")
    device: str
    model: str
    dtype: str = Field(default="float32", description="Numerics the model runs in: float32, float16, bfloat16 or int8.")
    backend: str = Field(default="torch", description="onnx (onnxruntime) or torch.")
    implementation: str | None = Field(default=None, description=(
        "The code that ran the model: onnxruntime (the int8 copy), judgekit-bert (judgekit's own "
        "torch BERT encoder) or sentence-transformers."))
    fallback: str | None = Field(default=None, description="Why the onnx backend was not used, when it was wanted.")
    probe_min_cosine: float | None = Field(
        default=None, description="Worst cosine of reduced-precision probe embeddings to a true fp32 model."
    )
    gpu_utilisation: float | None = Field(default=None, description="Mean GPU utilisation (0..1) while embedding.")
    chunk_tokens: int | None = Field(default=None, description="Token budget chunks were sized to (None: by lines).")
    workers: int = Field(default=1, description="Processes that read, hashed and chunked files.")
    scan_fallback: str | None = Field(default=None, description=(
        "Why the files were chunked in this process rather than by worker processes, when "
        "the worker pool broke."))


class ContextBlock(BaseModel):
    """Code context for a prompt: markdown text, the files it draws on, its token estimate."""

    text: str
    files: list[str]
    tokens: int


class FileEntry(BaseModel):
    """One indexed file in the manifest: its content hash and its rows in the vector table."""

    sha256: str
    first: int = Field(ge=0, description="Row of the file's first chunk.")
    count: int = Field(ge=0, description="Number of chunks of the file.")


class Manifest(BaseModel):
    """``manifest.json``: what an index directory holds and how it was built."""

    format: int = INDEX_FORMAT
    root: str
    model: str
    dim: int
    chunks: int
    files: dict[str, FileEntry]
    chunk_tokens: int | None = Field(default=None, description="Token budget chunks were sized to (None: by lines).")
    backend: str | None = Field(default=None, description="Backend that embedded the chunks.")
    dtype: str | None = Field(default=None, description="Numerics the chunks were embedded in.")
    text: str | None = Field(default=None, description=(
        "How a chunk became the text embedded: 'words-2' (code read as words, see "
        "judgekit.index.text), 'words' (the same with the word self kept) or 'source' / null "
        "(as written). Queries take the same form."))
