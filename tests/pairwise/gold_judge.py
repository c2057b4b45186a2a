"""A scripted pairwise judge whose verdicts on the bundled bobbin example are known by rule.

- minimality: the solution with fewer changed lines (``+``/``-`` lines of its diff) wins;
  the same count is a tie;
- consistency: a solution that adds to ruff's ported black test suite (``fixtures/black/``)
  loses; otherwise a tie;
- completeness: always a tie.

The rules look at the slots' contents only, so both orders agree.
"""

from __future__ import annotations

from typing import Any

from judgekit.testing import Reply, prompt_of
from tests.pairwise.helpers import verdict


def _solutions(text: str) -> tuple[str, str]:
    a = text.index("## Solution A")
    b = text.index("## Solution B")
    end = text.find("Judge consistency, completeness and minimality", b)
    return text[a:b], text[b:end if end > 0 else len(text)]


def changed_lines(section: str) -> int:
    return sum(1 for line in section.splitlines()
               if line[:1] in "+-" and not line.startswith(("+++", "---")))


def respond(api: str, body: dict[str, Any]) -> Reply:
    sol_a, sol_b = _solutions(prompt_of(body))
    n_a, n_b = changed_lines(sol_a), changed_lines(sol_b)
    black_a, black_b = "fixtures/black/" in sol_a, "fixtures/black/" in sol_b
    return Reply.ok(verdict({
        "minimality": "A" if n_a < n_b else "B" if n_b < n_a else "tie",
        "consistency": "B" if black_a and not black_b else "A" if black_b and not black_a
        else "tie",
        "completeness": "tie",
    }))


def respond_consistency_everywhere(api: str, body: dict[str, Any]) -> Reply:
    """Another scripted judge: the consistency rule above on every dimension (a solution
    that adds to ruff's ported black test suite loses all three; otherwise ties)."""
    sol_a, sol_b = _solutions(prompt_of(body))
    black_a, black_b = "fixtures/black/" in sol_a, "fixtures/black/" in sol_b
    return Reply.ok(verdict("B" if black_a and not black_b else "A" if black_b and not black_a
                            else "tie"))
