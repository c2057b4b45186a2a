"""Small native run files and scripted judges for the pairwise tests."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from judgekit.ingest.models import RunResult, Task, TestResult
from judgekit.testing import Reply, prompt_of
from judgekit.testing.replies import schema_of

DIMS = ("consistency", "completeness", "minimality")

GOLD_DIFF = """diff --git a/src/calc.py b/src/calc.py
--- a/src/calc.py
+++ b/src/calc.py
@@ -1,2 +1,4 @@
 def div(a, b):
+    if b == 0:
+        return None
     return a / b
"""


def diff(marker: str, *, path: str = "src/calc.py", infra: bool = False) -> str:
    """A small diff adding a line that carries ``marker``, optionally with an infra file."""
    text = (f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
            f"@@ -1,2 +1,3 @@\n def div(a, b):\n+    # {marker}\n     return a / b\n")
    if infra:
        text += ("diff --git a/.bobbin/state.json b/.bobbin/state.json\nnew file mode 100644\n"
                 "--- /dev/null\n+++ b/.bobbin/state.json\n@@ -0,0 +1 @@\n+{\"INFRA\": 1}\n")
    return text


def result(task: str, arm: str, agent_diff: str | None, *, attempt: int = 0,
           passed: bool = True, description: str | None = "div crashes on zero") -> RunResult:
    output = "===== 3 passed in 0.1s =====" if passed else "===== 1 failed, 2 passed in 0.1s ====="
    return RunResult(
        task=Task(id=task, repo="acme/calc", language="python", description=description,
                  test_command="pytest tests/test_calc.py"),
        arm=arm, attempt=attempt, agent_diff=agent_diff, ground_truth_diff=GOLD_DIFF,
        test=TestResult(exit_code=0 if passed else 1, output=output, framework="pytest"),
        model="claude-x")


def write_runs(path: Path, results: list[RunResult]) -> Path:
    data = {"format": "judgekit.run/v1", "results": [r.model_dump(mode="json") for r in results]}
    path.write_text(json.dumps(data))
    return path


def verdict(winners: dict[str, str] | str) -> dict[str, Any]:
    if isinstance(winners, str):
        winners = {d: winners for d in DIMS}
    return {d: {"reasoning": f"because {d}", "winner": winners[d]} for d in DIMS}


def always(slot: str):
    """A judge with total position bias: it always answers ``slot``."""
    return lambda api, body: Reply.ok(verdict(slot))


def prefers(marker: str):
    """A fair judge: the solution whose diff carries ``marker`` wins every dimension."""
    def respond(api: str, body: dict[str, Any]) -> Reply:
        text = prompt_of(body)
        a = text.index("## Solution A")
        b = text.index("## Solution B")
        where = [m.start() for m in re.finditer(re.escape(marker), text)]
        in_a = any(a < w < b for w in where)
        in_b = any(w > b for w in where)
        slot = "A" if in_a and not in_b else "B" if in_b and not in_a else "tie"
        return Reply.ok(verdict(slot))
    return respond


def sized_diff(marker: str, lines: int, *, path: str = "src/calc.py") -> str:
    """A diff adding ``lines`` lines, the first carrying ``marker`` (patch size ``lines``)."""
    body = "".join(f"+    # {marker if i == 0 else f'note {i}'}\n" for i in range(lines))
    return (f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
            f"@@ -1,2 +1,{2 + lines} @@\n def div(a, b):\n{body}     return a / b\n")


def _changed_lines(section: str) -> int:
    return sum(1 for line in section.splitlines()
               if line[:1] in ("+", "-") and not line.startswith(("+++", "---")))


def prefers_larger():
    """A judge that always prefers the larger patch (lines added + removed), whatever it says."""
    def respond(api: str, body: dict[str, Any]) -> Reply:
        text = prompt_of(body)
        a = text.index("## Solution A")
        b = text.index("## Solution B")
        end = text.find("Judge consistency", b)
        size_a, size_b = _changed_lines(text[a:b]), _changed_lines(text[b:end])
        slot = "A" if size_a > size_b else "B" if size_b > size_a else "tie"
        return Reply.ok(verdict(slot))
    return respond


def majority(votes: list[str]) -> str:
    """The arm named by more than half of ``votes``, else ``draw`` (the jury rule, by hand)."""
    from collections import Counter

    for arm, n in Counter(votes).items():
        if arm != "draw" and 2 * n > len(votes):
            return arm
    return "draw"


def two_arm_runs(path: Path, n: int, base: str, ctx: str) -> Path:
    """``n`` tasks, each with a ``base`` patch of 2 lines and a ``ctx`` patch of 3 (the
    markers are formatted with the task's number); ``ctx`` passes on even tasks."""
    return write_runs(path, [
        r for t in range(n) for r in (result(f"t{t}", "base", sized_diff(base.format(t), 2)),
                                      result(f"t{t}", "ctx", sized_diff(ctx.format(t), 3),
                                             passed=t % 2 == 0))])


def pairwise_only(respond):
    """A server answering pairwise questions with ``respond`` and audits with an empty
    reply."""
    def reply(api: str, body: dict[str, Any]) -> Reply:
        pairwise = "consistency" in (schema_of(body) or {}).get("properties", {})
        return respond(api, body) if pairwise else Reply()
    return reply
