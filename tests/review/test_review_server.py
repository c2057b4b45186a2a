"""The review server refuses what is not its own page's, and labels are kept whatever
happens: a refused request writes nothing, a later label supersedes, a torn line is left
out, reported and kept."""

from __future__ import annotations

import http.client
import json
import shutil
from pathlib import Path

import jsonschema
import pytest

from judgekit.audit import load_rubric
from judgekit.pairwise.gold import read_gold
from judgekit.review.evidence import find_quote
from judgekit.review.items import load_queue
from judgekit.review.labels import LabelStore, pairwise_gold_set
from judgekit.review.server import ReviewState
from judgekit.testing import FakeAPIServer
from tests.audit.helpers import standard_results
from tests.audit.helpers import write_runs as write_audit_runs
from tests.clirun import ROOT, judgekit
from tests.review.conftest import (
    BASE,
    CTX,
    JUDGE,
    Served,
    sound_judge,
    free_port,
    start_review,
)

LABEL = {"i": 0, "dimension": "consistency", "choice": "left"}


def _post(port: int, body: object, headers: dict[str, str]) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("POST", "/api/label", body=json.dumps(body).encode(),
                     headers={"Content-Type": "application/json", **headers})
        return conn.getresponse().status
    finally:
        conn.close()


def _get(port: int, path: str, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path, headers=headers)
        resp = conn.getresponse()
        return resp.status, dict(resp.getheaders()), resp.read()
    finally:
        conn.close()


def test_a_label_without_the_token_or_from_another_origin_or_host_is_refused(
        judged_out: Path, tmp_path: Path, servers: list[Served]) -> None:
    out = Path(shutil.copytree(judged_out, tmp_path / "out"))
    s = start_review(out, free_port())
    servers.append(s)
    own = f"127.0.0.1:{s.port}"
    labels = out / "labels" / "pairwise.jsonl"
    assert _post(s.port, LABEL, {"Host": own}) == 403  # no token
    assert _post(s.port, LABEL, {"Host": own, "X-Review-Token": "wrong"}) == 403
    assert _post(s.port, LABEL, {"Host": own, "X-Review-Token": s.token,
                                 "Origin": "http://evil.example"}) == 403
    assert _post(s.port, LABEL, {"Host": f"evil.example:{s.port}",
                                 "X-Review-Token": s.token}) == 403  # DNS rebinding
    assert _post(s.port, LABEL, {"Host": own, "X-Review-Token": s.token,
                                 "Origin": f"http://127.0.0.1:{s.port + 1}"}) == 403
    assert not labels.exists()  # nothing written
    assert _get(s.port, "/api/item?i=0", {"Host": own})[0] == 403  # reading needs it too
    assert _get(s.port, "/?token=wrong", {"Host": own})[0] == 403
    assert _post(s.port, LABEL, {"Host": own, "X-Review-Token": s.token,
                                 "Origin": f"http://{own}"}) == 200
    assert len(labels.read_text().splitlines()) == 1


