"""Test commands that collect no tests, run for real after the tests were removed: each is
``vacuous`` with the tool's own words as the reason, whatever its exit code, stays paired as a
non-pass of its arm, and ``n_excluded_error`` counts the harness failure alone.

Every tool here is run as users run it, in a throwaway project, once with its test and once
after the test was deleted. pytest and unittest (on this interpreter) always run; cargo, go,
node's own runner, jest and vitest run where they are installed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from judgekit.ingest.models import RunResult, Task, TestResult
from judgekit.scoring.outcomes import classify
from tests.clirun import judgekit
from tests.execute.conftest import FIX_AGENT, project, write_suite  # noqa: F401 (fixture)


@dataclass(frozen=True)
class Tool:
    """A test framework: how to make a one-test project, which file holds the test, and the
    command that runs it."""

    name: str
    command: list[str]
    files: dict[str, str]
    test_file: str
    needs: str | None = None  # the program that must be installed
    env: Callable[[Path], dict[str, str]] | None = None
    probe: str = "--version"  # an argument that makes the program say its version


PY_TEST = "def test_add():\n    assert 1 + 1 == 2\n"
UNITTEST = ("import unittest\n\n\nclass T(unittest.TestCase):\n"
            "    def test_add(self):\n        self.assertEqual(1 + 1, 2)\n")
JS_TEST = "test('adds', () => { if (1 + 1 !== 2) throw new Error('no'); });\n"


def _py(version: str | None) -> str:
    return sys.executable if version is None else version


def _python_tools(python: str | None, label: str) -> list[Tool]:
    return [
        Tool(f"unittest ({label})", [_py(python), "-m", "unittest", "discover", "-s", "tests"],
             {"tests/test_calc.py": UNITTEST}, "tests/test_calc.py",
             needs=python),
    ]


TOOLS: list[Tool] = [
    Tool("pytest", [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
         {"tests/test_calc.py": PY_TEST}, "tests/test_calc.py",
         env=lambda _: {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}),
    *_python_tools(None, "this interpreter"),
    *_python_tools("python3.12", "3.12"),
    *_python_tools("python3.13", "3.13"),
    Tool("cargo", ["cargo", "test", "--offline"],
         {"Cargo.toml": '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n',
          "src/lib.rs": "pub fn add(a: u64, b: u64) -> u64 { a + b }\n",
          "tests/add.rs": "#[test]\nfn adds() { assert_eq!(calc::add(1, 1), 2); }\n"},
         "tests/add.rs", needs="cargo",
         env=lambda root: {"CARGO_TARGET_DIR": str(root.parent / "target")}),
    Tool("go", ["go", "test", "./..."],
         {"go.mod": "module example.com/calc\n\ngo 1.19\n",
          "calc.go": "package calc\n\nfunc Add(a, b int) int { return a + b }\n",
          "calc_test.go": ('package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n'
                           '\tif Add(1, 1) != 2 {\n\t\tt.Fatal("no")\n\t}\n}\n')},
         "calc_test.go", needs="go",
         env=lambda root: {"GOCACHE": str(root.parent / "gocache"),
                           "GOPATH": str(root.parent / "gopath"), "GOFLAGS": "-mod=mod"},
         probe="version"),
    Tool("node", ["node", "--test"], {"sum.test.js": "const test = require('node:test');\n"
                                      + JS_TEST}, "sum.test.js", needs="node"),
    Tool("jest", ["jest", "--ci"], {"package.json": '{"name": "calc", "version": "1.0.0"}\n',
                                    "sum.test.js": JS_TEST}, "sum.test.js", needs="jest"),
    Tool("vitest", ["vitest", "run"],
         {"package.json": '{"name": "calc", "version": "1.0.0"}\n',
          "sum.test.js": "import { test } from 'vitest';\n" + JS_TEST}, "sum.test.js",
         needs="vitest", env=lambda _: {"NO_COLOR": "1"}),
]


def _installed(tool: Tool) -> bool:
    """The tool's program is on PATH and starts (a version manager's shim may not)."""
    if tool.needs is None:
        return True
    if shutil.which(tool.needs) is None:
        return False
    probe = subprocess.run([tool.needs, tool.probe], capture_output=True, timeout=60,
                           stdin=subprocess.DEVNULL)
    return probe.returncode == 0


def _run(tool: Tool, root: Path) -> TestResult:
    # the project's own run: none of this suite's pytest options (PYTEST_ADDOPTS: CI's
    # workers, a user's own) reach it
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    env.update(tool.env(root) if tool.env else {})
    proc = subprocess.run(tool.command, cwd=root, env=env, capture_output=True, text=True,
                          timeout=240, stdin=subprocess.DEVNULL)
    return TestResult(exit_code=proc.returncode, output=proc.stdout + proc.stderr)


def _before_and_after(tool: Tool, tmp: Path) -> tuple[TestResult, TestResult]:
    """The tool's run with its test, then after the test file was deleted."""
    root = tmp / tool.name.split()[0] / "project"
    for rel, text in tool.files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    kept = _run(tool, root)
    (root / tool.test_file).unlink()
    return kept, _run(tool, root)


@pytest.fixture(scope="module")
def real_runs(tmp_path_factory: pytest.TempPathFactory
              ) -> dict[str, tuple[Tool, TestResult, TestResult]]:
    """Each installed tool's two real runs."""
    tmp = tmp_path_factory.mktemp("no-tests")
    return {tool.name: (tool, *_before_and_after(tool, tmp / tool.name.replace(" ", "_")))
            for tool in TOOLS if _installed(tool)}


def test_the_contract_tools_are_all_here(real_runs) -> None:
    """pytest, unittest on this interpreter and at least one other framework ran for real."""
    others = set(real_runs) - {"pytest", "unittest (this interpreter)"}
    assert {"pytest", "unittest (this interpreter)"} <= set(real_runs)
    assert others, "no second test framework installed (cargo, go, node, jest or vitest)"


