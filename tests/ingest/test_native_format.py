"""judgekit's own run format: .json and .jsonl, schema, and clear errors for bad input."""

import json
import os

import pytest

from judgekit import load_runs, score
from judgekit.errors import InputError
from judgekit.ingest.models import RunFile
from tests.clirun import as_plain_user, judgekit

DIFF_A = "diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n@@ -1 +1 @@\n-x\n+y\n"
DIFF_B = "diff --git a/src/b.py b/src/b.py\n--- a/src/b.py\n+++ b/src/b.py\n@@ -1 +1 @@\n-x\n+y\n"
PASS = "==== 3 passed in 0.10s ===="
FAIL = "==== 1 failed, 2 passed in 0.10s ===="


def result(task="t1", arm="base", attempt=0, diff=DIFF_A, output=PASS, code=0, model="m"):
    return {"task": {"id": task, "repo": "o/r", "test_command": "pytest"}, "arm": arm,
            "attempt": attempt, "agent_diff": diff, "ground_truth_diff": DIFF_A + DIFF_B,
            "test": {"exit_code": code, "output": output}, "duration_s": 12.5,
            "usage": {"cost_usd": 0.25}, "model": model}


def test_json_run_file_and_jsonl_load_the_same(tmp_path):
    rows = [result(), result(arm="ctx", output=FAIL, code=1)]
    (tmp_path / "run.json").write_text(json.dumps({"run_id": "r1", "results": rows}))
    (tmp_path / "run.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    a = load_runs(tmp_path / "run.json")
    b = load_runs(tmp_path / "run.jsonl")
    assert [r.arm for r in a] == [r.arm for r in b] == ["base", "ctx"]
    assert a[0].run_id == "r1"
    s = score(a)
    assert s.results[0].test_status == "passed" and s.results[1].test_status == "failed"
    assert s.results[0].precision == 1.0 and s.results[0].recall == 0.5
    assert s.arms["base"].cost_total_usd == 0.25


def test_schema_command_prints_the_run_file_schema():
    proc = judgekit("schema", "run")
    assert proc.returncode == 0
    schema = json.loads(proc.stdout)
    assert schema == RunFile.model_json_schema()
    assert "results" in schema["properties"]


def test_several_attempts_give_pass_at_k(tmp_path):
    rows = [result(attempt=i, output=PASS if i == 0 else FAIL, code=0 if i == 0 else 1)
            for i in range(3)]
    (tmp_path / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    arm = score(load_runs(tmp_path / "r.jsonl")).arms["base"]
    assert arm.pass_at_k["1"] == pytest.approx(1 / 3)
    assert arm.pass_at_k["3"] == pytest.approx(1.0)


def test_arms_served_by_different_models_are_not_compared_unless_allowed(tmp_path):
    rows = [result(model="model-x"), result(arm="ctx", model="model-y")]
    (tmp_path / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    runs = load_runs(tmp_path / "r.jsonl")
    refused = score(runs)
    assert refused.comparisons == []
    assert any("different models" in w for w in refused.warnings)
    allowed = score(runs, mixed_models=True)
    assert len(allowed.comparisons) == 1 and allowed.comparisons[0].n_paired == 1


def _bad_input_cases(tmp_path):
    bad_json = tmp_path / "bad.json"
    bad_json.write_text('{"results": [')
    missing = tmp_path / "missing.json"
    missing.write_text(json.dumps({"results": [{"task": {"id": "t"}}]}))
    wrong_type = tmp_path / "wrong.jsonl"
    wrong_type.write_text(json.dumps({**result(), "attempt": "first"}) + "\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    empty_file = tmp_path / "none.json"
    empty_file.write_text('{"results": []}')
    blank = tmp_path / "blank.jsonl"
    blank.write_text("\n")
    return [
        (empty_file, "none.json", "holds no run results"),
        (blank, "blank.jsonl", "holds no run results"),
        (bad_json, "bad.json", "malformed JSON"),
        (missing, "results[0].arm", "missing"),
        (wrong_type, "wrong.jsonl: line 1: attempt: ", "integer"),
        (empty, "empty", "no run results"),
        (tmp_path / "nope.json", "nope.json", "no such file"),
    ]


def test_bad_input_raises_input_error_naming_file_and_field(tmp_path):
    for path, where, what in _bad_input_cases(tmp_path):
        with pytest.raises(InputError) as info:
            load_runs(path)
        assert where in str(info.value) and what in str(info.value)


def test_bad_input_on_the_cli_exits_2_with_one_line_and_no_traceback(tmp_path):
    out_dir = tmp_path / "out"
    for path, where, what in _bad_input_cases(tmp_path):
        proc = judgekit("score", path, "--json", "--out", out_dir)
        assert proc.returncode == 2, proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in proc.stderr
        assert str(path.name) in lines[0] and where in lines[0] and what in lines[0]
        assert proc.stdout == ""
    assert not out_dir.exists()


def test_bobbin_file_with_wrong_type_names_the_field(tmp_path, bobbin_dir):
    src = bobbin_dir / "20260210-205259-0f6c" / "flask-001_no-bobbin_0.json"
    doc = json.loads(src.read_text())
    doc["attempt"] = "zero"
    bad = tmp_path / "flask-001_no-bobbin_0.json"
    bad.write_text(json.dumps(doc))
    proc = judgekit("score", bad)
    assert proc.returncode == 2
    assert "flask-001_no-bobbin_0.json: attempt: expected int" in proc.stderr


def _bobbin_doc(bobbin_dir):
    src = bobbin_dir / "20260210-205259-0f6c" / "flask-001_no-bobbin_0.json"
    return json.loads(src.read_text())


@pytest.mark.parametrize("edit, field, what", [
    (lambda d: d.pop("task_id"), "task_id", "required field is missing"),
    (lambda d: d.pop("approach"), "approach", "required field is missing"),
    (lambda d: d["agent_result"].update(duration_seconds="long"),
     "agent_result.duration_seconds", "expected number"),
    (lambda d: d["test_result"].update(total="many"), "test_result.total", "expected int"),
    (lambda d: d["test_result"]["parsed"].update(failed=None, passed="3"),
     "test_result.parsed.passed", "expected int"),
    (lambda d: d["test_result"].pop("passed"), "test_result.passed", "missing"),
])
def test_bobbin_file_errors_name_the_field(tmp_path, bobbin_dir, edit, field, what):
    doc = _bobbin_doc(bobbin_dir)
    edit(doc)
    bad = tmp_path / "flask-001_no-bobbin_0.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(InputError) as info:
        load_runs(bad)
    assert str(info.value).startswith(f"{bad}: {field}: ") and what in str(info.value)


def test_unreadable_file_and_directory_are_permission_errors(tmp_path):
    locked = tmp_path / "tree" / "locked"
    locked.mkdir(parents=True)
    (locked / "r.jsonl").write_text("{}")
    secret = tmp_path / "secret.json"
    secret.write_text("{}")
    os.chmod(locked, 0)
    os.chmod(secret, 0)
    try:
        for path, name in ((tmp_path / "tree", "locked"), (secret, "secret.json")):
            proc = judgekit("score", path, prefix=as_plain_user())
            assert proc.returncode == 2
            (line,) = proc.stderr.strip().splitlines()
            assert name in line and "cannot read: PermissionError" in line
    finally:
        os.chmod(locked, 0o755)


def test_failed_run_keeps_earlier_output_intact(tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps(result()) + "\n")
    out = tmp_path / "out"
    assert judgekit("score", good, "--out", out).returncode == 0
    before = (out / "summary.json").read_text()
    (tmp_path / "bad.json").write_text("{")
    assert judgekit("score", good, tmp_path / "bad.json", "--out", out).returncode == 2
    assert (out / "summary.json").read_text() == before


def test_published_schemas_match_the_models():
    from pathlib import Path

    from judgekit.cli.schema import schemas

    published = Path(__file__).resolve().parents[2] / "schemas"
    for name, schema in schemas().items():
        on_disk = json.loads((published / f"{name}.schema.json").read_text())
        assert on_disk == schema, f"schemas/{name}.schema.json is stale: judgekit schema --write schemas"


def test_written_files_are_readable_by_others(tmp_path, bobbin_dir):
    out = tmp_path / "out"
    assert judgekit("score", bobbin_dir, "--out", out, "--no-similarity").returncode == 0
    old = os.umask(0o022)
    os.umask(old)
    for name in ("summary.json", "report.md", "report.html"):
        assert (out / name).stat().st_mode & 0o777 == 0o666 & ~old
