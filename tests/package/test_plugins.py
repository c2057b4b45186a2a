"""Plug-ins: a package installed beside judgekit adds a run adapter and a rubric through
entry points, and judgekit picks them up without a change to itself.

Each test builds a real wheel (a zip with its ``.dist-info``), installs it with pip into a
folder of its own, and runs the command line of this source tree with that folder on the
path, from another directory.
"""

from __future__ import annotations

import base64
import hashlib
import importlib
import json
import os
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from judgekit.plugins import Plugin, PluginProblem
from judgekit.ingest.adapters import make_adapters
from judgekit.ingest.load import load_runs_result
from tests.clirun import ROOT
from tests.conftest import EXAMPLE_BOBBIN

RUBRIC = """---
id: tiny-rubric
title: Tiny benchmark IFE rubric
benchmark: tiny
categories:
  - id: broken-check
    name: Broken Check
    description: The check rejects a correct fix.
exclusions:
  - name: Wrong Fix
    description: The agent changed the wrong thing.
evidence_requirements:
  score_1: [Quote the broken check.]
  score_0: [Say what the agent got wrong.]
---
# Tiny

## How the benchmark evaluates

One check script decides pass or fail.
"""

CLASHING_RUBRIC = RUBRIC.replace("id: tiny-rubric", "id: swe-bench").replace(
    "Tiny benchmark IFE rubric", "An impostor")

ADAPTER = '''"""Reads the tinyformat harness's result files and ships a rubric."""

from importlib.resources import files

from judgekit.ingest.models import RunResult, Task, TestCounts, TestResult

RUBRIC = files(__name__) / "tiny.md"


def _diff(files):
    return "".join(f"diff --git a/{f} b/{f}\\n--- a/{f}\\n+++ b/{f}\\n@@ -1 +1 @@\\n-a\\n+b\\n"
                   for f in files)


class TinyAdapter:
    name = "tinyformat"

    def detect(self, path, document):
        return isinstance(document, dict) and document.get("tinyformat") == 1

    def is_auxiliary(self, path, document):
        return False

    def load(self, path, document):
        return [RunResult(task=Task(id=r["task"]), arm=r["arm"], agent_diff=_diff(r["files"]),
                          ground_truth_files=r["truth"],
                          test=TestResult(exit_code=0 if r["passed"] else 1,
                                          counts=TestCounts(passed=r["passed"],
                                                            failed=1 - r["passed"])))
                for r in document["results"]]
'''

TINY_RUN = {"tinyformat": 1, "results": [
    {"task": "t1", "arm": "plain", "files": ["src/a.py", "src/b.py"], "truth": ["src/a.py"],
     "passed": 1},
    {"task": "t1", "arm": "tuned", "files": ["src/a.py"], "truth": ["src/a.py"], "passed": 1},
    {"task": "t2", "arm": "plain", "files": ["src/c.py"], "truth": ["src/d.py"], "passed": 0},
    {"task": "t2", "arm": "tuned", "files": ["src/d.py"], "truth": ["src/d.py"], "passed": 1},
]}


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def build_wheel(where: Path, name: str, files: dict[str, str], entry_points: str) -> Path:
    """A pure-Python wheel of distribution ``name`` holding ``files`` and ``entry_points``."""
    info = f"{name}-0.1.dist-info"
    contents = {path: text.encode() for path, text in files.items()}
    contents[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n".encode()
    contents[f"{info}/WHEEL"] = (b"Wheel-Version: 1.0\nGenerator: judgekit-tests\n"
                                 b"Root-Is-Purelib: true\nTag: py3-none-any\n")
    contents[f"{info}/entry_points.txt"] = entry_points.encode()
    record = [f"{p},sha256={_digest(d)},{len(d)}" for p, d in contents.items()]
    contents[f"{info}/RECORD"] = ("\n".join([*record, f"{info}/RECORD,,"]) + "\n").encode()
    wheel = where / f"{name}-0.1-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        for path, data in contents.items():
            zf.writestr(path, data)
    return wheel


def install(wheel: Path, target: Path) -> Path:
    """Install ``wheel`` into ``target`` with pip, offline."""
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-index", "--no-deps",
                    "--disable-pip-version-check", "--quiet", "--target", str(target),
                    str(wheel)], check=True, capture_output=True, text=True, timeout=300)
    return target


