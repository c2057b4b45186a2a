"""``judgekit export inspect``: an Inspect log judged with the scripted loopback judge,
its verdicts written back into a copy that Inspect's own reader shows; the original is
left byte for byte as it was."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai")

from judgekit.cli import main  # noqa: E402
from judgekit.integrity.models import Evidence, Finding, IntegrityRecord  # noqa: E402
from judgekit.testing import FakeAPIServer  # noqa: E402
from tests.ingest import inspect_evals as ev  # noqa: E402

JUDGE = "openai:gpt-4.1-mini"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("wb")
    logs = root / "logs"
    logs.mkdir()
    ev.run(ev.swe_calc(errors="s5"), logs, "eval", ev.BASELINE, metadata={"arm": "baseline"})
    ev.run(ev.swe_calc(), logs, "eval", ev.CONTEXT, metadata={"arm": "context"})
    out = root / "out"
    saved = dict(os.environ)
    try:
        with FakeAPIServer() as server:
            os.environ.update({**server.env(), "OPENAI_API_KEY": "test-key",
                               "JUDGEKIT_CACHE": str(root / "c.sqlite")})
            code = main(["judge", str(logs), "--judge", JUDGE, "--out", str(out),
                         "--no-audit", "--no-similarity"])
    finally:
        os.environ.clear()
        os.environ.update(saved)
    assert code == 0
    return logs, out


def test_the_copy_carries_the_pairwise_outcomes(judged: tuple[Path, Path], tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from inspect_ai.log import read_eval_log

    logs, out = judged
    originals = sorted(logs.glob("*.eval"))
    before = {p: _digest(p) for p in originals}
    dest = tmp_path / "copies"
    assert main(["export", "inspect", str(out), *map(str, originals), "--to", str(dest),
                 "--json"]) == 0
    summary: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert {p: _digest(p) for p in originals} == before
    records = [json.loads(x) for x in (out / "pairwise.jsonl").read_text().splitlines()]
    assert records
    want: dict[tuple[str, str], dict[str, str]] = {}
    for r in records:
        for dim, d in r["dimensions"].items():
            for me, other in ((r["arm_a"], r["arm_b"]), (r["arm_b"], r["arm_a"])):
                value = ("unscored" if d["state"] != "valid" else "draw"
                         if d["winner"] == "draw" else "win" if d["winner"] == me else "loss")
                want.setdefault((r["task_id"], me), {})[
                    f"judgekit_pairwise/{dim}/vs/{other}"] = value
    seen: dict[tuple[str, str], dict[str, str]] = {}
    for original in originals:
        copy = dest / original.name
        log = read_eval_log(str(copy))
        arm = log.eval.metadata["arm"]
        assert log.samples
        for sample in log.samples:
            scores = sample.scores or {}
            assert "judgekit_tests" in scores and scores["judgekit_tests"].explanation
            got = {k: str(v.value) for k, v in scores.items()
                   if k.startswith("judgekit_pairwise/")}
            if got:
                seen[(f"{log.eval.task}/{sample.id}", arm)] = got
    assert seen == want
    assert summary["samples_scored"] == summary["samples"] == sum(
        len(read_eval_log(str(p)).samples or []) for p in originals)


def test_the_copy_keeps_the_evals_own_scores(judged: tuple[Path, Path], tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    from inspect_ai.log import read_eval_log

    logs, out = judged
    original = sorted(logs.glob("*.eval"))[0]
    assert main(["export", "inspect", str(out), str(original), "--to", str(tmp_path)]) == 0
    capsys.readouterr()
    first = read_eval_log(str(original)).samples or []
    copied = read_eval_log(str(tmp_path / original.name)).samples or []
    for a, b in zip(first, copied):
        for name, score in (a.scores or {}).items():
            assert (b.scores or {})[name].value == score.value


def test_a_copy_over_the_original_is_refused(judged: tuple[Path, Path],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    logs, out = judged
    original = sorted(logs.glob("*.eval"))[0]
    before = _digest(original)
    assert main(["export", "inspect", str(out), str(original), "--to", str(logs)]) == 2
    assert "overwrite the original" in capsys.readouterr().err
    assert _digest(original) == before


def test_audit_and_integrity_records_become_scores(judged: tuple[Path, Path], tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    from inspect_ai.log import read_eval_log

    logs, out = judged
    mine = tmp_path / "out"
    shutil.copytree(out, mine)
    pair = json.loads((out / "pairwise.jsonl").read_text().splitlines()[0])
    task, arm, attempt = pair["task_id"], pair["arm_a"], pair["attempt_a"]
    verdict = {"score": 1, "deficiency_exists": True, "deficiency_caused_failure": True,
               "deficiency_type": "Broken Check", "existence_reasoning": "the test is wrong",
               "causation_reasoning": "so the fix fails", "evidence": "line 3"}
    (mine / "audit.jsonl").write_text(json.dumps(
        {"task_id": task, "arm": arm, "attempt": attempt, "test_status": "failed",
         "state": "valid", "verdict": verdict, "deficiency_type": "Broken Check"}) + "\n")
    record = IntegrityRecord(
        task_id=task, arm=arm, attempt=attempt, test_status="passed", passed=True,
        findings=[Finding(kind="skip-tests", severity="severe", detail="adds a skip marker",
                          evidence=Evidence(file="tests/test_calc.py", hunk="@@ -1,2 +1,3 @@",
                                            excerpt="@pytest.mark.skip"))],
        confirmation="confirmed", counted_apart=True)
    (mine / "integrity.jsonl").write_text(record.model_dump_json() + "\n")
    originals = sorted(logs.glob("*.eval"))
    dest = tmp_path / "copies"
    assert main(["export", "inspect", str(mine), *map(str, originals), "--to", str(dest)]) == 0
    capsys.readouterr()
    found = []
    for original in originals:
        log = read_eval_log(str(dest / original.name))
        for sample in log.samples or []:
            scores = sample.scores or {}
            if "judgekit_audit" in scores:
                found.append((f"{log.eval.task}/{sample.id}", log.eval.metadata["arm"],
                              scores["judgekit_audit"].value, scores["judgekit_audit"].answer,
                              scores["judgekit_integrity"].value,
                              scores["judgekit_integrity"].explanation))
    assert found == [(task, arm, 1, "Broken Check", 1,
                      "skip-tests (severe): adds a skip marker "
                      "[tests/test_calc.py @@ -1,2 +1,3 @@; confirmed]")]


def test_a_bad_integrity_line_names_the_file_and_field(judged: tuple[Path, Path],
                                                      tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    import shutil

    logs, out = judged
    mine = tmp_path / "out"
    shutil.copytree(out, mine)
    (mine / "integrity.jsonl").write_text(json.dumps(
        {"task_id": "t", "arm": "a", "attempt": 0, "finding": "reads the tests"}) + "\n")
    originals = sorted(logs.glob("*.eval"))
    assert main(["export", "inspect", str(mine), *map(str, originals), "--to",
                 str(tmp_path / "copies")]) == 2
    err = capsys.readouterr().err
    assert "integrity.jsonl" in err and "test_status" in err


def test_inspect_view_lists_the_scores_in_a_browser(judged: tuple[Path, Path], tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """`inspect view` on the copies, read in headless Chromium: each judgekit score is a
    column of the samples list, with each sample's value in it."""
    import shutil
    import socket
    import subprocess
    import sys
    import time

    from inspect_ai.log import read_eval_log

    from tests.review.cdp import Browser

    logs, out = judged
    original = sorted(logs.glob("*.eval"))[0]
    dest = tmp_path / "copies"
    assert main(["export", "inspect", str(out), str(original), "--to", str(dest)]) == 0
    capsys.readouterr()
    samples = read_eval_log(str(dest / original.name)).samples or []
    names = sorted({k for s in samples for k in (s.scores or {}) if k.startswith("judgekit")})
    assert names
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    inspect = shutil.which("inspect", path=str(Path(sys.executable).parent)) or "inspect"
    view = subprocess.Popen([inspect, "view", "--log-dir", str(dest), "--host", "127.0.0.1",
                             "--port", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    browser = None
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.2)
        browser = Browser(tmp_path / "browser")
        browser.goto(f"http://127.0.0.1:{port}/#/logs/{original.name}")
        shown = browser.wait_for(
            "(() => { const t = document.body ? document.body.innerText : '';"
            " return /judgekit_tests/i.test(t) && /Samples/.test(t) ? t : ''; })()")
        browser.screenshot("inspect-view")
    finally:
        if browser is not None:
            browser.close()
        view.terminate()
        view.wait(10)
    text = str(shown).lower()
    for name in names:
        assert name.lower() in text, name
    for sample in samples:
        value = str((sample.scores or {})["judgekit_tests"].value).lower()
        assert value in text
