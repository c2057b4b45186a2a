"""The judge's code context reads nothing outside ``--repo-root``, whatever a run file says
(``task.repo`` of ``x/..``, a diff naming ``../`` or an absolute path, a link pointing out),
and says how many paths it refused."""

from __future__ import annotations

import json
from pathlib import Path

from judgekit.pairwise.context import code_context
from judgekit.paths import Escapes
from judgekit.testing import FakeAPIServer
from tests.clirun import judgekit
from tests.pairwise.helpers import diff, result, verdict, write_runs

OUTSIDE = "OUTSIDE-THE-ROOT-4d1c"


def _layout(tmp_path: Path) -> Path:
    """``tmp_path/root`` holds a checkout ``calc``; its parent holds a file the same diff
    names, which must never be read."""
    root = tmp_path / "root"
    (root / "calc" / "src").mkdir(parents=True)
    (root / "calc" / "src" / "calc.py").write_text("def div(a, b):\n    return a / b\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "calc.py").write_text(f"def div(a, b):\n    # {OUTSIDE}\n")
    (tmp_path / "secret.txt").write_text(f"{OUTSIDE}\n")
    return root


def test_a_repository_named_x_dotdot_reads_nothing_from_the_parent(tmp_path: Path) -> None:
    root = _layout(tmp_path)
    escapes = Escapes()
    assert code_context(root, "x/..", [("src/calc.py", (1, 2))], escapes=escapes) is None
    assert escapes.count == 1 and "x/.." in escapes.examples[0]


def test_diff_paths_that_lead_out_are_skipped_and_counted(tmp_path: Path) -> None:
    root = _layout(tmp_path)
    (root / "calc" / "link.py").symlink_to(tmp_path / "secret.txt")
    escapes = Escapes()
    text = code_context(root, "acme/calc", [
        ("src/calc.py", (1, 2)), ("../../secret.txt", (1, 1)),
        (str(tmp_path / "secret.txt"), (1, 1)), ("link.py", (1, 1))], escapes=escapes)
    assert text is not None and "return a / b" in text and OUTSIDE not in text
    assert escapes.count == 3


def test_no_byte_outside_the_repo_root_reaches_the_server(tmp_path: Path) -> None:
    root = _layout(tmp_path)
    runs = [result("t1", arm, diff(arm)) for arm in ("a", "b")]
    runs = [r.model_copy(update={"task": r.task.model_copy(update={"repo": "x/.."})})
            for r in runs]
    prompts: list[str] = []

    def respond(api, body):
        prompts.append(json.dumps(body))
        return verdict("tie")

    with FakeAPIServer(respond) as server:
        proc = judgekit("judge", str(write_runs(tmp_path / "runs.json", runs)),
                        "--out", str(tmp_path / "out"), "--repo-root", str(root),
                        "--no-cache", "--judge", "anthropic:claude-haiku-4-5",
                        env={**server.env(), "ANTHROPIC_API_KEY": "test-key"})
    assert proc.returncode == 0, proc.stderr
    assert prompts and not any(OUTSIDE in p for p in prompts)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    notes = summary["pairwise_run"]["notes"]
    assert any("1 code-context path(s)" in n and "x/.." in n for n in notes), notes
    assert "1 code-context path(s)" in (tmp_path / "out" / "report.md").read_text()


def test_a_checkout_named_in_the_run_is_still_read(tmp_path: Path) -> None:
    root = _layout(tmp_path)
    text = code_context(root, "https://example.org/acme/calc.git", [("src/calc.py", (1, 2))])
    assert text is not None and "return a / b" in text
