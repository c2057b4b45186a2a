"""``judgekit review`` in headless Chromium: keys label every comparison blind, labels survive
``kill -9``, ``calibrate`` reads them, audits show their quotes in place, markup never runs.

Screenshots of the main views are kept in the test's directory (and under
``$JUDGEKIT_ARTIFACTS`` when set).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
from pathlib import Path

import jsonschema

from judgekit.audit import load_rubric
from judgekit.review.items import load_queue, queue_order
from judgekit.stats import DEFAULT_SEED

from tests.clirun import judgekit
from tests.review.cdp import Browser
from tests.review.conftest import (
    ASTRAL_QUOTES,
    BASE,
    CTX,
    N_TASKS,
    REASON,
    Served,
    free_port,
    start_review,
)

DIMS = ("consistency", "completeness", "minimality")
LABELLED_CELLS = ("[...document.querySelectorAll('td.label')]"
                  ".filter(td => td.textContent !== '—').length")


def _listeners(port: int) -> list[str]:
    """Local addresses (hex, as /proc/net shows them) listening on ``port``."""
    found = []
    for name in ("tcp", "tcp6"):
        path = Path("/proc/net") / name
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            fields = line.split()
            addr, hexport = fields[1].split(":")
            if fields[3] == "0A" and int(hexport, 16) == port:
                found.append(addr)
    return found


def _not_revealed(dom: str) -> None:
    for secret in (BASE, CTX, REASON):
        assert secret not in dom, f"{secret} is in the page before the item is labelled"


def _no_script_ran(b: Browser) -> None:
    assert b.eval("typeof window.__pwned") == "undefined"


def _left_arm(b: Browser) -> str:
    """Which arm's solution is on the left, read off its diff (each arm's marker differs)."""
    text = b.eval("document.querySelector('.side.left pre.diff').textContent")
    return BASE if "plainfix" in text else CTX


class Labeller:
    """Presses keys and remembers which arm each press chose."""

    def __init__(self, b: Browser) -> None:
        self.b = b
        self.chosen: dict[tuple[str, str], str] = {}  # (task, dimension) -> arm or draw

    def label_item(self, i: int, *, move_with_j: bool, shot: str | None = None) -> None:
        b = self.b
        if move_with_j:
            b.press("j")
            b.wait_for(f"document.body.dataset.item === '{i}' && "
                       "document.body.dataset.state === 'blind'")
            _not_revealed(b.dom())
        for k, dim in enumerate(DIMS):
            key = "abd"[(i + k) % 3]
            b.press(key)  # on a revealed item, a label key goes to the next one and labels it
            b.wait_for(f"document.body.dataset.item === '{i}' && {LABELLED_CELLS} === {k + 1}")
            if k < 2:
                assert b.eval("document.body.dataset.state") == "blind"
                _not_revealed(b.dom())
            task = b.eval("document.querySelector('main h2').textContent").rsplit(" ", 1)[1]
            left = _left_arm(b)
            right = CTX if left == BASE else BASE
            self.chosen[(task, dim)] = {"a": left, "b": right, "d": "draw"}[key]
        b.wait_for("document.body.dataset.state === 'revealed'")
        dom = b.dom()
        assert BASE in dom and CTX in dom and REASON in dom  # revealed once labelled
        _no_script_ran(b)
        if shot:
            b.screenshot(shot)


def _effective(path: Path) -> dict[tuple[str, str, str, str], dict]:
    got = {}
    for line in path.read_text().splitlines():
        row = json.loads(line)
        got[(row["task_id"], row["arm_a"], row["arm_b"], row["dimension"])] = row
    return got


def test_keys_label_every_comparison_blind_and_labels_survive_kill_9(
        judged_out: Path, tmp_path: Path, servers: list[Served]) -> None:
    out = Path(shutil.copytree(judged_out, tmp_path / "out"))
    labels = out / "labels" / "pairwise.jsonl"
    records = [json.loads(x) for x in (out / "pairwise.jsonl").read_text().splitlines()]
    assert len(records) == N_TASKS
    port = free_port()
    served = start_review(out, port)
    servers.append(served)
    assert _listeners(port) == ["0100007F"]  # 127.0.0.1 and nothing else

    b = Browser(tmp_path / "browser")
    try:
        b.goto(served.url)
        b.wait_for("document.body.dataset.state === 'blind'")
        assert b.eval("document.body.dataset.item") == "0"
        _not_revealed(b.dom())
        _no_script_ran(b)
        assert "<script>" in b.eval("document.querySelector('pre.description').textContent")
        b.screenshot("pairwise-blind")
        b.press("?")
        b.wait_for("!document.getElementById('help').hidden")
        b.screenshot("keys")
        b.press("?")
        who = Labeller(b)
        for i in range(5):
            who.label_item(i, move_with_j=i % 2 == 1, shot="pairwise-revealed" if i == 0 else None)
        assert len(_effective(labels)) == 15

        served.proc.send_signal(signal.SIGKILL)
        served.proc.wait()
        assert len(_effective(labels)) == 15  # every label given is in the file
        served = start_review(out, port)
        servers.append(served)
        b.goto(served.url)
        b.wait_for("document.body.dataset.state === 'blind'")
        assert b.eval("document.body.dataset.item") == "5"  # the first unlabelled item
        _not_revealed(b.dom())
        for i in range(5, N_TASKS):  # item 5 is open already
            who.label_item(i, move_with_j=i % 2 == 0 and i > 5)
        b.press("a")  # nothing is left to label: nothing more is written
        b.wait_for("document.getElementById('status').textContent.includes('every item')")
    finally:
        b.close()

    schema = json.loads(judgekit("schema", "pairwise-label").stdout)
    effective = _effective(labels)
    assert len(effective) == N_TASKS * len(DIMS)
    for rec in records:
        for dim in DIMS:
            row = effective[(rec["task_id"], rec["arm_a"], rec["arm_b"], dim)]
            jsonschema.validate(row, schema)
            winner = who.chosen[(rec["task_id"], dim)]
            assert row["label"] == ("draw" if winner == "draw" else
                                    "A" if winner == rec["arm_a"] else "B")
            assert row["labeller"] == "anonymous" and len(row["shown_sha256"]) == 64

    by_default = judgekit("calibrate", out, "--json")
    assert by_default.returncode == 0, by_default.stderr
    named = judgekit("calibrate", out, "--labels", labels, "--json")
    assert named.returncode == 0, named.stderr
    assert json.loads(by_default.stdout) == json.loads(named.stdout)
    assert json.loads(named.stdout)["n_labels"] == N_TASKS * len(DIMS)


def test_audit_labels_with_1_and_its_category_and_0_and_the_quotes_are_marked(
        audited_out: Path, tmp_path: Path, servers: list[Served]) -> None:
    out = Path(shutil.copytree(audited_out, tmp_path / "out"))
    records = [json.loads(x) for x in (out / "audit.jsonl").read_text().splitlines()]
    records = [records[k] for k in queue_order(len(records), DEFAULT_SEED)]  # the queue's order
    served = start_review(out, free_port(), "--labeller", "ana")
    servers.append(served)
    b = Browser(tmp_path / "browser")
    given = {}
    picked: dict[tuple[str, str], str] = {}
    summary = json.loads((out / "summary.json").read_text())
    categories = [c.name for c in load_rubric(summary["audit"]["rubric"]).categories]
    try:
        b.goto(served.url)
        b.wait_for("document.body.dataset.state === 'blind' && "
                   "document.body.dataset.kind === 'audit'")
        for i, rec in enumerate(records):
            if i:
                b.press("j")
                b.wait_for(f"document.body.dataset.item === '{i}'")
            dom = b.dom()
            for secret in (rec["verdict"]["existence_reasoning"],
                           rec["verdict"]["causation_reasoning"]):
                assert secret not in dom
            assert not b.eval("document.querySelectorAll('mark').length")
            if i == 0:
                b.screenshot("audit-blind")
            key = "1" if i % 2 == 0 else "0"
            b.press(key)
            if key == "1":  # then the rubric's category, by its number
                b.wait_for(f"document.body.dataset.item === '{i}' && "
                           "document.body.dataset.state === 'category'")
                listed = b.eval("[...document.querySelectorAll('ol.categories li')]"
                                ".map(li => li.textContent)")
                assert listed == categories
                b.press("2")
                picked[(rec["task_id"], rec["arm"])] = categories[1]
            b.wait_for(f"document.body.dataset.item === '{i}' && "
                       "document.body.dataset.state === 'revealed'")
            given[(rec["task_id"], rec["arm"])] = int(key)
            assert rec["evidence_verified"]
            marks = b.eval("[...document.querySelectorAll('mark.quote')]"
                           ".map(m => [m.textContent, m.title])")
            evidence = rec["verdict"]["evidence"]
            quotes = evidence if isinstance(evidence, list) else [evidence]
            assert len(marks) == len(quotes)  # one mark per verified quote
            for text, quote in marks:
                bare = quote.strip('"')
                assert text.casefold() == bare.casefold(), (text, quote)
            if i == 2:
                b.screenshot("audit-revealed")
    finally:
        b.close()
    rows = [json.loads(x) for x in (out / "labels" / "audit.jsonl").read_text().splitlines()]
    assert {(r["task_id"], r["arm"]): r["label"] for r in rows} == given
    # a label 1 carries the category picked; a label 0 none
    assert {(r["task_id"], r["arm"]): r.get("category") for r in rows} == {
        k: picked.get(k) for k in given}
    assert all(r["labeller"] == "ana" for r in rows)
    assert not (out / "labels" / "pairwise.jsonl").exists()
    assert os.path.getsize(out / "labels" / "audit.jsonl") > 0


def test_browse_filters_the_queue_by_keyboard_and_verdict_filters_match_labelled_items_only(
        judged_out: Path, tmp_path: Path, servers: list[Served]) -> None:
    out = Path(shutil.copytree(judged_out, tmp_path / "out"))
    served = start_review(out, free_port())
    servers.append(served)
    b = Browser(tmp_path / "browser")
    listed = ("[...document.querySelectorAll('#browse-list button')]"
              ".map(x => Number(x.dataset.i))")
    try:
        b.goto(served.url)
        b.wait_for("document.body.dataset.state === 'blind'")
        for _ in range(2 * len(DIMS)):  # items 0 and 1 labelled
            b.press("d")
        b.wait_for("document.body.dataset.item === '1' && "
                   "document.body.dataset.state === 'revealed'")
        b.press("q")
        b.wait_for("document.body.dataset.browse === 'open'")
        assert b.eval(listed) == list(range(N_TASKS))
        # the scripted judge calls an odd task's failing side more complete: an anchored
        # contradiction, shown once it is labelled; the unlabelled odd tasks are not listed
        tasks = [it.task_id for it in load_queue(out, DEFAULT_SEED).items]
        odd = [i for i in (0, 1) if int(tasks[i][1:]) % 2 == 1]
        for _ in range(6):
            b.press("Tab")
        assert b.eval("document.activeElement.id") == "f-anchored_contradiction"
        b.press(" ")
        b.wait_for(f"JSON.stringify({listed}) === '{json.dumps(odd).replace(' ', '')}'")
        note = b.eval("document.getElementById('browse-note').textContent")
        assert f"{N_TASKS - 2} not labelled yet left out" in note
        b.screenshot("browse")
        b.press(" ")  # off again: a blind filter lists unlabelled items too
        b.press("Tab")
        b.press("Tab")  # past "unverified evidence", onto the first item of the list
        assert b.eval("document.activeElement.dataset.i") == "0"
        b.press("Tab")
        b.press("Tab")
        assert b.eval("document.activeElement.dataset.i") == "2"
        b.press("Enter")  # opens item 2, still blind; the panel closes
        b.wait_for("document.body.dataset.item === '2' && "
                   "document.body.dataset.state === 'blind' && !document.body.dataset.browse")
        _not_revealed(b.dom().split('<main')[1])
        b.press("q")
        b.wait_for("document.body.dataset.browse === 'open'")
        b.press("Escape")
        b.wait_for("!document.body.dataset.browse")
    finally:
        b.close()


def _bare(quote: str) -> str:
    return " ".join(quote.strip('"').split()).casefold()


def test_quotes_after_astral_characters_and_overlapping_quotes_are_each_marked_in_place(
        astral_audited_out: Path, tmp_path: Path, servers: list[Served]) -> None:
    out = Path(shutil.copytree(astral_audited_out, tmp_path / "out"))
    served = start_review(out, free_port(), "--labeller", "ana")
    servers.append(served)
    b = Browser(tmp_path / "browser")
    try:
        b.goto(served.url)
        b.wait_for("document.body.dataset.state === 'blind'")
        b.press("0")
        b.wait_for("document.body.dataset.state === 'revealed'")
        marks = b.eval("[...document.querySelectorAll('mark.quote')]"
                       ".map(m => [m.closest('section').dataset.name, m.textContent])")
        note = b.eval("document.querySelector('section.verdict p.meta').textContent")
        notfound = b.eval("[...document.querySelectorAll('ul.notfound li')]"
                          ".map(li => li.textContent)")
        b.screenshot("audit-astral-revealed")
    finally:
        b.close()
    texts = [_bare(t) for _, t in marks]
    # the two overlapping quotes are one mark covering both; the third is its own mark,
    # exactly on the quote (not shifted by the astral characters before it)
    assert texts == ["zerodivisionerror: division by zero in calc.py line 7",
                     "1 failed in 0.1s"]
    assert all(name == "test output" for name, _ in marks)
    for quote in ASTRAL_QUOTES[:3]:  # every verified quote is inside a mark
        assert any(_bare(quote) in t for t in texts), quote
    assert note.startswith("3 quote(s) marked")
    assert notfound == ["not found: " + ASTRAL_QUOTES[3].strip('"')]


def test_the_arm_filter_never_puts_arm_names_in_the_page_while_a_blind_item_is_shown(
        judged_out: Path, tmp_path: Path, servers: list[Served]) -> None:
    out = Path(shutil.copytree(judged_out, tmp_path / "out"))
    served = start_review(out, free_port())
    servers.append(served)
    b = Browser(tmp_path / "browser")
    arms = "[...document.querySelectorAll('#f-arm option')].map(o => o.value)"
    try:
        b.goto(served.url)
        b.wait_for("document.body.dataset.state === 'blind'")
        for _ in DIMS:  # item 0 labelled: its arms are known
            b.press("a")
        b.wait_for("document.body.dataset.state === 'revealed'")
        b.press("q")  # browsing from a revealed item: its arms can be filtered on
        b.wait_for("document.body.dataset.browse === 'open'")
        assert b.eval(arms) == ["", *sorted([BASE, CTX])]
        b.press("Escape")
        b.wait_for("!document.body.dataset.browse")
        assert b.eval(arms) == [""]  # emptied when the panel closes
        b.press("j")
        b.wait_for("document.body.dataset.item === '1' && "
                   "document.body.dataset.state === 'blind'")
        _not_revealed(b.dom())
        b.press("q")  # browsing from a blind item: no arm is named anywhere in the page
        b.wait_for("document.body.dataset.browse === 'open'")
        _not_revealed(b.dom())
        assert b.eval(arms) == [""]
        b.press("Escape")
        b.wait_for("!document.body.dataset.browse")
        _not_revealed(b.dom())
    finally:
        b.close()


def test_a_jury_is_revealed_juror_by_juror_with_both_orders_and_their_reasons(
        jury_out: Path, tmp_path: Path, servers: list[Served]) -> None:
    out = Path(shutil.copytree(jury_out, tmp_path / "out"))
    served = start_review(out, free_port())
    servers.append(served)
    b = Browser(tmp_path / "browser")
    try:
        b.goto(served.url)
        b.wait_for("document.body.dataset.state === 'blind'")
        dom = b.dom()
        assert "FIRSTJUROR" not in dom and "SECONDJUROR" not in dom
        for key in "abd":
            b.press(key)
        b.wait_for("document.body.dataset.state === 'revealed'")
        rows = b.eval("[...document.querySelectorAll('table.dims tr[data-dimension]')]"
                      ".map(tr => [tr.dataset.dimension, tr.lastChild.textContent])")
        b.screenshot("pairwise-jury-revealed")
    finally:
        b.close()
    assert [d for d, _ in rows] == list(DIMS)
    for dim, text in rows:
        assert "no answer" not in text  # the jury's combined verdict has no orders of its own
        for tag in ("FIRSTJUROR", "SECONDJUROR"):  # each juror's two orders, with reasons
            assert text.count(f"{tag} on {dim}") == 2, text
        for arm in (BASE, CTX):
            assert text.count(f"{arm} shown first") == 2, text  # once per juror


def test_the_reveal_shows_no_answer_uncoloured_and_names_arms_not_slot_letters(
        unanswered_out: Path, tmp_path: Path, servers: list[Served]) -> None:
    out = Path(shutil.copytree(unanswered_out, tmp_path / "out"))
    served = start_review(out, free_port())
    servers.append(served)
    b = Browser(tmp_path / "browser")
    cells = ("[...document.querySelectorAll('table.dims tr[data-dimension]')]"
             ".map(tr => [tr.children[2].className, tr.children[2].textContent, "
             "tr.children[3].textContent])")
    shown = {}
    try:
        b.goto(served.url)
        b.wait_for("document.body.dataset.state === 'blind'")
        for i in (0, 1):
            task = b.eval("document.querySelector('main h2').textContent").rsplit(" ", 1)[1]
            for _ in DIMS:
                b.press("d")
            b.wait_for(f"document.body.dataset.item === '{i}' && "
                       "document.body.dataset.state === 'revealed'")
            shown[task] = b.eval(cells)
            b.screenshot(f"pairwise-revealed-{task}")
            if i == 0:
                b.press("j")
                b.wait_for("document.body.dataset.item === '1'")
    finally:
        b.close()
    for cls, judge, orders in shown["t0"]:  # no valid answer: said so, neither colour
        assert cls == "noanswer" and judge.startswith("no answer (")
        assert "draw" not in judge
        assert orders.count("shown first: no answer") == 2
    for cls, judge, orders in shown["t1"]:  # answered: the arms named, never A or B
        assert cls in ("agree", "disagree") and CTX in judge
        assert orders.count(f"shown first: {CTX} better") == 2
        assert not re.search(r"\b[AB]\b", orders), orders
