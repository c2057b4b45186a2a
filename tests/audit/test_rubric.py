from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgekit._resources import data_dir
from judgekit.audit import Verdict, list_rubrics, load_rubric, verdict_schema
from judgekit.cli import main
from judgekit.errors import InputError

SEED_NAMES = ["Dataset and Input File Issues", "Task Instruction Ambiguity",
              "Evaluation Script Defects", "Gold Program Issues", "Domain Knowledge Gaps",
              "Execution Environment Issues", "Output Specification Mismatches"]

GOOD = """---
id: tiny
title: Tiny rubric
benchmark: tiny
categories:
  - id: broken
    name: Broken Thing
    description: Something is broken.
exclusions:
  - name: Agent Bug
    description: The agent wrote a bug.
evidence_requirements:
  score_1: [Quote the breakage.]
  score_0: [Quote the bug.]
---
# Tiny

## How the benchmark evaluates

Tests decide.
"""


def test_shipped_rubrics_load_with_their_categories() -> None:
    ids = [r.id for r in list_rubrics()]
    assert ids == ["commit-revert", "scienceagentbench", "swe-bench"]
    commit = load_rubric("commit-revert")
    names = {c.name for c in commit.categories}
    assert {"Broken Setup Command", "Test Command Selects No Tests", "Flaky Tests",
            "Missing Toolchain", "Timeout Too Short"} <= names
    assert "vacuous" in commit.body


def test_scienceagentbench_keeps_the_seed_category_names() -> None:
    rubric = load_rubric("scienceagentbench")
    assert [c.name for c in rubric.categories][:7] == SEED_NAMES
    for name in SEED_NAMES:
        assert rubric.category_name(name.upper()) == name
    assert rubric.category_name("gold-program") == "Gold Program Issues"
    assert rubric.category_name("Something Else") is None


def test_rubric_loads_from_a_file_path(tmp_path: Path) -> None:
    path = tmp_path / "tiny.md"
    path.write_text(GOOD)
    rubric = load_rubric(str(path))
    assert rubric.id == "tiny" and rubric.category_name("broken thing") == "Broken Thing"
    assert "Tests decide." in rubric.render()


@pytest.mark.parametrize("text, field", [
    (GOOD.replace("title: Tiny rubric\n", ""), "title"),
    (GOOD.replace("    name: Broken Thing\n", ""), "categories.0.name"),
    (GOOD.replace("## How the benchmark evaluates", "## Notes"), "body"),
    (GOOD.replace("benchmark: tiny", "benchmark: [tiny"), "front matter"),
    (GOOD.replace("  score_0: [Quote the bug.]\n", ""), "evidence_requirements.score_0"),
])
def test_bad_rubric_file_is_an_input_error_naming_file_and_field(
        tmp_path: Path, text: str, field: str) -> None:
    path = tmp_path / "bad.md"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        load_rubric(path)
    assert info.value.path == str(path) and info.value.field == field


def test_rubric_without_front_matter_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "plain.md"
    path.write_text("# just text\n")
    with pytest.raises(InputError, match="front matter"):
        load_rubric(path)


def test_bad_rubric_path_on_the_command_line_exits_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.md"
    path.write_text(GOOD.replace("id: tiny\n", ""))
    assert main(["rubrics", "show", str(path)]) == 2
    assert f"{path}: id:" in capsys.readouterr().err


def test_rubrics_list_and_show(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rubrics", "list"]) == 0
    listed = capsys.readouterr().out
    assert "commit-revert" in listed and "scienceagentbench" in listed
    assert main(["rubrics", "show", "scienceagentbench"]) == 0
    shown = capsys.readouterr().out
    assert all(name in shown for name in SEED_NAMES)
    assert main(["rubrics", "show", "swe-bench", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["id"] == "swe-bench"


def test_verdict_schema_file_matches_the_model() -> None:
    shipped = json.loads((data_dir("rubrics") / "verdict.schema.json").read_text())
    assert shipped == verdict_schema()
    assert set(shipped["required"]) == set(Verdict.model_fields)


def test_scienceagentbench_adds_figure_evaluation_and_separates_the_two_environments() -> None:
    rubric = load_rubric("scienceagentbench")
    assert len(rubric.categories) == 8
    assert rubric.category_name("figure-evaluation") == "Figure and Visualisation Evaluation Issues"
    text = rubric.render()
    assert "Agent sandbox versus evaluation container" in text and "import allowlist" in text


def test_swe_bench_rubric_covers_tests_network_drift_and_issues() -> None:
    rubric = load_rubric("swe-bench")
    assert [c.id for c in rubric.categories] == [
        "underspecified-issue", "wrong-tests", "network", "environment-drift", "flaky-tests",
        "other-major-issue"]
    assert "evaluation container" in rubric.render()


def test_rubrics_show_lists_eight_scienceagentbench_categories(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rubrics", "show", "scienceagentbench"]) == 0
    out = capsys.readouterr().out
    assert all(f"### {i}." in out for i in range(1, 9)) and "### 9." not in out
