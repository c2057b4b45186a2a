"""Every file a command reads, made hostile: one line on stderr naming the file, exit 2, no
traceback, nothing written.

A judged and audited output of the bundled example (the scripted judge of
:mod:`judgekit.testing`) with a ``calibration.json`` is copied for each case; one of its files
is replaced by an attack (JSON nested 100,000 deep, open or closed; bytes that are not UTF-8;
the file cut in the middle of a string) and each command that reads that file is run on it:
``report DIR``, ``compare A B``, ``calibrate DIR --labels ...`` (audit and pairwise labels)
and ``judge DIR`` (a judged output judged again). The label files of ``calibrate`` get their
own attacks; a CSV saved by a spreadsheet as "CSV UTF-8" (a byte order mark first) is read
as the same CSV without it.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from judgekit.testing import FakeAPIServer
from tests.clirun import ROOT, judgekit
from tests.conftest import EXAMPLE_BOBBIN

JUDGE = "anthropic:claude-haiku-4-5"
GOLD = ROOT / "tests" / "pairwise" / "data" / "bobbin_gold.csv"
BOM = b"\xef\xbb\xbf"


@pytest.fixture(scope="module")
def server() -> Iterator[FakeAPIServer]:
    with FakeAPIServer() as srv:
        yield srv


def _env(server: FakeAPIServer, tmp: Path) -> dict[str, str]:
    return {**server.env(), "ANTHROPIC_API_KEY": "test-key",
            "JUDGEKIT_CACHE": str(tmp / "cache.sqlite")}


@pytest.fixture(scope="module")
def judged(server: FakeAPIServer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A judged, audited and calibrated output of the bundled example."""
    tmp = tmp_path_factory.mktemp("judged")
    out = tmp / "out"
    proc = judgekit("judge", EXAMPLE_BOBBIN, "--judge", JUDGE, "--out", out,
                    env=_env(server, tmp))
    assert proc.returncode == 0, proc.stderr
    labels = tmp / "labels.csv"
    labels.write_text(_audit_labels(out))
    proc = judgekit("calibrate", out, "--labels", labels)
    assert proc.returncode == 0, proc.stderr
    assert {"summary.json", "runs.jsonl", "pairwise.jsonl", "audit.jsonl",
            "calibration.json"} <= {p.name for p in out.iterdir()}
    return out


def _audit_labels(out: Path) -> str:
    """Audit labels for the tasks the output's audit judged: 1 and 0 in turn."""
    tasks = sorted({json.loads(line)["task_id"] for line in
                    (out / "audit.jsonl").read_text().splitlines() if line.strip()})
    return "task_id,label\n" + "".join(f"{t},{i % 2}\n" for i, t in enumerate(tasks))