@pytest.mark.parametrize("tool", [t.name for t in TOOLS])
def test_removed_tests_are_vacuous_with_the_tools_own_words(real_runs, tool: str) -> None:
    if tool not in real_runs:
        pytest.skip(f"{tool} is not installed here")
    spec, kept, removed = real_runs[tool]
    assert classify(kept, test_command=" ".join(spec.command)).status == "passed", kept.output
    outcome = classify(removed, test_command=" ".join(spec.command))
    assert (outcome.status, outcome.tests_run) == ("vacuous", 0), removed.output
    assert outcome.reason.startswith("zero tests executed (")
    assert outcome.reason.endswith(f"; exit code {removed.exit_code}")


def test_unittest_says_no_tests_ran_with_exit_5_from_python_3_12(real_runs) -> None:
    _, _, removed = real_runs["unittest (this interpreter)"]
    if sys.version_info >= (3, 12):
        assert removed.exit_code == 5 and "NO TESTS RAN" in (removed.output or "")
    else:
        assert removed.exit_code == 0 and "Ran 0 tests" in (removed.output or "")


def test_pytest_without_tests_exits_5_and_is_no_harness_failure(real_runs) -> None:
    _, _, removed = real_runs["pytest"]
    assert removed.exit_code == 5 and "no tests ran" in (removed.output or "")


def _result(task: str, arm: str, test: TestResult | None, **fields: object) -> RunResult:
    return RunResult(task=Task(id=task), arm=arm, agent_diff="", ground_truth_diff="",
                     test=test, model="m", **fields)  # type: ignore[arg-type]


def test_score_json_pairs_vacuous_results_as_non_passes_and_counts_errors_apart(
        real_runs, tmp_path: Path) -> None:
    """A run file of the real results through ``judgekit score --json``."""
    rows = []
    for name, (_, kept, removed) in real_runs.items():
        task = name.replace(" (", "-").replace(")", "").replace(" ", "-")
        rows += [_result(task, "kept-tests", kept), _result(task, "removed-tests", removed)]
    rows += [_result("setup-broke", "kept-tests", real_runs["pytest"][1]),
             _result("setup-broke", "removed-tests", None, harness_status="setup_failed",
                     harness_error="setup command exited with 1")]
    run_file = tmp_path / "run.jsonl"
    run_file.write_text("".join(r.model_dump_json() + "\n" for r in rows))
    proc = judgekit("score", run_file, "--json", "--no-similarity")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    removed = [r for r in data["results"] if r["arm"] == "removed-tests"]
    n = len(real_runs)
    assert sorted(r["test_status"] for r in removed) == ["error"] + ["vacuous"] * n
    assert all(r["test_reason"].startswith("zero tests executed (")
               for r in removed if r["test_status"] == "vacuous")
    arm = data["arms"]["removed-tests"]
    assert (arm["n_passed"], arm["n_vacuous"], arm["n_error"]) == (0, n, 1)
    (cmp,) = data["comparisons"]
    assert (cmp["n_paired"], cmp["n_vacuous"], cmp["n_excluded_error"]) == (n, n, 1)
    assert (cmp["only_a_passed"], cmp["only_b_passed"]) == (n, 0)
    assert cmp["pass_rate_a"] == 1.0 and cmp["pass_rate_b"] == 0.0
    vacuous_lines = [w for w in data["warnings"] if w.startswith("vacuous (zero tests executed)")]
    assert len(vacuous_lines) == n
    report = judgekit("score", run_file, "--out", tmp_path / "out", "--no-similarity")
    assert report.returncode == 0, report.stderr
    assert (f"{n} paired results executed no test (vacuous) and count as non-passes"
            in (tmp_path / "out" / "report.md").read_text())


SABOTEUR = "printf '[pytest]\\naddopts = -k judgekit_selects_nothing\\n' > pytest.ini"


def test_through_judgekit_run_an_agent_that_breaks_discovery_is_a_paired_non_pass(
        project, tmp_path: Path) -> None:  # noqa: F811 (fixture)
    """The agent's pytest.ini deselects every test: pytest ends with exit code 5."""
    suite = write_suite(tmp_path / "calc.yaml", project)
    out = tmp_path / "run.jsonl"
    proc = judgekit("run", suite, "--arms", "fixer,saboteur,missing", "--agent-for",
                    f"fixer={FIX_AGENT}", "--agent-for", f"saboteur={SABOTEUR}",
                    "--agent-for", "missing=no-such-agent-xyz", "--out", out,
                    "--mirror-dir", tmp_path / "m")
    assert proc.returncode == 0, proc.stderr
    assert "calc-001 saboteur #0: tests vacuous (zero tests ran)" in proc.stderr
    data = json.loads(judgekit("score", out, "--json", "--no-similarity").stdout)
    by = {r["arm"]: r for r in data["results"]}
    assert by["saboteur"]["test_status"] == "vacuous"
    reason = by["saboteur"]["test_reason"]
    assert reason.startswith("zero tests executed (pytest: 2 deselected in ")
    assert reason.endswith("; exit code 5")
    assert by["missing"]["test_status"] == "error"
    cmp = {(c["arm_a"], c["arm_b"]): c for c in data["comparisons"]}
    fixer = cmp[("fixer", "saboteur")]
    assert (fixer["n_paired"], fixer["n_vacuous"], fixer["n_excluded_error"]) == (1, 1, 0)
    assert (fixer["only_a_passed"], fixer["only_b_passed"]) == (1, 0)
    missing = cmp[("missing", "saboteur")]
    assert (missing["n_paired"], missing["n_excluded_error"]) == (0, 1)
