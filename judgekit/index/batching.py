"""Token-budget batches and a tokeniser running one group ahead of the model.

Texts are tokenised once, sorted by length and cut into batches whose padded size
(rows × width) stays under a token budget, so short chunks are never padded to the length
of long ones and every batch costs the device about the same. :func:`pipelined` tokenises
group n+1 in a background thread while the caller runs group n (the Rust tokenizer and
the inference runtimes release the GIL).

Example:
    >>> [b.rows.tolist() for b in token_batches([[1, 2, 3], [4], [5, 6]], budget=16, max_rows=8)]
    [[0, 2], [1]]
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

#: Widths are rounded up to a multiple of this (kernels like aligned shapes).
WIDTH_MULTIPLE = 8


@dataclass
class Batch:
    """Rows (positions in the group) and their padded ``input_ids`` / ``attention_mask``."""

    rows: np.ndarray
    input_ids: np.ndarray
    attention_mask: np.ndarray

    @property
    def tokens(self) -> int:
        """Real (unpadded) tokens in the batch."""
        return int(self.attention_mask.sum())


def token_batches(
    ids: Sequence[Sequence[int]], *, budget: int, max_rows: int, pad_id: int = 0, max_width: int | None = None,
    multiple: int = WIDTH_MULTIPLE,
) -> Iterator[Batch]:
    """Batches of ``ids`` longest first, each with ``rows × width <= budget`` (one row at least).

    Widths are rounded up to ``multiple`` (never past ``max_width``); padding is filled by
    one array operation per batch.
    """
    if not ids:
        return
    lengths = np.fromiter((len(x) for x in ids), dtype=np.int64, count=len(ids))
    order = np.argsort(-lengths, kind="stable")
    start = 0
    while start < len(order):
        longest = int(lengths[order[start]])
        width = -(-longest // multiple) * multiple
        if max_width is not None:
            width = max(longest, min(width, max_width))
        count = max(1, min(budget // max(width, 1), max_rows))
        rows = order[start : start + count]
        lens = lengths[rows]
        filled = np.arange(width) < lens[:, None]  # row-major: each row's tokens, in order
        input_ids = np.full((len(rows), width), pad_id, dtype=np.int64)
        input_ids[filled] = np.fromiter(itertools.chain.from_iterable(ids[i] for i in rows.tolist()),
                                        dtype=np.int64, count=int(lens.sum()))
        yield Batch(rows, input_ids, filled.astype(np.int64))
        start += count


def pipelined(
    texts: Sequence[str], encode: Callable[[Sequence[str]], list[list[int]]], group: int
) -> Iterator[tuple[int, list[list[int]]]]:
    """``(offset, ids)`` per group of ``group`` texts; the next group is tokenised meanwhile."""
    if not texts:
        return
    starts = list(range(0, len(texts), group))
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="judgekit-tokenize") as pool:
        pending = pool.submit(encode, texts[starts[0] : starts[0] + group])
        for n, lo in enumerate(starts):
            ids = pending.result()
            if n + 1 < len(starts):
                nxt = starts[n + 1]
                pending = pool.submit(encode, texts[nxt : nxt + group])
            yield lo, ids