def _cut(data: bytes) -> bytes:
    """The file cut short inside a string: the first string value after the middle opened
    and the rest of the file gone."""
    opening = re.compile(rb'[:\[,]\s*"')
    found = opening.search(data, len(data) // 2) or opening.search(data)
    assert found is not None
    return data[:found.end()] + b"cut"


#: Attack name -> the hostile bytes, made from the file's own bytes.
ATTACKS: dict[str, Callable[[bytes], bytes]] = {
    "nested-open": lambda data: b"[" * 100_000,
    "nested-closed": lambda data: b"[" * 100_000 + b"]" * 100_000,
    "not-utf8": lambda data: data[:len(data) // 2] + b"\xff\xfe\xc3(" + data[len(data) // 2:],
    "cut-short": _cut,
}

#: Which commands read which file of an output directory (``{dir}``: the hostile copy,
#: ``{good}``: an intact copy, ``{labels}``/``{gold}``: audit and pairwise label files).
READERS: dict[str, list[tuple[str, ...]]] = {
    "summary.json": [("report", "{dir}"), ("compare", "{dir}", "{good}"),
                     ("calibrate", "{dir}", "--labels", "{labels}"),
                     ("calibrate", "{dir}", "--labels", "{gold}"),
                     ("judge", "{dir}", "--judge", JUDGE)],
    "pairwise.jsonl": [("report", "{dir}"), ("compare", "{good}", "{dir}"),
                       ("calibrate", "{dir}", "--labels", "{gold}"),
                       ("judge", "{dir}", "--judge", JUDGE)],
    "audit.jsonl": [("report", "{dir}"), ("calibrate", "{dir}", "--labels", "{labels}"),
                    ("judge", "{dir}", "--judge", JUDGE)],
    "calibration.json": [("report", "{dir}"), ("calibrate", "{dir}", "--labels", "{labels}"),
                         ("calibrate", "{dir}", "--labels", "{gold}"),
                         ("judge", "{dir}", "--judge", JUDGE)],
    "runs.jsonl": [("report", "{dir}"), ("judge", "{dir}", "--judge", JUDGE)],
}

#: Every reader of every file meets every attack; a closed nesting (orjson refuses it, the
#: strict reader is asked, as for an open one) is tried on ``report`` only.
CASES = [pytest.param(name, command, attack, id=f"{name}-{command[0]}"
                      f"{'-gold' if '{gold}' in command else ''}-{attack}")
         for name, commands in READERS.items() for command in commands for attack in ATTACKS
         if attack != "nested-closed" or command[0] == "report"]


def _snapshot(root: Path) -> dict[str, str]:
    """Every file under ``root`` (hidden ones too) and a hash of its bytes."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def assert_one_line_refusal(proc, *names: str) -> str:
    """Exit 2, one line on stderr that names each of ``names``, no traceback."""
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr and "Error:" not in proc.stderr
    for name in names:
        assert name in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize(("name", "command", "attack"), CASES)
def test_a_hostile_output_file_is_refused_in_one_line(
        judged: Path, server: FakeAPIServer, tmp_path: Path, name: str,
        command: tuple[str, ...], attack: str) -> None:
    work = tmp_path / "work"
    hostile, good = work / "hostile", work / "good"
    shutil.copytree(judged, hostile)
    shutil.copytree(judged, good)
    target = hostile / name
    target.write_bytes(ATTACKS[attack](target.read_bytes()))
    (work / "labels.csv").write_text(_audit_labels(judged))
    shutil.copy(GOLD, work / "gold.csv")
    before = _snapshot(work)
    args = [a.format(dir=hostile, good=good, labels=work / "labels.csv", gold=work / "gold.csv")
            for a in command]
    proc = judgekit(*args, env=_env(server, tmp_path))
    line = assert_one_line_refusal(proc, str(target))
    assert _snapshot(work) == before, "a refused command wrote or changed a file"
    if attack.startswith("nested"):
        assert "nested deeper than 64 levels" in line
    elif attack == "not-utf8":
        assert "UTF-8" in line
    else:
        assert re.search(r"malformed JSON at (line \d+ )?column \d+: a string starts there "
                         r"and is never closed: the (file|line) ends first \(is it cut "
                         r"short\?\)$", line), line


# --- label files of calibrate ---------------------------------------------------------


def _calibrate(verdicts: Path, labels: Path) -> object:
    return judgekit("calibrate", verdicts, "--labels", labels, "--json")


@pytest.fixture
def labels(judged: Path, tmp_path: Path) -> dict[str, Path]:
    """The audit labels (CSV), the pairwise gold labels as CSV and as JSON lines."""
    audit_csv = tmp_path / "labels.csv"
    audit_csv.write_text(_audit_labels(judged))
    gold_csv = tmp_path / "gold.csv"
    shutil.copy(GOLD, gold_csv)
    gold_jsonl = tmp_path / "gold.jsonl"
    import csv
    with GOLD.open(newline="") as fh:
        gold_jsonl.write_text("".join(json.dumps(row) + "\n" for row in csv.DictReader(fh)))
    return {"audit": audit_csv, "gold": gold_csv, "gold-jsonl": gold_jsonl}


def _verdicts(judged: Path, kind: str) -> Path:
    return judged / ("audit.jsonl" if kind == "audit" else "pairwise.jsonl")


def _second_line_made(data: bytes, make: Callable[[bytes], bytes]) -> bytes:
    lines = data.split(b"\n")
    lines[1] = make(lines[1])
    return b"\n".join(lines)


LABEL_ATTACKS: dict[str, tuple[Callable[[bytes], bytes], str]] = {
    "not-utf8": (lambda data: _second_line_made(data, lambda line: line + b"\xff\xfe"),
                 "not valid UTF-8"),
    "huge-field": (lambda data: _second_line_made(
        data, lambda line: line.replace(b",", b',"' + b"x" * 200_000 + b'",', 1)),
        "line 2: a field is longer than 131072 characters: refused"),
}
JSONL_ATTACKS: dict[str, tuple[Callable[[bytes], bytes], str]] = {
    "not-utf8": (lambda data: _second_line_made(data, lambda line: line + b"\xff\xfe"),
                 "not valid UTF-8"),
    "nested": (lambda data: _second_line_made(data, lambda line: b"[" * 100_000),
               "line 2: nested deeper than 64 levels"),
    "cut-short": (lambda data: _second_line_made(data, lambda line: line[:line.index(b":") + 3]),
                  "line 2: malformed JSON at column "),
}

LABEL_CASES = ([pytest.param(kind, attack, id=f"{kind}-{attack}")
                for kind in ("audit", "gold") for attack in LABEL_ATTACKS]
               + [pytest.param("gold-jsonl", attack, id=f"gold-jsonl-{attack}")
                  for attack in JSONL_ATTACKS])


@pytest.mark.parametrize(("kind", "attack"), LABEL_CASES)
def test_a_hostile_label_file_is_refused_in_one_line(
        judged: Path, labels: dict[str, Path], kind: str, attack: str) -> None:
    path = labels[kind]
    make, says = (JSONL_ATTACKS if kind == "gold-jsonl" else LABEL_ATTACKS)[attack]
    path.write_bytes(make(path.read_bytes()))
    out = shutil.copytree(judged, path.parent / "out")
    before = _snapshot(out)
    proc = _calibrate(out, path)
    line = assert_one_line_refusal(proc, str(path), says)
    assert _snapshot(out) == before
    if attack == "cut-short":
        assert line.endswith("the line ends first (is it cut short?)"), line


@pytest.mark.parametrize("kind", ["audit", "gold", "gold-jsonl"])
def test_a_label_file_with_a_byte_order_mark_is_read_as_without_it(
        judged: Path, labels: dict[str, Path], tmp_path: Path, kind: str) -> None:
    plain = labels[kind]
    marked = tmp_path / "marked" / plain.name
    marked.parent.mkdir()
    marked.write_bytes(BOM + plain.read_bytes())
    verdicts = _verdicts(judged, "audit" if kind == "audit" else "gold")
    with_bom, without = _calibrate(verdicts, marked), _calibrate(verdicts, plain)
    assert with_bom.returncode == 0, with_bom.stderr
    assert without.returncode == 0, without.stderr
    result = json.loads(with_bom.stdout)
    assert result == json.loads(without.stdout)
    assert (result["n"] if kind == "audit" else result["n_labels"]) > 0


# --- run files cut short --------------------------------------------------------------


@pytest.mark.parametrize(("name", "text", "where"), [
    ("runs.json", '{"format": "judgekit-run", "results": [{"task": {"id": "x", "repo": "a/b',
     "column 69"),
    ("runs.json", '{\n  "results": [\n    {"task": {"id": "x"}, "arm": "a",\n', "line 4 column 1"),
    ("runs.jsonl", '{"task": {"id": "x", "repo": "a/b', "line 1: malformed JSON at column 30"),
    ("runs.jsonl", '{"task": {"id": "x"}, "arm": "a"}\n{"task": {"id": "y", "repo": "a/b\n',
     "line 2: malformed JSON at column 30"),
])
def test_a_run_file_cut_short_is_named_in_a_whole_sentence(
        tmp_path: Path, name: str, text: str, where: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    proc = judgekit("score", path, "--out", tmp_path / "out")
    line = assert_one_line_refusal(proc, str(path), where)
    assert line.endswith("ends first (is it cut short?)") or line.endswith(
        "inside the JSON value (is it cut short?)"), line
    assert not (tmp_path / "out").exists()


# --- suites, task datasets and rubrics ------------------------------------------------

DEEP_YAML = "name: x\ntasks: " + "[" * 100_000 + "\n"
OTHER_FILES = [
    pytest.param("suite.yaml", DEEP_YAML.encode(), "--tasks", "invalid YAML: nested too deeply",
                 id="suite-nested"),
    pytest.param("suite.yaml", b"name: x\ntasks: \xff\n", "--tasks", "not valid UTF-8",
                 id="suite-not-utf8"),
    pytest.param("dataset.json", b"[" * 100_000, "--tasks", "nested deeper than 64 levels",
                 id="dataset-nested"),
    pytest.param("rubric.md", ("---\nid: " + "[" * 100_000 + "\n---\n").encode(), "--rubric",
                 "front matter: invalid YAML: nested too deeply", id="rubric-nested"),
    pytest.param("rubric.md", b"---\nid: x\n---\n\xff\n", "--rubric", "not valid UTF-8",
                 id="rubric-not-utf8"),
]


@pytest.mark.parametrize(("name", "data", "option", "says"), OTHER_FILES)
def test_a_hostile_suite_dataset_or_rubric_is_refused_in_one_line(
        tmp_path: Path, name: str, data: bytes, option: str, says: str) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    command = "audit" if option == "--rubric" else "score"
    judge = ["--judge", JUDGE] if command == "audit" else []
    proc = judgekit(command, EXAMPLE_BOBBIN, option, path, *judge, "--out", tmp_path / "out",
                    env={"ANTHROPIC_API_KEY": "test-key",
                         "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"})
    assert_one_line_refusal(proc, str(path), says)
    assert not (tmp_path / "out").exists()
