from __future__ import annotations

from pathlib import Path

from judgekit.engine import Engine, EngineConfig
from judgekit.pairwise import PairwiseOptions, run_pairwise
from judgekit.pairwise.context import code_context
from judgekit.scoring import score
from judgekit.testing import FakeAPIServer, prompt_of
from tests.pairwise.helpers import diff, result, verdict


def _checkout(root: Path) -> Path:
    repo = root / "calc" / "src"
    repo.mkdir(parents=True)
    (repo / "calc.py").write_text("def div(a, b):\n    return a / b\n\n\ndef mul(a, b):\n"
                                  "    return a * b\n")
    return root


def test_code_context_reads_lines_around_each_hunk_from_the_named_checkout(tmp_path: Path) -> None:
    root = _checkout(tmp_path)
    text = code_context(root, "acme/calc", [("src/calc.py", (1, 2)), ("src/calc.py", (1, 2)),
                                             ("missing.py", (1, 1)), ("../escape", (1, 1))],
                        margin=2)
    assert text is not None
    assert text.count("# src/calc.py") == 1 and "def div(a, b):" in text
    assert "def mul" not in text  # two lines of margin after line 2 end at line 4


def test_code_context_respects_its_character_bound(tmp_path: Path) -> None:
    root = _checkout(tmp_path)
    assert code_context(root, "acme/calc", [("src/calc.py", (1, 2))], max_chars=10) is None


def test_judge_sees_code_context_when_repo_root_is_given(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    root = _checkout(tmp_path / "repos")
    runs = [result("t1", "a", diff("x")), result("t1", "b", diff("y"))]
    prompts: list[str] = []

    def respond(api, body):
        prompts.append(prompt_of(body))
        return verdict("tie")

    with FakeAPIServer(respond) as server:
        engine = Engine(EngineConfig(model="anthropic:claude-haiku-4-5", base_url=server.url,
                                     use_cache=False, progress=False))
        report = run_pairwise(runs, score(runs), engine, PairwiseOptions(repo_root=root))
    assert report.records[0].context_shown
    assert len(prompts) == 2
    assert all("## Code around the changed lines" in p and "def mul(a, b):" in p
               for p in prompts)


def test_plain_fallback_numbers_lines_and_refuses_paths_outside_the_root(tmp_path: Path) -> None:
    from judgekit.pairwise.context import plain_lines

    root = _checkout(tmp_path) / "calc"
    assert plain_lines(root, "src/calc.py", (5, 5), margin=0) == (
        "# src/calc.py, lines 5-5\n5 | def mul(a, b):")
    assert plain_lines(root, "../../etc/passwd", (1, 1)) == ""
