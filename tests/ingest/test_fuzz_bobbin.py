"""A corpus of mutants of a real bobbin result directory.

Every mutant ends with exit 0 and correct JSON (no NaN, no infinity), or exit 2 and one line
on stderr naming the file (and the field, where one is at fault); never a traceback or a hang.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from judgekit.cli import main
from tests.clirun import judgekit

RUN = "20260210-205259-0f6c"
VICTIM = "flask-001_no-bobbin_0.json"

Doc = dict[str, Any]


def _set(path: str, value: Any) -> Callable[[Doc], Doc]:
    def mutate(doc: Doc) -> Doc:
        doc = copy.deepcopy(doc)
        *parents, last = path.split(".")
        target = doc
        for p in parents:
            target = target.setdefault(p, {})
        target[last] = value
        return doc
    return mutate


def _drop(path: str) -> Callable[[Doc], Doc]:
    def mutate(doc: Doc) -> Doc:
        doc = copy.deepcopy(doc)
        *parents, last = path.split(".")
        target = doc
        for p in parents:
            target = target[p]
        target.pop(last, None)
        return doc
    return mutate


def _deep(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


# (name, mutation of the parsed document, field the error must name or None for any outcome)
FIELD_MUTANTS: list[tuple[str, Callable[[Doc], Doc], str | None]] = [
    ("task_id null", _set("task_id", None), "task_id"),
    ("task_id empty", _set("task_id", ""), "task_id"),
    ("task_id blank", _set("task_id", "   "), "task_id"),
    ("task_id number", _set("task_id", 7), "task_id"),
    ("task_id list", _set("task_id", ["a"]), "task_id"),
    ("approach null", _set("approach", None), "approach"),
    ("approach object", _set("approach", {}), "approach"),
    ("attempt negative", _set("attempt", -1), "attempt"),
    ("attempt float", _set("attempt", 1.5), "attempt"),
    ("attempt bool", _set("attempt", True), "attempt"),
    ("attempt word", _set("attempt", "first"), "attempt"),
    ("attempt huge", _set("attempt", 10**30), "attempt"),
    ("duration negative", _set("agent_result.duration_seconds", -3), "duration_seconds"),
    ("duration string", _set("agent_result.duration_seconds", "12"), "duration_seconds"),
    ("cost negative", _set("agent_result.cost_usd", -1.0), "cost_usd"),
    ("cost string", _set("agent_result.cost_usd", "1.2"), "cost_usd"),
    ("agent_result list", _set("agent_result", [1]), "agent_result"),
    ("task.repo number", _set("task.repo", 5), "task.repo"),
    ("task.commit list", _set("task.commit", ["abc"]), "task.commit"),
    ("task.test_command object", _set("task.test_command", {"a": 1}), "task.test_command"),
    ("task.language number", _set("task.language", 3), "task.language"),
    ("task.description bool", _set("task.description", True), "task.description"),
    ("task.tags string", _set("task.tags", "bugfix"), "task.tags"),
    ("task.tags numbers", _set("task.tags", [1, 2]), "task.tags[0]"),
    ("task string", _set("task", "flask"), "task"),
    ("test_result string", _set("test_result", "passed"), "test_result"),
    ("test_result.passed string", _set("test_result.passed", "yes"), "test_result.passed"),
    ("test_result.passed missing", _drop("test_result.passed"), "test_result.passed"),
    ("test_result.total negative", _set("test_result.total", -4), "test_result.total"),
    ("test_result.output number", _set("test_result.output", 5), "test_result.output"),
    ("test_result.timed_out string", _set("test_result.timed_out", "no"),
     "test_result.timed_out"),
    ("test_result.parsed list", _set("test_result.parsed", [1]), "test_result.parsed"),
    ("test_result.exit_code contradicts", _set("test_result.exit_code", 0),
     "test_result.exit_code"),
    ("diff_result.files_touched string", _set("diff_result.files_touched", "a.py"),
     "diff_result.files_touched"),
    ("agent_diff number", _set("agent_diff", 5), "agent_diff"),
    ("ground_truth_diff list", _set("ground_truth_diff", []), "ground_truth_diff"),
    ("status number", _set("status", 3), "status"),
    ("status empty", _set("status", ""), "status"),
    ("error number", _set("error", 3), "error"),
    ("run_id number", _set("run_id", 9), "run_id"),
    ("timestamp list", _set("timestamp", [1]), "timestamp"),
    ("agent_config.model number", _set("agent_config.model", 4), "agent_config.model"),
    ("injected files numbers", _set("bobbin_metrics.injected_files", [1]),
     "bobbin_metrics.injected_files[0]"),
    ("task_id missing", _drop("task_id"), "task_id"),
    ("attempt missing", _drop("attempt"), "attempt"),
    ("deep nesting in an unread field", _set("project_metadata", _deep(200)), None),
    ("unknown fields", _set("surprise", {"x": [1, 2, {"y": None}]}), None),
    ("harness failure without test", lambda d: {**_drop("test_result")(d),
                                                "status": "workspace_error"}, None),
]

# (name, raw text of the victim built from its JSON text, field or None)
TEXT_MUTANTS: list[tuple[str, Callable[[str], bytes], str | None]] = [
    ("truncated 10%", lambda t: t[: len(t) // 10].encode(), None),
    ("truncated 50%", lambda t: t[: len(t) // 2].encode(), None),
    ("truncated last byte", lambda t: t.rstrip()[:-1].encode(), None),
    ("empty", lambda t: b"", None),
    ("top-level array", lambda t: b"[1, 2]", None),
    ("top-level null", lambda t: b"null", None),
    ("top-level string", lambda t: b'"flask-001"', None),
    ("top-level number", lambda t: b"42", None),
    ("NaN duration", lambda t: t.replace('"duration_seconds": ', '"duration_seconds": NaN, "x": ',
                                         1).encode(), "duration_seconds"),
    ("Infinity cost", lambda t: t.replace('"duration_seconds": ', '"cost_usd": Infinity, '
                                          '"duration_seconds": ', 1).encode(), "cost_usd"),
    ("1e400 duration", lambda t: t.replace('"duration_seconds": ', '"duration_seconds": 1e400, '
                                           '"x": ', 1).encode(), "duration_seconds"),
    ("5001-digit attempt", lambda t: t.replace('"attempt": 0', '"attempt": ' + "9" * 5001,
                                               1).encode(), "attempt"),
    ("5001-digit unread int", lambda t: t.replace('{', '{"big": ' + "7" * 5001 + ", ", 1
                                                  ).encode(), "big"),
    ("deep nesting 100000", lambda t: t.replace('{', '{"deep": ' + "[" * 100_000 + "]" * 100_000
                                                + ", ", 1).encode(), None),
    ("invalid UTF-8", lambda t: t.replace('"task_id"', '"task_\xff_id"', 1).encode("latin-1"),
     None),
    ("UTF-8 BOM", lambda t: b"\xef\xbb\xbf" + t.encode(), None),
    ("lone surrogate", lambda t: t.replace('"approach": "', '"approach": "\\ud800', 1).encode(),
     "approach"),
    ("NUL bytes", lambda t: t.encode().replace(b"{", b"{\x00", 1), None),
]


@pytest.fixture
def real_dir(tmp_path: Path, bobbin_dir: Path) -> Path:
    run = tmp_path / RUN
    shutil.copytree(bobbin_dir / RUN, run)
    return run


def _no_nan(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise AssertionError(f"{name} in the output")
    return json.loads(text, parse_constant=refuse)


def _check(capsys, target: Path, bad_file: Path, field: str | None) -> None:
    code = main(["score", str(target), "--json", "--no-similarity"])
    out, err = capsys.readouterr()
    assert code in (0, 2), err
    if code == 0:
        data = _no_nan(out)
        assert data["results"], "exit 0 means results"
        return
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert str(bad_file) in lines[0] or str(bad_file.parent) in lines[0], lines[0]
    if field is not None:
        assert f": {field}" in lines[0] or f".{field}" in lines[0], lines[0]


@pytest.mark.parametrize("name,mutate,field", FIELD_MUTANTS, ids=[m[0] for m in FIELD_MUTANTS])
def test_field_mutants(real_dir, capsys, name, mutate, field):
    victim = real_dir / VICTIM
    victim.write_text(json.dumps(mutate(json.loads(victim.read_text()))))
    _check(capsys, real_dir, victim, field)
    if field is not None:  # a named field is always an error, never a silent acceptance
        assert main(["score", str(real_dir), "--json", "--no-similarity"]) == 2


@pytest.mark.parametrize("name,mutate,field", TEXT_MUTANTS, ids=[m[0] for m in TEXT_MUTANTS])
def test_text_mutants(real_dir, capsys, name, mutate, field):
    victim = real_dir / VICTIM
    victim.write_bytes(mutate(victim.read_text()))
    _check(capsys, real_dir, victim, field)
    _check(capsys, victim, victim, field)  # the file alone


def test_wrong_shape_documents_are_never_dropped_silently(real_dir, capsys):
    victim = real_dir / VICTIM
    for text in ("[1, 2]", "null", '"flask-001"'):
        victim.write_text(text)
        assert main(["score", str(real_dir), "--json", "--no-similarity"]) == 2
        assert VICTIM in capsys.readouterr().err


@pytest.mark.parametrize("text", ["[]", "null", '{"model": 5, "run_id": "x"}', "{", "NaN"])
def test_bad_manifest(real_dir, capsys, text):
    manifest = real_dir / "manifest.json"
    manifest.write_text(text)
    assert main(["score", str(real_dir), "--json", "--no-similarity"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "manifest.json" in err


def _cli(*args: str | Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return judgekit(*map(str, args), timeout=timeout)


def _refused_in_time(proc: subprocess.CompletedProcess[str], name: str) -> None:
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert name in line and "Traceback" not in proc.stderr


def test_fifo_named_json_is_refused_without_reading(real_dir):
    fifo = real_dir / "stuck.json"
    os.mkfifo(fifo)
    _refused_in_time(_cli("score", real_dir, "--json"), "stuck.json")
    _refused_in_time(_cli("score", fifo, "--json"), "stuck.json")


def test_fifo_manifest_is_refused_without_reading(real_dir):
    manifest = real_dir / "manifest.json"
    manifest.unlink()
    os.mkfifo(manifest)
    _refused_in_time(_cli("score", real_dir / VICTIM, "--json"), "manifest.json")


def test_symlink_to_dev_zero_is_refused(real_dir):
    (real_dir / "zero.json").symlink_to("/dev/zero")
    _refused_in_time(_cli("score", real_dir, "--json"), "zero.json")


def test_symlink_loop_is_refused(real_dir):
    (real_dir / "loop.json").symlink_to(real_dir / "loop.json")
    _refused_in_time(_cli("score", real_dir, "--json"), "loop.json")


def test_directory_symlink_loop_is_not_followed(real_dir):
    (real_dir / "sub").mkdir()
    (real_dir / "sub" / "up").symlink_to(real_dir)
    proc = _cli("score", real_dir, "--json", "--no-similarity")
    assert proc.returncode == 0, proc.stderr
    assert len(json.loads(proc.stdout)["results"]) == 2


def test_socket_named_json_is_refused(real_dir):
    import socket

    path = real_dir / "s.json"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        _refused_in_time(_cli("score", real_dir, "--json"), "s.json")
    finally:
        server.close()


def test_oversized_file_is_refused_without_reading(real_dir):
    from judgekit.io import MAX_FILE_BYTES

    huge = real_dir / "huge.json"
    with open(huge, "wb") as fh:
        fh.truncate(MAX_FILE_BYTES + 1)  # sparse: no disk, and never read
    _refused_in_time(_cli("score", huge, "--json"), "huge.json")


def test_ten_thousand_empty_files(real_dir):
    many = real_dir / "many"
    many.mkdir()
    for i in range(10_000):
        (many / f"e{i}.json").touch()
    proc = _cli("score", real_dir, "--json", "--no-similarity", timeout=120)
    assert proc.returncode == 0, proc.stderr
    data = _no_nan(proc.stdout)
    assert len(data["results"]) == 2
    assert any("10000 files empty file: skipped" in w for w in data["warnings"])


def test_jsonl_with_a_bad_line_names_the_line(tmp_path, bobbin_dir):
    from judgekit import load_runs

    results = load_runs(bobbin_dir / RUN)
    path = tmp_path / "run.jsonl"
    lines = [r.model_dump_json() for r in results]
    lines.insert(1, '{"task": {"id": "x"}, "arm": "a", "duration_s": NaN}')
    path.write_text("\n".join(lines) + "\n")
    proc = _cli("score", path)
    _refused_in_time(proc, "run.jsonl")
    assert "line 2: duration_s" in proc.stderr


