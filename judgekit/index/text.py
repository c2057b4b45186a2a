"""The text a chunk (and a query) is embedded as: code read as words.

To a word-piece tokenizer, code is mostly punctuation: every bracket, dot, colon, comma,
quote and underscore is a token of its own, and the model's window fills with them. The
embedding text keeps the words: each run of characters that are neither letters, digits
nor whitespace becomes one space, and underscores split identifiers (``get_embedder(x)``
is embedded as ``get embedder x``). The word ``self``, in nearly every method and meaning
nothing to a search, is left out (the most frequent token of Python code). Line breaks
stay, so a line's tokens still add up over a run of lines when chunks are sized.

Queries go through the same function (``batch_size`` finds ``batch size``), decided by the
index's ``text`` field, so an index embedded from the source text is still queried as
source text, and one embedded before ``self`` was left out keeps it in its queries. What
it does to speed and retrieval is measured by ``bench/index_speed.py``
(tokens embedded, hit@5 on docstring queries, against the source text form).

Example:
    >>> code_words("def get_embedder(name: str) -> Embedder:")
    'def get embedder name  str    Embedder '
    >>> code_words("self.cache[key]").split()
    ['cache', 'key']
"""

from __future__ import annotations

import re

#: The ``text`` of an index embedded through :func:`code_words`.
WORDS = "words-2"
#: The ``text`` of an index embedded as words with ``self`` kept (queried the same way).
WORDS_WITH_SELF = "words"
#: The ``text`` of an index embedded from the source text as it is.
SOURCE = "source"

_NOT_WORD = re.compile(r"[^\w\s]+")
_SELF = re.compile(r"\bself\b")


def _words(text: str) -> str:
    return _NOT_WORD.sub(" ", text).replace("_", " ")


def code_words(text: str) -> str:
    """``text`` with punctuation runs and underscores turned into spaces and the word
    ``self`` left out (lines kept)."""
    return _SELF.sub("", _words(text))


def as_embedded(text: str, form: str | None) -> str:
    """``text`` in the form an index of text form ``form`` embeds (``None``: source)."""
    if form == WORDS:
        return code_words(text)
    return _words(text) if form == WORDS_WITH_SELF else text
