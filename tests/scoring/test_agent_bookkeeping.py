"""An agent CLI's bookkeeping is not the agent's edit: left out of the touched files, listed in
``files_excluded``, counted in the warnings, and precision/recall those of the edit alone.

The aider diffs below are what aider 0.86.2 left in a task repository with default settings
(run against a local OpenAI-compatible model server), as ``git diff`` shows them: the
``.aider*`` line it appends to an existing ``.gitignore`` or puts in a new one, and, with
``--no-gitignore``, its three state files (``fixtures/aider_no_gitignore.diff``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgekit.diffs import excluded_files, files_touched, split_excluded, strip_paths
from judgekit.infra import DEFAULT_INFRA_PATHS, INFRA_SOURCES
from judgekit.ingest.models import RunResult, Task
from tests.clirun import judgekit
from tests.execute.conftest import FIX_AGENT, project, write_suite  # noqa: F401 (fixture)

FIXTURES = Path(__file__).parent / "fixtures"

EDIT = """diff --git a/calc.py b/calc.py
index 0dd6ba5b8a8d7c4cb9b2b5f7b6a8ce5cc1a4e2f1..5e1f6f2b0b7c0f4c6b5c2bb7b1e6e4e1b8d1a2c3 100644
--- a/calc.py
+++ b/calc.py
@@ -1,2 +1,2 @@
 def add(a, b):
-    return a - b
+    return a + b
"""

GITIGNORE_APPENDED = """diff --git a/.gitignore b/.gitignore
index c18dd8d83ceed1806b50b0aaa46beb7e335fff13..da96fec4a82edf34f8490506d8c3b95a4a014cbd 100644
--- a/.gitignore
+++ b/.gitignore
@@ -1 +1,2 @@
 __pycache__/
+.aider*
"""

GITIGNORE_NEW = """diff --git a/.gitignore b/.gitignore
new file mode 100644
index 0000000000000000000000000000000000000000..b0ac3ed9c09f528e05b0668aacb8b046dd3bdcb5
--- /dev/null
+++ b/.gitignore
@@ -0,0 +1 @@
+.aider*
"""

# aider reads a .gitignore without a final newline and writes it back with one, then the pattern.
GITIGNORE_NO_FINAL_NEWLINE = """diff --git a/.gitignore b/.gitignore
index 1111111111111111111111111111111111111111..2222222222222222222222222222222222222222 100644
--- a/.gitignore
+++ b/.gitignore
@@ -1 +1,2 @@
-build/
\\ No newline at end of file
+build/
+.aider*
"""

STATE = (FIXTURES / "aider_no_gitignore.diff").read_text()
STATE_FILES = [".aider.chat.history.md", ".aider.input.history", ".aider.tags.cache.v4/cache.db"]

OBSERVED = {
    "gitignore-appended": (GITIGNORE_APPENDED, [".gitignore"]),
    "gitignore-new": (GITIGNORE_NEW, [".gitignore"]),
    "gitignore-no-final-newline": (GITIGNORE_NO_FINAL_NEWLINE, [".gitignore"]),
    "state-files": (STATE, STATE_FILES),
    "state-files-and-gitignore": (STATE + GITIGNORE_NEW, [*STATE_FILES, ".gitignore"]),
}


def _gitignore(*added: str, removed: tuple[str, ...] = (), path: str = ".gitignore") -> str:
    body = "".join(f"-{line}\n" for line in removed) + "".join(f"+{line}\n" for line in added)
    return (f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n"
            f"+++ b/{path}\n@@ -1,{1 + len(removed)} +1,{1 + len(added)} @@\n node_modules/\n"
            + body)


@pytest.mark.parametrize("shape", sorted(OBSERVED))
def test_aider_bookkeeping_is_left_out_and_listed(shape: str) -> None:
    bookkeeping, left = OBSERVED[shape]
    diff = bookkeeping + EDIT
    assert files_touched(diff) == ["calc.py"]
    assert excluded_files(diff) == sorted(left)
    assert strip_paths(diff) == EDIT
    assert split_excluded(diff) == (EDIT, sorted(left))


@pytest.mark.parametrize("change", [
    _gitignore(".aider*", "build/"),                    # another pattern beside aider's
    _gitignore("build/"),                               # not a pattern for bookkeeping
    _gitignore(".aider*", removed=("dist/",)),          # a pattern taken out
    _gitignore("!.aider.conf.yml"),                     # a negation
    _gitignore("# aider"),                              # a comment is content too
    _gitignore(".aider*", path="sub/.gitignore"),       # not the repository's root
    _gitignore(".*"),                                   # hides far more than bookkeeping
])
def test_any_other_gitignore_change_stays_an_edit(change: str) -> None:
    path = change.split(" b/", 1)[1].split("\n", 1)[0]
    assert files_touched(change + EDIT) == sorted([path, "calc.py"])
    assert excluded_files(change + EDIT) == []
    assert strip_paths(change + EDIT) == change + EDIT


def test_patterns_naming_the_excluded_paths_themselves_are_bookkeeping_too() -> None:
    change = _gitignore(".claude/", "/.aider.chat.history.md", ".aider.tags.cache.v4/", "")
    assert files_touched(change + EDIT) == ["calc.py"]


def test_every_default_entry_belongs_to_a_named_tool() -> None:
    assert {p for s in INFRA_SOURCES for p in s.paths} == set(DEFAULT_INFRA_PATHS)
    assert {s.name for s in INFRA_SOURCES} >= {"aider", "Claude Code", "Codex CLI", "OpenHands",
                                               "Cursor"}


FIX = EDIT + """diff --git a/ops.py b/ops.py
index 3333333..4444444 100644
--- a/ops.py
+++ b/ops.py
@@ -1 +1 @@
-SIGN = -1
+SIGN = 1
"""


def _row(task: str, arm: str, diff: str) -> RunResult:
    return RunResult(task=Task(id=task), arm=arm, agent_diff=diff, model="m",
                     ground_truth_diff=FIX)


def _score(tmp_path: Path, rows: list[RunResult], *args: str) -> dict:
    run_file = tmp_path / "run.jsonl"
    run_file.write_text("".join(r.model_dump_json() + "\n" for r in rows))
    proc = judgekit("score", run_file, "--json", "--no-similarity", *args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_score_json_gives_the_edit_its_own_precision_and_recall(tmp_path: Path) -> None:
    rows = []
    for shape, (bookkeeping, _) in OBSERVED.items():
        rows += [_row(shape, "aider", bookkeeping + EDIT), _row(shape, "plain", EDIT)]
    rows.append(_row("other-content", "aider", _gitignore(".aider*", "build/") + EDIT))
    data = _score(tmp_path, rows)
    by = {(r["task_id"], r["arm"]): r for r in data["results"]}
    for shape, (_, left) in OBSERVED.items():
        aider, plain = by[(shape, "aider")], by[(shape, "plain")]
        assert aider["files_touched"] == plain["files_touched"] == ["calc.py"]
        assert (aider["precision"], aider["recall"]) == (plain["precision"], plain["recall"])
        assert (aider["precision"], aider["recall"]) == (1.0, 0.5)
        assert aider["files_excluded"] == sorted(left) and plain["files_excluded"] == []
    other = by[("other-content", "aider")]
    assert other["files_touched"] == [".gitignore", "calc.py"] and other["precision"] == 0.5
    assert data["arms"]["aider"]["n_files_excluded"] == len(OBSERVED)
    (line,) = [w for w in data["warnings"] if "left out of their change" in w]
    assert line.startswith(f"{len(OBSERVED)} of {len(rows)} results had agent-CLI or harness "
                           "files left out of their change, listed in files_excluded: ")
    assert ".gitignore (4)" in line and ".aider.chat.history.md (2)" in line


def test_exclude_replaces_the_list(tmp_path: Path) -> None:
    """With ``--exclude`` naming another prefix, aider's files and its .gitignore count."""
    diff = STATE + GITIGNORE_NEW + EDIT
    data = _score(tmp_path, [_row("t", "aider", diff)], "--exclude", ".bobbin/")
    (row,) = data["results"]
    assert row["files_touched"] == sorted([*STATE_FILES, ".gitignore", "calc.py"])
    assert row["files_excluded"] == []


