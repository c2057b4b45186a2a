"""Diff paths read from file headers alone, and cargo result lines found without scanning the
whole output with a regex, give what parsing every line gives."""

from __future__ import annotations

import random
import re

from judgekit.diffs import _touched, files_touched, parse_diff, patch_paths
from judgekit.scoring.parsers import Counts, parse_cargo

HEADERS = [
    "diff --git a/{p} b/{p}\nindex 1..2 100644\n--- a/{p}\n+++ b/{p}\n",
    "diff --git a/{p} b/{p}\nnew file mode 100644\n--- /dev/null\n+++ b/{p}\n",
    "diff --git a/{p} b/{p}\ndeleted file mode 100644\n--- a/{p}\n+++ /dev/null\n",
    "diff --git a/{p} b/{p}.new\nsimilarity index 90%\nrename from {p}\nrename to {p}.new\n",
    "diff --git a/{p} b/{p}\nBinary files a/{p} and b/{p} differ\n",
    'diff --git "a/{p}\\303\\251" "b/{p}\\303\\251"\n--- "a/{p}\\303\\251"\n+++ "b/{p}\\303\\251"\n',
    "diff --git a/{p} b/{p}\nold mode 100644\nnew mode 100755\n",
    "diff --git a/{p} b/{p}\ncopy from {p}\ncopy to {p}2\n",
]
BODIES = ["", "@@ -1,2 +1,2 @@\n-a\n+b\n c\n", "@@ -1 +1 @@\n-x = \"/dev/null\"\n+y\n",
          "@@ -3 +3 @@\n-\n+rename from nowhere\n", "@@ -1 +1 @@\n-Binary files\n+\"q\"\n",
          "@@ -1,2 +1,2 @@\n-a\n+\n"]


def _reference(diff: str) -> tuple[str, ...]:
    return tuple(sorted(patch_paths(parse_diff(diff, with_hunks=False))))


def test_header_scan_gives_the_parsed_paths():
    rng = random.Random(3)
    for _ in range(3000):
        diff = "".join(rng.choice(HEADERS).format(p=f"src/m{i}.py") + rng.choice(BODIES)
                       for i in range(rng.randint(1, 4)))
        if rng.random() < 0.2:
            diff = diff.replace("\n", "\r\n")
        _touched.cache_clear()
        kept, left = _touched(diff, ())
        assert tuple(sorted(kept + left)) == _reference(diff), diff
        assert files_touched(diff, ()) == list(kept)


_CARGO = re.compile(
    r"^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored;", re.MULTILINE)


def _regex_cargo(output: str) -> Counts | None:
    results = _CARGO.findall(output)
    if not results:
        return None
    lines = [m.group(0) for m in re.finditer(r"^test result: .*$", output, re.MULTILINE)]
    return Counts("cargo", passed=sum(int(r[0]) for r in results),
                  failed=sum(int(r[1]) for r in results),
                  skipped=sum(int(r[2]) for r in results),
                  evidence=lines[-1].strip().strip("=").strip())


def test_cargo_lines_as_the_regex_finds_them():
    rng = random.Random(8)
    pieces = ["test result: ok. 3 passed; 0 failed; 1 ignored; 0 measured",
              "test result: FAILED. 2 passed; 1 failed; 0 ignored;", "test result: ",
              "test result: ok. x passed;", "  test result: ok. 9 passed; 0 failed; 0 ignored;",
              "== test result: ok. 1 passed; 0 failed; 0 ignored; ==", "running 3 tests",
              "\n", "\r\n", "\n\n", ""]
    for _ in range(5000):
        output = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 9)))
        expected, got = _regex_cargo(output), parse_cargo(output)
        assert got == expected
        assert got is None or got.evidence == expected.evidence