def run_judgekit(site: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m judgekit ARGS`` of this tree, with the plug-ins of ``site`` installed."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ANTHROPIC_", "OPENAI_", "JUDGEKIT_"))}
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(ROOT)])
    return subprocess.run([sys.executable, "-m", "judgekit", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def tiny_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("tinyplug")
    wheel = build_wheel(where, "tinyplug",
                        {"tinyplug/__init__.py": ADAPTER, "tinyplug/tiny.md": RUBRIC},
                        "[judgekit.adapters]\ntinyformat = tinyplug:TinyAdapter\n\n"
                        "[judgekit.rubrics]\ntiny = tinyplug:RUBRIC\n")
    return install(wheel, where / "site")


@pytest.fixture(scope="module")
def broken_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("brokenplug")
    module = ("from importlib.resources import files\n\n"
              "def clash():\n    return files(__name__) / 'clash.md'\n")
    wheel = build_wheel(where, "brokenplug",
                        {"brokenplug/__init__.py": module, "brokenplug/clash.md": CLASHING_RUBRIC},
                        "[judgekit.adapters]\nmissing = brokenplug_missing:Adapter\n\n"
                        "[judgekit.rubrics]\nclash = brokenplug:clash\n"
                        "missing = brokenplug_missing:RUBRIC\n")
    return install(wheel, where / "site")


def test_the_command_line_runs_this_tree(tiny_site: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tiny_site), str(ROOT)])}
    proc = subprocess.run([sys.executable, "-c", "import judgekit; print(judgekit.__file__)"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert Path(proc.stdout.strip()).resolve().parent == (ROOT / "judgekit").resolve()


def test_score_reads_a_format_a_plugin_adds(tiny_site: Path, tmp_path: Path) -> None:
    run = tmp_path / "tiny-run.json"
    run.write_text(json.dumps(TINY_RUN), encoding="utf-8")
    proc = run_judgekit(tiny_site, tmp_path, "score", str(run), "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    f1 = {(r["task_id"], r["arm"]): r["f1"] for r in summary["results"]}
    assert f1 == pytest.approx({("t1", "plain"): 2 / 3, ("t1", "tuned"): 1.0,
                                ("t2", "plain"): 0.0, ("t2", "tuned"): 1.0})
    assert sorted(summary["arms"]) == ["plain", "tuned"]
    assert summary["arms"]["tuned"]["f1"] == pytest.approx(1.0)
    assert not any("plug-in" in w for w in summary["warnings"])


def test_an_unknown_document_names_the_plugin_format(tiny_site: Path, tmp_path: Path) -> None:
    run = tmp_path / "other.json"
    run.write_text(json.dumps({"something": "else"}), encoding="utf-8")
    proc = run_judgekit(tiny_site, tmp_path, "score", str(run))
    assert proc.returncode != 0
    assert "tried: judgekit, harbor, bobbin, hal, swebench, inspect, tinyformat" in proc.stderr


def test_rubrics_list_and_show_a_plugin_rubric(tiny_site: Path, tmp_path: Path) -> None:
    proc = run_judgekit(tiny_site, tmp_path, "rubrics", "list", "--json")
    assert proc.returncode == 0, proc.stderr
    listed = {r["id"]: r for r in json.loads(proc.stdout)}
    assert listed["tiny-rubric"]["source"] == "tinyplug"
    assert listed["tiny-rubric"]["categories"] == ["Broken Check"]
    assert {listed[i]["source"] for i in ("commit-revert", "scienceagentbench", "swe-bench")} \
        == {"judgekit"}
    text = run_judgekit(tiny_site, tmp_path, "rubrics", "list")
    assert text.returncode == 0 and not text.stderr
    assert "tiny-rubric" in text.stdout and "from tinyplug" in text.stdout
    shown = run_judgekit(tiny_site, tmp_path, "rubrics", "show", "tiny-rubric")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("# Rubric: Tiny benchmark IFE rubric (id tiny-rubric")
    assert "One check script decides pass or fail." in shown.stdout


def test_a_plugin_that_fails_is_reported_and_the_rest_works(broken_site: Path,
                                                            tmp_path: Path) -> None:
    proc = run_judgekit(broken_site, tmp_path, "rubrics", "list", "--json")
    assert proc.returncode == 0, proc.stderr
    assert [r["id"] for r in json.loads(proc.stdout)] == [
        "commit-revert", "scienceagentbench", "swe-bench"]
    lines = proc.stderr.splitlines()
    assert len(lines) == 2, lines
    assert any("judgekit.rubrics:missing (from brokenplug)" in x
               and "brokenplug_missing" in x for x in lines)
    assert any("judgekit.rubrics:clash (from brokenplug)" in x
               and "'swe-bench' is taken by judgekit's" in x for x in lines)
    shown = run_judgekit(broken_site, tmp_path, "rubrics", "show", "swe-bench", "--json")
    assert json.loads(shown.stdout)["title"] != "An impostor"
    scored = run_judgekit(broken_site, tmp_path, "score", str(EXAMPLE_BOBBIN), "--json")
    assert scored.returncode == 0, scored.stderr
    summary = json.loads(scored.stdout)
    assert len(summary["results"]) == 46
    warned = [w for w in summary["warnings"] if "plug-in" in w]
    assert len(warned) == 1 and "judgekit.adapters:missing (from brokenplug)" in warned[0]
    text = run_judgekit(broken_site, tmp_path, "score", str(EXAMPLE_BOBBIN))
    assert text.returncode == 0 and "judgekit.adapters:missing" in text.stdout + text.stderr
    run = tmp_path / "tiny-run.json"
    run.write_text(json.dumps(TINY_RUN), encoding="utf-8")
    refused = run_judgekit(broken_site, tmp_path, "score", str(run))
    assert refused.returncode == 2
    assert "(tried: judgekit, harbor, bobbin, hal, swebench, inspect); plug-in judgekit.adapters:" \
        "missing (from brokenplug) not loaded" in refused.stderr


# --- judgekit's own entries, and the registries' rules, in this process ------------------


def _declared(group: str) -> dict[str, str]:
    """The entry points ``pyproject.toml`` declares for judgekit in ``group``."""
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return project["entry-points"][group]


def _resolve(value: str) -> Any:
    module, _, attr = value.partition(":")
    return getattr(importlib.import_module(module), attr)


def test_the_declared_adapters_are_the_builtin_table() -> None:
    from judgekit.ingest.adapters.registry import BUILTIN

    declared = _declared("judgekit.adapters")
    assert list(declared) == list(BUILTIN)
    assert all(_resolve(value) is BUILTIN[name] for name, value in declared.items())
    assert [a.name for a in make_adapters()][:len(BUILTIN)] == list(BUILTIN)


def test_the_declared_rubrics_are_the_shipped_files() -> None:
    from judgekit._resources import package_data_dir
    from judgekit.audit.rubric import load_rubric
    from judgekit.audit.rubric_sources import BUILTIN

    declared = _declared("judgekit.rubrics")
    shipped = sorted(p.stem for p in package_data_dir("rubrics").glob("*.md")
                     if p.name.lower() != "readme.md")
    assert sorted(declared) == sorted(BUILTIN) == shipped
    for name, value in declared.items():
        assert _resolve(value) is BUILTIN[name]
        assert load_rubric(BUILTIN[name]()).id == name


def test_the_declared_providers_are_the_builtin_specs() -> None:
    from judgekit.engine import PROVIDERS

    declared = _declared("judgekit.providers")
    assert list(declared) == list(PROVIDERS)
    resolved = {name: _resolve(value) for name, value in declared.items()}
    assert resolved == PROVIDERS


class _Named:
    def __init__(self, name: str) -> None:
        self.name = name

    def detect(self, path: Path, document: Any) -> bool:
        return False

    def load(self, path: Path, document: Any) -> list[Any]:
        return []

    def is_auxiliary(self, path: Path, document: Any) -> bool:
        return False


def _fake_group(monkeypatch: pytest.MonkeyPatch, objects: dict[str, Any]) -> None:
    from judgekit.ingest.adapters import registry

    def load_group(group: str, *, own: bool = True) -> tuple[list[Any], list[Any]]:
        found = [(Plugin(name, f"fake:{name}", "fakeplug",
                         metadata.EntryPoint(name, f"fake:{name}", group)), obj)
                 for name, obj in objects.items()]
        return found, [PluginProblem(group, "gone", "fakeplug", "ImportError: gone")]

    monkeypatch.setattr(registry, "load_group", load_group)
    registry._plugin_factories.cache_clear()


@pytest.fixture
def fresh_registry() -> Iterator[None]:
    from judgekit.ingest.adapters import registry

    yield
    registry._plugin_factories.cache_clear()


def test_plugin_adapters_come_after_the_builtins_and_bad_ones_are_named(
        monkeypatch: pytest.MonkeyPatch, fresh_registry: None) -> None:
    def failing() -> Any:
        raise RuntimeError("no licence")

    _fake_group(monkeypatch, {"a-class": lambda: _Named("alpha"), "an-instance": _Named("beta"),
                              "dup": _Named("hal"), "not-one": object(), "fails": failing})
    adapters = make_adapters()
    assert [a.name for a in adapters] == [
        "judgekit", "harbor", "bobbin", "hal", "swebench", "inspect", "alpha", "beta"]
    assert make_adapters()[7] is adapters[7]  # an instance is shared, a factory called anew
    assert make_adapters()[6] is not adapters[6]
    problems = adapters.problems
    assert problems[0] == ("plug-in judgekit.adapters:gone (from fakeplug) not loaded: "
                           "ImportError: gone")
    assert any("dup (from fakeplug)" in p and "'hal' is taken" in p for p in problems)
    assert any("not-one (from fakeplug)" in p and "not an adapter" in p for p in problems)
    assert any("fails (from fakeplug)" in p and "RuntimeError: no licence" in p
               for p in problems)
    report = load_runs_result(EXAMPLE_BOBBIN, adapters=adapters)
    assert report.warnings[:len(problems)] == problems
    plain = load_runs_result(EXAMPLE_BOBBIN, adapters=list(adapters))
    assert not any("plug-in" in w for w in plain.warnings)