AIDER_LIKE = (  # writes what aider 0.86.2 writes with default settings, then fixes the bug
    "printf '\\n# aider chat started\\n' > .aider.chat.history.md && "
    "printf '\\n+fix add\\n' > .aider.input.history && "
    "mkdir .aider.tags.cache.v4 && printf 'SQLite' > .aider.tags.cache.v4/cache.db && "
    "printf '.aider*\\n' >> .gitignore && " + FIX_AGENT)


def test_through_judgekit_run_the_bookkeeping_is_listed_not_scored(
        project, tmp_path: Path) -> None:  # noqa: F811 (fixture)
    suite = write_suite(tmp_path / "calc.yaml", project)
    out = tmp_path / "run.jsonl"
    proc = judgekit("run", suite, "--arms", "aider,plain", "--agent-for", f"aider={AIDER_LIKE}",
                    "--agent-for", f"plain={FIX_AGENT}", "--out", out, "--mirror-dir",
                    tmp_path / "m")
    assert proc.returncode == 0, proc.stderr
    runs = {r["arm"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert ".gitignore" not in runs["aider"]["agent_diff"]
    assert runs["aider"]["files_excluded"] == [".aider.chat.history.md", ".aider.input.history",
                                               ".aider.tags.cache.v4/", ".gitignore"]
    assert runs["plain"]["files_excluded"] == []
    data = json.loads(judgekit("score", out, "--json", "--no-similarity").stdout)
    by = {r["arm"]: r for r in data["results"]}
    assert by["aider"]["files_touched"] == by["plain"]["files_touched"] == ["calc/__init__.py"]
    assert by["aider"]["files_excluded"] == runs["aider"]["files_excluded"]
    for key in ("precision", "recall", "f1", "precision_source", "recall_source"):
        assert by["aider"][key] == by["plain"][key], key


def test_the_report_lists_what_was_left_out(tmp_path: Path) -> None:
    run_file = tmp_path / "run.jsonl"
    run_file.write_text(_row("t", "aider", GITIGNORE_NEW + EDIT).model_dump_json() + "\n")
    proc = judgekit("score", run_file, "--out", tmp_path / "out", "--no-similarity")
    assert proc.returncode == 0, proc.stderr
    html = (tmp_path / "out" / "report.html").read_text()
    assert "Left out as agent-CLI or harness bookkeeping: .gitignore" in html
    assert "1 of 1 results had agent-CLI or harness files left out of their change" in html
