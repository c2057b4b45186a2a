"""The model's tokenizer, used directly (the Rust ``tokenizers`` library, no torch).

Batch encoding runs across all cores in Rust. Two shortcuts keep tokenising off the
critical path of long texts:

* a text far longer than the model's window is cut to ``max_length * CHARS_PER_TOKEN_CAP``
  characters before it is tokenised (the rare text that comes out shorter than the window
  is tokenised again whole, so the ids are exactly those of the whole text, truncated);
* per-line token counts (for sizing chunks) are counted without special tokens; for
  BERT-style word pieces the tokens of a run of lines are the sum of its lines' tokens,
  and a line's tokens the sum of its words' tokens, so each distinct word is tokenised
  once per process and lines are counted from that table (:func:`words_add_up` says
  when a ``tokenizer.json`` allows it).

Example:
    >>> tok = ModelTokenizer.from_dir(model_dir, max_length=256)   # doctest: +SKIP
    >>> tok.line_tokens(["def f(x):", "    return x"])             # doctest: +SKIP
    [6, 3]
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: Characters kept of a text before tokenising, per token of the window (code averages ~3).
CHARS_PER_TOKEN_CAP = 12


def allow_parallelism() -> None:
    """Let the Rust tokenizer use every core unless the user decided otherwise."""
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "true")


class ModelTokenizer:
    """Truncating, non-padding encoder of a model's ``tokenizer.json``."""

    def __init__(self, tokenizer: Any, max_length: int) -> None:
        self._tok = tokenizer
        self.max_length = max_length
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length)
        self.pad_id = int(tokenizer.token_to_id("[PAD]") or 0) if hasattr(tokenizer, "token_to_id") else 0
        self._plain: Any = None
        self._word_tokens: dict[str, int] | None = None
        # ids only: the fast batch encoder skips the offsets (tokenizers >= 0.20)
        self._batch: Any = getattr(tokenizer, "encode_batch_fast", None) or tokenizer.encode_batch

    @classmethod
    def from_dir(cls, model_dir: str | Path, max_length: int) -> ModelTokenizer | None:
        """The tokenizer of a model directory, or ``None`` when it has no ``tokenizer.json``."""
        path = Path(model_dir) / "tokenizer.json"
        if not path.is_file():
            return None
        from tokenizers import Tokenizer

        return cls(Tokenizer.from_file(str(path)), max_length)

    def encode(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids of each text (special tokens added, truncated to the window)."""
        cap = self.max_length * CHARS_PER_TOKEN_CAP
        cut = [t if len(t) <= cap else _cut(t, cap) for t in texts]
        batch = self._batch
        out = [e.ids for e in batch(cut)]
        again = [i for i, t in enumerate(texts) if len(t) > cap and len(out[i]) < self.max_length]
        if again:
            for i, e in zip(again, batch([texts[i] for i in again]), strict=True):
                out[i] = e.ids
        return out

    def line_tokens(self, lines: Sequence[str]) -> list[int]:
        """Tokens of each line, without special tokens and without truncation.

        For word-piece tokenizers that split on whitespace first, a line's tokens are the
        sum of its words' tokens: each distinct word is tokenised once per process and
        counted from a table after that (code repeats its words; tokenising every line
        was most of the time of chunking).
        """
        plain = self._plain_tokenizer()
        if self._word_tokens is None:
            return [len(e.ids) for e in plain.encode_batch(list(lines), add_special_tokens=False)]
        table = self._word_tokens
        joined = "".join(lines)
        if any(c in joined for c in _SEPARATORS):  # str.split splits there, the tokenizer does not
            return [len(e.ids) for e in plain.encode_batch(list(lines), add_special_tokens=False)]
        split = [line.split() for line in lines]
        new = list(set(" ".join(lines).split()).difference(table))
        if new:
            encode = getattr(plain, "encode_batch_fast", None) or plain.encode_batch
            for word, e in zip(new, encode(new, add_special_tokens=False), strict=True):
                table[word] = len(e.ids)
        get = table.__getitem__
        return [sum(map(get, words)) for words in split]

    def _plain_tokenizer(self) -> Any:
        if self._plain is None:
            from tokenizers import Tokenizer

            spec = self._tok.to_str()
            self._plain = Tokenizer.from_str(spec)
            self._plain.no_truncation()
            self._plain.no_padding()
            self._word_tokens = {} if words_add_up(json.loads(spec)) else None
        return self._plain

    def count(self, text: str) -> int:
        """Tokens of one text without special tokens (not truncated)."""
        return self.line_tokens([text])[0]


#: Characters ``str.split`` takes for whitespace that are not Unicode whitespace.
_SEPARATORS = ("\x1c", "\x1d", "\x1e", "\x1f")
#: Pieces of a ``tokenizer.json`` under which a text's tokens are the sum of its words' tokens.
ADDITIVE_NORMALIZERS = frozenset({"BertNormalizer", "Lowercase", "NFC", "NFD", "NFKC", "NFKD", "StripAccents"})
ADDITIVE_PRE_TOKENIZERS = frozenset({"BertPreTokenizer", "Whitespace", "WhitespaceSplit"})


def words_add_up(spec: dict[str, Any]) -> bool:
    """True when a tokenizer (its ``tokenizer.json``) splits on whitespace before word pieces.

    Then the tokens of a text are the sum of the tokens of its whitespace-separated words.
    """
    def kinds(part: Any) -> list[str]:
        if part is None:
            return []
        if not isinstance(part, dict):
            return ["?"]
        if part.get("type") == "Sequence":
            inner = part["normalizers"] if "normalizers" in part else part.get("pretokenizers", [])
            return [k for p in inner for k in kinds(p)]
        return [str(part.get("type"))]

    model = spec.get("model") or {}
    pre = kinds(spec.get("pre_tokenizer"))
    return (model.get("type") == "WordPiece" and bool(pre)
            and all(k in ADDITIVE_PRE_TOKENIZERS for k in pre)
            and all(k in ADDITIVE_NORMALIZERS for k in kinds(spec.get("normalizer"))))


def _cut(text: str, cap: int) -> str:
    """``text`` cut to at most ``cap`` characters at a whitespace, so no word is split."""
    head = text[:cap]
    at = max(head.rfind(" "), head.rfind("\n"), head.rfind("\t"))
    return head[:at] if at > 0 else head
