"""Render the pairwise prompt from ``prompts/pairwise_system.md`` and ``pairwise_item.md``.

The system part is static (role, dimensions, output format, untrusted-data rule), so the
provider can cache it. The item part carries first what both orders share (the task, the
reference fix, the code context), then each solution's test outcome and diff, each fenced
with a fence longer than any backtick run inside it: the two orders of a pair differ only
in that last part (:attr:`Orders.shared`), and their common prefix is cached.

Example:
    >>> fence("x = 1", "diff")
    '```diff\\nx = 1\\n```'
    >>> fence("a ```` b")
    '`````\\na ```` b\\n`````'
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from string import Template

from judgekit._resources import data_dir, read_template
from judgekit.errors import ConfigError
from judgekit.pairwise.fit import ceiling, cut_by_hunks
from judgekit.pairwise.pairs import Candidate, PlannedPair

SYSTEM_FILE = "pairwise_system.md"
ITEM_FILE = "pairwise_item.md"


_BACKTICKS = re.compile(r"`+")


def _longest_backticks(text: str) -> int:
    if "`" not in text:
        return 0
    return max(len(m) for m in _BACKTICKS.findall(text))


def fence(content: str, info: str = "") -> str:
    """Fence ``content`` with more backticks than its longest backtick run (at least 3)."""
    longest = _longest_backticks(content)
    ticks = "`" * max(3, longest + 1)
    body = content if content.endswith("\n") or not content else content + "\n"
    return f"{ticks}{info}\n{body}{ticks}"


def inline_code(text: str) -> str:
    """``text`` as Markdown inline code, safe against backticks inside it."""
    ticks = "`" * (_longest_backticks(text) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def template(name: str) -> Template:
    """A prompt template of the ``prompts`` family (:func:`judgekit._resources.read_template`)."""
    return read_template(name)


def system_prompt() -> str:
    """The static system part of every pairwise request."""
    return _system(str(data_dir("prompts")))


@lru_cache(maxsize=4)
def _system(root: str) -> str:
    return template(SYSTEM_FILE).template.strip() + "\n"


def outcome_text(c: Candidate) -> str:
    """One line: the honest test status and what it rests on."""
    if c.test_status == "not run":
        return "not recorded"
    extra = []
    if c.tests_run is not None:
        extra.append(f"tests run: {c.tests_run}")
    if c.test_reason:
        extra.append(c.test_reason)
    return c.test_status + (f" ({'; '.join(extra)})" if extra else "")


#: default bound on the characters of one diff shown to the judge.
MAX_DIFF_CHARS = 40_000


def shorten(diff: str, max_chars: int = MAX_DIFF_CHARS) -> str:
    """``diff`` unchanged when short enough; else its first two thirds and last third of
    ``max_chars`` (whole lines) with a line saying how many lines were cut in between."""
    if len(diff) <= max_chars:
        return diff
    lines = diff.splitlines()
    head: list[str] = []
    size = 0
    for line in lines:
        if size + len(line) + 1 > max_chars * 2 // 3:
            break
        head.append(line)
        size += len(line) + 1
    tail: list[str] = []
    size = 0
    for line in reversed(lines[len(head):]):
        if size + len(line) + 1 > max_chars // 3:
            break
        tail.append(line)
        size += len(line) + 1
    tail.reverse()
    cut = len(lines) - len(head) - len(tail)
    return "\n".join(head + [f"[... {cut} lines of this diff cut for length ...]"] + tail) + "\n"


def _diff_block(diff: str) -> str:
    if not diff.strip():
        return "(no change: the diff is empty)"
    return fence(diff, "diff")


def _fields(pair: PlannedPair, reference: str | None, context: str | None,
            max_diff_chars: int, cuts: tuple[int, int] | None = None) -> dict[str, str]:
    """The template's fields for order 1 (``pair.a`` shown as Solution A); ``cuts``
    (``(diff ceiling, context ceiling)``) cuts the diffs by whole hunks and the code context
    by lines, to fit a context window."""
    task = pair.task
    diffs = [shorten(d, max_diff_chars) for d in (pair.a.diff, pair.b.diff, reference or "")]
    if cuts is not None:
        diffs = [cut_by_hunks(d, cuts[0]) for d in diffs]
        context = shorten(context, cuts[1]) if context and cuts[1] > 0 else None
    ref = ""
    if reference is not None:
        ref = ("\n## Reference fix\n\nThe fix the project's maintainers committed, for "
               "reference only: a different fix can be as good or better.\n\n"
               f"{_diff_block(diffs[2])}\n")
    ctx = ""
    if context:
        ctx = ("\n## Code around the changed lines\n\nFrom the repository before either "
               f"change, to judge its conventions.\n\n{fence(context)}\n")
    description = (task.description or "").strip()
    return dict(
        repository=task.repo or "(not recorded)",
        language=task.language or "(not recorded)",
        test_command=inline_code(task.test_command) if task.test_command else "(not recorded)",
        description=fence(description) if description else "(not recorded)",
        outcome_a=outcome_text(pair.a), outcome_b=outcome_text(pair.b),
        diff_a=_diff_block(diffs[0]), diff_b=_diff_block(diffs[1]),
        reference=ref, context=ctx,
    )


#: the template's fields that differ between the two orders.
ORDER_FIELDS = ("outcome_a", "outcome_b", "diff_a", "diff_b")
#: stands for the fields of one order while the template is rendered, to find the first.
_ORDER_MARK = "\x00order\x00"


@dataclass(frozen=True)
class Orders:
    """The prompts of a pair's two orders, and how many characters at their start both
    share: everything before the first field that differs between the orders (the task,
    the reference fix, the code context), the same for every pair of the task."""

    prompts: tuple[str, str]
    shared: int


def _orders(item: Template, fields: dict[str, str]) -> Orders:
    first, second = item.substitute(fields), item.substitute(_swapped(fields))
    marked = item.substitute({**fields, **dict.fromkeys(ORDER_FIELDS, _ORDER_MARK)})
    at = marked.find(_ORDER_MARK)
    if at < 0:  # a template without them: what the two prompts have in common
        at = len(os.path.commonprefix([first, second]))
    return Orders((first, second), marked.rfind("\n", 0, at) + 1)  # whole lines


#: the smallest share of a diff worth showing; a pair that leaves less is not sent.
MIN_DIFF_CHARS = 300
#: characters of fences, markers and headings around each cut block.
BLOCK_OVERHEAD = 200


def fitted_orders(pair: PlannedPair, max_chars: int, *, reference: str | None = None,
                  context: str | None = None,
                  max_diff_chars: int = MAX_DIFF_CHARS) -> Orders | None:
    """Both orders' prompts within ``max_chars`` characters: the diffs (and the reference
    fix) cut by whole hunks under one ceiling, the code context by lines; ``None`` when
    not even :data:`MIN_DIFF_CHARS` of each diff would fit."""
    whole = _fields(pair, reference, context, max_diff_chars)
    item = template(ITEM_FILE)
    blocks = [whole["diff_a"], whole["diff_b"], whole["reference"], whole["context"]]
    fixed = len(item.substitute(whole)) - sum(map(len, blocks))
    texts = [shorten(d, max_diff_chars) for d in (pair.a.diff, pair.b.diff, reference or "")]
    texts = [t for t in texts if t]
    room = max_chars - fixed - BLOCK_OVERHEAD * (len(texts) + bool(context))
    ctx_len = len(context or "")
    cap = ceiling([len(t) for t in texts] + ([ctx_len] if ctx_len else []), room)
    if cap < MIN_DIFF_CHARS:
        return None
    fields = _fields(pair, reference, context, max_diff_chars, cuts=(cap, min(cap, ctx_len)))
    return _orders(item, fields)


def _swapped(fields: dict[str, str]) -> dict[str, str]:
    return {**fields, "outcome_a": fields["outcome_b"], "outcome_b": fields["outcome_a"],
            "diff_a": fields["diff_b"], "diff_b": fields["diff_a"]}


def render_orders(pair: PlannedPair, *, reference: str | None = None,
                  context: str | None = None,
                  max_diff_chars: int = MAX_DIFF_CHARS) -> Orders:
    """The prompts of both orders: order 1 shows ``pair.a`` as Solution A, order 2 shows
    ``pair.b`` there. The fenced diffs and the task part are built once for both."""
    return _orders(template(ITEM_FILE), _fields(pair, reference, context, max_diff_chars))
