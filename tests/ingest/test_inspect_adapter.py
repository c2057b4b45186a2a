"""Inspect AI logs, built here with inspect_ai itself (mock model, local sandbox, no network),
read back through its own log API; and the bundled Inspect example run end to end: its
scorer's run results read back as it computed them, its documented demo run offline."""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

inspect_ai = pytest.importorskip("inspect_ai")

from inspect_ai import Task  # noqa: E402
from inspect_ai.dataset import Sample  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402

from judgekit import load_runs  # noqa: E402
from judgekit.errors import InputError  # noqa: E402
from judgekit.ingest.adapters import ADAPTERS, InspectAdapter  # noqa: E402
from tests.clirun import ROOT, judgekit  # noqa: E402

EXAMPLE = ROOT / "examples" / "embed_inspect_scorer.py"
FIXED = "```python\ndef div(a, b):\n    if b == 0:\n        return None\n    return a / b\n```"
WRONG = "The function looks correct to me; no change is needed."
SCORER = "judgekit_scorer"


def example_module() -> Any:
    spec = importlib.util.spec_from_file_location("embed_inspect_scorer", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def mock(*answers: str) -> Any:
    usage = ModelUsage(input_tokens=120, output_tokens=40, total_tokens=160)
    outputs = [ModelOutput.from_content(model="mockllm/model", content=a) for a in answers]
    for out in outputs:
        out.usage = usage  # given, so the mock never counts tokens (which needs a download)
    return get_model("mockllm/model", custom_outputs=outputs)


def vacuous_task(module: Any) -> Task:
    """The example's task with a test command that runs no test at all."""
    demo = module.judgekit_demo()
    [sample] = demo.dataset
    meta = {**sample.metadata, "test_command": "python -m unittest -v -k no_such_test test_calc"}
    return Task(dataset=[Sample(id="calc-002", input=sample.input, metadata=meta,
                                files=sample.files, setup=sample.setup)],
                solver=demo.solver, scorer=demo.scorer, sandbox="local", name="judgekit_demo")


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One .eval and one .json log of the example task (epoch 1 fixes the bug, epoch 2 not)
    and of a sample whose test command runs no test (the agent fixes the bug)."""
    module = example_module()
    out = {}
    for fmt in ("eval", "json"):
        log_dir = tmp_path_factory.mktemp(f"logs-{fmt}")
        [log] = inspect_ai.eval(module.judgekit_demo(), model=mock(FIXED, WRONG), epochs=2,
                                log_dir=str(log_dir), log_format=fmt, display="none",
                                max_samples=1)
        assert log.status == "success", log.error
        out[fmt] = Path(log.location)
    [log] = inspect_ai.eval(vacuous_task(module), model=mock(FIXED), display="none",
                            log_dir=str(tmp_path_factory.mktemp("vacuous")))
    assert log.status == "success", log.error
    out["vacuous"] = Path(log.location)
    return out


def scorer_values(log_path: Path) -> dict[int, dict[str, Any]]:
    """What the example's scorer computed, per epoch, as the log keeps it."""
    log = inspect_ai.log.read_eval_log(str(log_path))
    return {s.epoch: {"status": s.scores[SCORER].answer, **s.scores[SCORER].value}
            for s in log.samples}


def test_the_example_task_runs_and_its_scorer_uses_judgekit(logs: dict[str, Path]) -> None:
    log = inspect_ai.log.read_eval_log(str(logs["eval"]))
    by_epoch = {s.epoch: s for s in log.samples}
    first = by_epoch[1].scores[SCORER]
    assert first.value["passed"] == 1.0 and first.value["f1"] == 1.0
    assert first.metadata["judgekit_run"]["task"]["id"] == "calc-001"
    assert by_epoch[2].scores[SCORER].answer == "failed"


@pytest.mark.parametrize("fmt", ["eval", "json"])
def test_the_scorers_run_results_are_read_back_as_it_computed_them(
        logs: dict[str, Path], fmt: str) -> None:
    proc = judgekit("score", logs[fmt].parent, "--json", "--no-similarity")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    computed = scorer_values(logs[fmt])
    rows = {r["attempt"] + 1: r for r in summary["results"]}
    assert {e: (r["test_status"], r["f1"]) for e, r in rows.items()} == {
        e: (v["status"], v["f1"]) for e, v in computed.items()}
    assert {e: r["test_status"] for e, r in rows.items()} == {1: "passed", 2: "failed"}
    assert list(summary["arms"]) == ["demo"]  # the sample's arm, as the scorer recorded it
    assert rows[1]["files_touched"] == rows[1]["ground_truth_files"] == ["calc.py"]
    assert not any("hold no" in w for w in summary["warnings"])


def test_a_vacuous_run_stays_vacuous_not_failed(logs: dict[str, Path]) -> None:
    [computed] = scorer_values(logs["vacuous"]).values()
    assert computed["status"] == "vacuous" and computed["passed"] == 0.0
    proc = judgekit("score", logs["vacuous"], "--json", "--no-similarity")
    assert proc.returncode == 0, proc.stderr
    [row] = json.loads(proc.stdout)["results"]
    assert (row["test_status"], row["f1"]) == ("vacuous", computed["f1"]) == ("vacuous", 1.0)


@pytest.mark.parametrize("fmt", ["eval", "json"])
def test_samples_become_results_with_the_log_facts(logs: dict[str, Path], fmt: str) -> None:
    results = sorted(load_runs(logs[fmt]), key=lambda r: r.attempt)
    assert [(r.task_id, r.attempt, r.arm) for r in results] == [
        ("calc-001", 0, "demo"), ("calc-001", 1, "demo")]
    first = results[0]
    assert first.model == "mockllm/model" and first.run_id
    assert "[user]" in first.transcript and "return None" in first.transcript
    assert "tests passed" in first.materials[f"score {SCORER}"]
    assert first.usage.input_tokens == 120 and first.metadata["source_format"] == "inspect"
    assert first.metadata["arm_from"] == "judgekit scorer"


def test_the_documented_demo_runs_offline_as_written(tmp_path: Path) -> None:
    """The docstring's commands, run from the repository root's copy of examples/, with every
    proxy pointing nowhere and no tokenizer cache: nothing may be downloaded."""
    doc = example_module().__doc__
    commands = [line.strip() for line in doc.splitlines()
                if line.strip().startswith(("inspect eval", "judgekit score"))]
    assert len(commands) == 2, commands
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / EXAMPLE.name).write_text(EXAMPLE.read_text())
    nowhere = "http://127.0.0.1:9"
    env = {**os.environ, "HTTP_PROXY": nowhere, "HTTPS_PROXY": nowhere, "http_proxy": nowhere,
           "https_proxy": nowhere, "NO_PROXY": "", "no_proxy": "",
           "TIKTOKEN_CACHE_DIR": str(tmp_path / "no-tokenizers"), "INSPECT_LOG_DIR": "",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    run = subprocess.run(shlex.split(commands[0]), cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    [log] = (tmp_path / "logs").glob("*.eval")
    [computed] = scorer_values(log).values()
    proc = judgekit(*shlex.split(commands[1])[1:], "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    [row] = json.loads(proc.stdout)["results"]
    assert (row["test_status"], row["f1"], row["arm"]) == (computed["status"], computed["f1"],
                                                           "demo")
    assert row["test_status"] == "failed"  # the mock fixes nothing


def test_json_logs_are_claimed_by_the_inspect_adapter_only(logs: dict[str, Path]) -> None:
    doc = json.loads(logs["json"].read_text())
    assert [a.name for a in ADAPTERS if a.detect(logs["json"], doc)] == ["inspect"]
    assert InspectAdapter().detect(logs["eval"], None)


def test_a_broken_eval_log_is_one_line_naming_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "broken.eval"
    bad.write_bytes(b"PK\x03\x04 not really a zip archive")
    with pytest.raises(InputError, match="not a readable Inspect AI log"):
        load_runs(bad)
    proc = judgekit("score", bad)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert "broken.eval" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("fmt", ["eval", "json"])
def test_a_truncated_log_among_good_ones_ends_with_one_line_naming_it(
        logs: dict[str, Path], tmp_path: Path, fmt: str) -> None:
    data = logs[fmt].read_bytes()
    (tmp_path / f"good.{fmt}").write_bytes(data)
    (tmp_path / f"cut.{fmt}").write_bytes(data[:len(data) // 2])
    proc = judgekit("score", tmp_path)
    assert proc.returncode == 2, proc.stdout
    [line] = proc.stderr.strip().splitlines()
    assert f"cut.{fmt}" in line and "Traceback" not in proc.stderr


def test_a_judgekit_run_with_a_bad_field_is_one_line_naming_it(tmp_path: Path) -> None:
    from inspect_ai.scorer import Score, scorer

    @scorer(metrics=[])
    def half_run() -> Any:
        async def score(state: Any, target: Any) -> Score:
            return Score(value="C", metadata={"judgekit_run": {"task": {"id": "calc-001"}}})

        return score

    task = Task(dataset=[Sample(id="calc-001", input="Fix calc.py.")], scorer=half_run())
    inspect_ai.eval(task, model=mock("done"), log_dir=str(tmp_path), display="none")
    proc = judgekit("score", tmp_path)
    assert proc.returncode == 2
    [line] = proc.stderr.strip().splitlines()
    assert ("sample calc-001 epoch 1: scores.half_run.metadata.judgekit_run.arm: required "
            "field is missing") in line and ".eval" in line
