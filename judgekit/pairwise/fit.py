"""Cut the diffs of a pair to a size by whole hunks, both sides by one rule.

Every diff gets the same ceiling (water-filling: a diff under the ceiling is shown whole
and leaves its share to the others), and each diff over it keeps its hunks in order while
they fit, dropping whole hunks; every file keeps its header, and a marker says what was
left out. Both solutions are cut by the same rule, so neither is favoured by the cut.

Example:
    >>> diff = ("diff --git a/x.py b/x.py\\n--- a/x.py\\n+++ b/x.py\\n"
    ...         "@@ -1 +1 @@\\n-a\\n+b\\n@@ -9 +9 @@\\n-" + "c" * 200 + "\\n+d\\n")
    >>> cut = cut_by_hunks(diff, 120)
    >>> "@@ -1 +1 @@" in cut, "@@ -9 +9 @@" in cut, "1 hunk (3 lines) left out" in cut
    (True, False, True)
    >>> ceiling([100, 500, 900], 1000)
    450
"""

from __future__ import annotations

from collections.abc import Sequence

#: what a marker says ends with this, so a reader (and the judge) knows why.
WHY = "to fit the judge's context window"


def _sections(diff: str) -> list[tuple[list[str], list[list[str]]]]:
    """``(header lines, hunks)`` per file of a unified diff; text before the first file is
    a header of its own."""
    files: list[tuple[list[str], list[list[str]]]] = []
    header: list[str] = []
    hunks: list[list[str]] = []
    lines = diff.splitlines()
    for i, line in enumerate(lines):
        next_line = lines[i + 1] if i + 1 < len(lines) else ""
        new_file = line.startswith("--- ") and next_line.startswith("+++ ")
        if line.startswith("diff ") or (new_file and hunks):
            if header or hunks:
                files.append((header, hunks))
            header, hunks = [line], []
        elif line.startswith("@@"):
            hunks.append([line])
        elif hunks:
            hunks[-1].append(line)
        else:
            header.append(line)
    if header or hunks:
        files.append((header, hunks))
    return files


def _size(lines: Sequence[str]) -> int:
    return sum(len(line) + 1 for line in lines)


def _marker(hunks: int, lines: int) -> str:
    noun = "hunk" if hunks == 1 else "hunks"
    return f"[... {hunks} {noun} ({lines} lines) left out {WHY} ...]"


def cut_by_hunks(diff: str, max_chars: int) -> str:
    """``diff`` within about ``max_chars`` characters, cut by whole hunks (file headers
    and markers kept); unchanged when it fits."""
    if len(diff) <= max_chars:
        return diff
    files = _sections(diff)
    used = sum(_size(h) for h, _ in files)
    out: list[str] = []
    dropped_files = 0
    for header, hunks in files:
        keep: list[list[str]] = []
        left_out = [0, 0]
        for hunk in hunks:
            size = _size(hunk)
            if used + size <= max_chars:
                keep.append(hunk)
                used += size
            else:
                left_out[0] += 1
                left_out[1] += len(hunk)
        if _size(out) + _size(header) > max_chars and not keep:
            dropped_files += 1
            continue
        out.extend(header)
        for hunk in keep:
            out.extend(hunk)
        if left_out[0]:
            out.append(_marker(left_out[0], left_out[1]))
    if dropped_files:
        out.append(f"[... {dropped_files} more changed files left out {WHY} ...]")
    return "\n".join(out) + "\n"


def ceiling(sizes: Sequence[int], total: int) -> int:
    """The largest ceiling ``c`` with ``sum(min(size, c)) <= total`` (every size under it
    is kept whole)."""
    if sum(sizes) <= total:
        return max(sizes, default=0)
    ordered = sorted(sizes)
    left = total
    for i, size in enumerate(ordered):
        share = left // (len(ordered) - i)
        if size > share:
            return share
        left -= size
    return ordered[-1]


def fit_texts(texts: Sequence[str], total: int) -> list[str]:
    """Each diff of ``texts`` cut by the same ceiling so that together they take about
    ``total`` characters."""
    cap = ceiling([len(t) for t in texts], max(0, total))
    return [cut_by_hunks(t, cap) if len(t) > cap else t for t in texts]