def test_every_answer_has_a_strict_content_security_policy(
        judged_out: Path, servers: list[Served]) -> None:
    s = start_review(judged_out, free_port())
    servers.append(s)
    status, headers, body = _get(s.port, f"/?token={s.token}", {"Host": f"127.0.0.1:{s.port}"})
    assert status == 200 and b"<script src=\"/static/app.js\">" in body
    csp = headers["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp
    assert "unsafe-inline" not in csp
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer"
    assert b"innerHTML" not in (Path(__file__).parents[2] / "judgekit" / "review" / "static" /
                                "app.js").read_bytes()


def test_a_later_label_by_the_same_labeller_supersedes_and_calibrate_reads_the_last(
        tmp_path: Path) -> None:
    store = LabelStore(tmp_path, "ana")
    store.add_pairwise("t1", "x", "y", "minimality", "A", shown_sha256="0" * 64)
    store.add_pairwise("t1", "x", "y", "minimality", "B", shown_sha256="0" * 64)
    other = LabelStore(tmp_path, "bo")
    assert not other.pairwise  # each labeller's own
    again = LabelStore(tmp_path, "ana")
    assert again.pairwise[("t1", "x", "y", "minimality", None, None)].label == "B"
    gold = read_gold(tmp_path / "labels" / "pairwise.jsonl")
    assert gold.rows == 2 and [g.label for g in gold.labels.values()] == ["B"]


def test_a_line_torn_by_a_crash_is_left_out_reported_and_never_removed(tmp_path: Path) -> None:
    store = LabelStore(tmp_path, "ana")
    store.add_pairwise("t1", "x", "y", "minimality", "A", shown_sha256="0" * 64)
    path = tmp_path / "labels" / "pairwise.jsonl"
    fragment = '{"task_id": "t2", "arm_a"'
    with path.open("a") as fh:
        fh.write(fragment)  # killed mid-write, never acknowledged
    before = path.read_bytes()
    again = LabelStore(tmp_path, "ana")
    assert len(again.bad_lines) == 1 and again.bad_lines[0].startswith(
        f"{path}: line 2: cut short, no newline")
    assert list(again.pairwise) == [("t1", "x", "y", "minimality", None, None)]
    assert path.read_bytes() == before  # reading changes nothing
    again.add_pairwise("t2", "x", "y", "minimality", "draw", shown_sha256="0" * 64)
    lines = path.read_text().splitlines()
    assert path.read_bytes().startswith(before) and lines[1] == fragment  # kept, whole after
    assert json.loads(lines[2])["task_id"] == "t2"
    assert len(pairwise_gold_set(tmp_path).labels) == 2
    third = LabelStore(tmp_path, "ana")
    assert [b.split(": ", 2)[1] for b in third.bad_lines] == ["line 2"]
    assert len(third.pairwise) == 2


def test_calibrate_without_labels_names_the_missing_file(judged_out: Path,
                                                         tmp_path: Path) -> None:
    out = Path(shutil.copytree(judged_out, tmp_path / "out"))
    proc = judgekit("calibrate", out, "--json")
    assert proc.returncode == 2
    assert "--labels" in proc.stderr and "pairwise.jsonl" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("quote, where", [
    ('"division  by zero"', ("test output", "Division by zero")),
    ("ZeroDivisionError ... by zero", ("test output", "ZeroDivisionError: Division by zero")),
    ('"not there at all"', None),
])
def test_a_quote_is_found_where_the_audit_verified_it(
        quote: str, where: tuple[str, str] | None) -> None:
    texts = {"task description": "div crashes", "test output":
             "E   ZeroDivisionError: Division by zero\nFAILED"}
    got = find_quote(quote, texts)
    if where is None:
        assert got is None
    else:
        name, start, end = got  # type: ignore[misc]
        assert (name, texts[name][start:end]) == where


def test_a_bad_labels_file_is_one_line_naming_the_file_and_field_and_is_kept(
        judged_out: Path, tmp_path: Path) -> None:
    out = Path(shutil.copytree(judged_out, tmp_path / "out"))
    (out / "labels").mkdir()
    bad = out / "labels" / "pairwise.jsonl"
    bad.write_text('{"task_id": "t0", "arm_b": "x", "dimension": "minimality", "label": "A"}\n')
    before = bad.read_bytes()
    proc = judgekit("review", out, "--no-browser", "--port", str(free_port()), timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [
        f"judgekit: error: {bad}: line 1: arm_a: Field required"]
    assert bad.read_bytes() == before


def test_an_audit_label_1_takes_a_category_of_the_audited_rubric_and_0_none(
        audited_out: Path, tmp_path: Path) -> None:
    out = Path(shutil.copytree(audited_out, tmp_path / "out"))
    queue = load_queue(out, seed=0)
    rubric = json.loads((out / "summary.json").read_text())["audit"]["rubric"]
    assert queue.categories == [c.name for c in load_rubric(rubric).categories]
    state = ReviewState(queue, LabelStore(out, "ana"))
    view = state.item_view(0)
    assert view["categories"] == queue.categories and "reveal" not in view
    with pytest.raises(ValueError, match="category"):
        state.label({"i": 0, "choice": 1, "category": "not a category"})
    with pytest.raises(ValueError, match="category"):
        state.label({"i": 0, "choice": 0, "category": queue.categories[0]})
    assert not (out / "labels" / "audit.jsonl").exists()  # refused: nothing written
    got = state.label({"i": 0, "choice": 1, "category": queue.categories[2]})
    assert got["category"] == queue.categories[2] and "reveal" in got
    state.label({"i": 1, "choice": 0})
    rows = [json.loads(x) for x in (out / "labels" / "audit.jsonl").read_text().splitlines()]
    assert [(r["label"], r.get("category")) for r in rows] == [(1, queue.categories[2]),
                                                               (0, None)]


def test_the_queue_sends_arms_and_verdict_facets_of_labelled_items_only(
        judged_out: Path, tmp_path: Path) -> None:
    out = Path(shutil.copytree(judged_out, tmp_path / "out"))
    state = ReviewState(load_queue(out, seed=0), LabelStore(out, "ana"))
    before = state.queue_view()
    text = json.dumps(before)
    assert BASE not in text and CTX not in text  # no arm is named before a label
    assert all("facets" not in q for q in before["items"])
    assert {tuple(q["status"]) for q in before["items"]} == {("passed",), ("failed", "passed")}
    t1 = next(i for i, it in enumerate(state.queue.items) if it.task_id == "t1")
    for dim in ("consistency", "completeness", "minimality"):
        state.label({"i": t1, "dimension": dim, "choice": "draw"})
    after = state.queue_view()["items"]
    assert [q["i"] for q in after if "facets" in q] == [t1]
    # t1: the context arm failed its tests and the scripted judge calls it more complete
    assert after[t1]["facets"] == {"arms": sorted([BASE, CTX]), "flagged": False, "jury_split": False,
                                  "anchored_contradiction": True,
                                  "unverified_evidence": False}


def test_each_attempt_pair_is_its_own_item_and_a_label_covers_that_pair_only(
        attempts_out: Path, tmp_path: Path) -> None:
    out = Path(shutil.copytree(attempts_out, tmp_path / "out"))
    records = [json.loads(x) for x in (out / "pairwise.jsonl").read_text().splitlines()]
    pairs = [(r["task_id"], r["attempt_a"], r["attempt_b"]) for r in records]
    assert len(pairs) == len(set(pairs)) == 8
    state = ReviewState(load_queue(out, seed=0), LabelStore(out, "ana"))
    dims = state.item_view(0)["view"]["dimensions"]
    for dim in dims:
        state.label({"i": 0, "dimension": dim, "choice": "left"})
    assert "reveal" in state.item_view(0)
    for i in range(1, 8):  # the same task's other attempt pairs are still blind
        view = state.item_view(i)
        assert not view["labelled"] and "reveal" not in view and view["labels"] == {}
    assert state.first_unlabelled() == 1
    again = ReviewState(load_queue(out, seed=0), LabelStore(out, "ana"))
    assert again.first_unlabelled() == 1  # so on a restart too
    schema = json.loads(judgekit("schema", "pairwise-label").stdout)
    rows = [json.loads(x) for x in (out / "labels" / "pairwise.jsonl").read_text().splitlines()]
    assert len(rows) == len(dims)
    for row in rows:
        jsonschema.validate(row, schema)
        first = state.queue.items[0].record
        assert (row["attempt_a"], row["attempt_b"]) == (first.attempt_a, first.attempt_b)
    # calibrate matches the labels to that attempt pair's verdicts only
    got = json.loads(judgekit("calibrate", out, "--json").stdout)
    [judge] = got["judges"].values()
    assert got["n_labels"] == len(dims) and judge["n"] == len(dims)
    assert got["labels_without_verdict"] == []
    assert got["n_verdicts_without_label"] == 7 * len(dims)


def test_a_label_file_without_attempts_still_validates_and_covers_every_attempt_pair(
        attempts_out: Path, tmp_path: Path) -> None:
    records = [json.loads(x) for x in (attempts_out / "pairwise.jsonl").read_text().splitlines()]
    old = tmp_path / "old.csv"
    first = records[0]
    old.write_text("task_id,arm_a,arm_b,dimension,label\n"
                   f"{first['task_id']},{first['arm_a']},{first['arm_b']},minimality,A\n")
    got = json.loads(judgekit("calibrate", attempts_out, "--labels", old, "--json").stdout)
    [judge] = got["judges"].values()
    same_task = [r for r in records if r["task_id"] == first["task_id"]]
    assert judge["n"] == len(same_task) == 4


def test_a_rubric_file_of_its_own_offers_its_categories_and_never_the_verdicts(
        tmp_path: Path) -> None:
    rubric_text = (Path(__file__).parents[2] / "judgekit" / "data" / "rubrics" /
                   "commit-revert.md").read_text()
    rubric_text = rubric_text.replace("id: commit-revert", "id: myrubric", 1)
    own = tmp_path / "rub" / "myrubric.md"
    own.parent.mkdir()
    own.write_text(rubric_text)
    runs = write_audit_runs(tmp_path / "runs.json", standard_results())
    out = tmp_path / "out"
    with FakeAPIServer(sound_judge) as server:
        proc = judgekit("audit", runs, "--judge", JUDGE, "--out", out, "--no-similarity",
                        "--no-cache", "--rubric", own,
                        env={**server.env(), "ANTHROPIC_API_KEY": "test-key"})
    assert proc.returncode == 0, proc.stderr
    own.unlink()  # reviewed where the rubric file is not at hand
    wanted = [c.name for c in load_rubric(ROOT / "judgekit" / "data" / "rubrics" /
                                          "commit-revert.md").categories]
    queue = load_queue(out, seed=0)
    assert queue.categories == wanted  # the rubric's own, in its order, not the verdicts'
    # an output that does not say its rubric's categories, whose rubric cannot be found:
    # no category is offered (none derived from the judge's verdicts)
    summary = json.loads((out / "summary.json").read_text())
    del summary["audit"]["rubric_categories"]
    (out / "summary.json").write_text(json.dumps(summary))
    assert load_queue(out, seed=0).categories == []


def _rejudged_with_other_patches(out: Path, old: str, new: str) -> None:
    """The output's runs as if re-judged after ``old`` became ``new`` in a diff."""
    runs = out / "runs.jsonl"
    text = runs.read_text()
    assert old in text
    runs.write_text(text.replace(old, new))


def test_a_label_of_an_item_whose_content_changed_since_is_stale_and_does_not_count(
        judged_out: Path, tmp_path: Path) -> None:
    out = Path(shutil.copytree(judged_out, tmp_path / "out"))
    state = ReviewState(load_queue(out, seed=0), LabelStore(out, "ana"))
    dims = state.item_view(0)["view"]["dimensions"]
    for i in (0, 1):
        for dim in dims:
            state.label({"i": i, "dimension": dim, "choice": "left"})
    assert state.queue_view()["stale_labels"] == 0
    # another shuffle shows the same content: its labels stay fresh
    other_seed = ReviewState(load_queue(out, seed=7), LabelStore(out, "ana"))
    assert other_seed.queue_view()["stale_labels"] == 0
    assert sum(map(other_seed.labelled, other_seed.queue.items)) == 2
    marker = f"plainfix{state.queue.items[0].task_id[1:]}"
    _rejudged_with_other_patches(out, marker, f"{marker} changed")
    again = ReviewState(load_queue(out, seed=0), LabelStore(out, "ana"))
    view = again.queue_view()
    assert view["stale_labels"] == len(dims) and view["first_unlabelled"] == 0
    item = again.item_view(0)
    assert not item["labelled"] and "reveal" not in item and item["labels"] == {}
    assert again.item_view(1)["labelled"]
    # calibrate leaves them out, and says how many
    got = json.loads(judgekit("calibrate", out, "--json").stdout)
    assert got["n_labels"] == len(dims) and got["stale_labels"] == len(dims)
    text = judgekit("calibrate", out).stdout
    assert f"{len(dims)} stale" in text
    assert f"{len(dims)} stale labels" in (out / "report.md").read_text(encoding="utf-8")
    # labelled again: fresh, and counted
    for dim in dims:
        again.label({"i": 0, "dimension": dim, "choice": "draw"})
    assert again.queue_view()["stale_labels"] == 0
    got = json.loads(judgekit("calibrate", out, "--json").stdout)
    assert got["n_labels"] == 2 * len(dims) and got["stale_labels"] == 0


def test_a_stale_audit_label_does_not_count(audited_out: Path, tmp_path: Path) -> None:
    out = Path(shutil.copytree(audited_out, tmp_path / "out"))
    state = ReviewState(load_queue(out, seed=0), LabelStore(out, "ana"))
    for i in range(len(state.queue.items)):
        state.label({"i": i, "choice": 0})
    first = state.queue.items[0].record
    runs = out / "runs.jsonl"
    lines = runs.read_text().splitlines()
    for n, line in enumerate(lines):
        row = json.loads(line)
        if (row["task"]["id"], row["arm"]) == (first.task_id, first.arm):
            row["agent_diff"] = row["agent_diff"] + "+# changed\n"
            lines[n] = json.dumps(row)
    runs.write_text("\n".join(lines) + "\n")
    again = ReviewState(load_queue(out, seed=0), LabelStore(out, "ana"))
    assert again.queue_view()["stale_labels"] == 1 and again.first_unlabelled() == 0
    got = json.loads(judgekit("calibrate", out, "--json").stdout)
    assert got["stale_labels"] == 1
    assert "1 stale labels" in (out / "report.md").read_text(encoding="utf-8")


def test_the_reveal_names_the_arms_and_a_verdict_never_given_is_no_answer(
        unanswered_out: Path, tmp_path: Path) -> None:
    out = Path(shutil.copytree(unanswered_out, tmp_path / "out"))
    state = ReviewState(load_queue(out, seed=0), LabelStore(out, "ana"))
    views = []
    for i, item in enumerate(state.queue.items):
        for dim in ("consistency", "completeness", "minimality"):
            view = state.label({"i": i, "dimension": dim, "choice": "draw"})
        views.append((item.record, view["reveal"]))
    assert sorted(rec.task_id for rec, _ in views) == ["t0", "t1"]
    for rec, reveal in views:
        for dim, v in reveal["verdict"].items():
            if rec.task_id == "t0":  # the judge gave no valid answer: no winner, no side
                assert v["state"] != "valid" and rec.dimensions[dim].winner == "draw"
                assert v["winner"] is None and v["winner_side"] is None
                assert [o["answer"] for o in v["orders"]] == [None, None]
            else:  # each order's answer is the arm chosen, never the slot letter
                assert v["winner"] == CTX
                assert [(o["first"], o["answer"]) for o in v["orders"]] == [
                    (rec.arm_a, CTX), (rec.arm_b, CTX)]
