"""Where a quoted passage of an audit verdict sits in the texts the judge was shown: the
lookup of :mod:`judgekit.audit.quote_spans`, which the report's transcripts share.

Example:
    >>> find_quote('"division  by zero"', {"test output": "ZeroDivisionError: Division by zero"})
    ('test output', 19, 35)
"""

from __future__ import annotations

from judgekit.audit.quote_spans import find_quote

__all__ = ["find_quote"]
