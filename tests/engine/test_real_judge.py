"""``judgekit judge`` and ``judgekit audit`` against a real model server (llama-cpp-python
serving SmolLM2-135M, :mod:`tests.realmodel`), as a user runs them: the strongest structured
output the server accepts, prompts fitted to its window, and counts equal to its own log."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.clirun import judgekit

pytestmark = pytest.mark.realmodel


def _copy_task(bobbin_dir: Path, task: str, dest: Path, runs: slice) -> Path:
    """The bundled bobbin run directories holding ``task`` (those ``runs`` picks, in name
    order), copied elsewhere (a small model on two cores takes many seconds a call: each
    test asks what its claim needs, no more)."""
    dest.mkdir(parents=True, exist_ok=True)
    found = [d for d in sorted(bobbin_dir.iterdir())
             if any(f.name.startswith(f"{task}_") for f in d.iterdir())]
    for d in found[runs]:
        shutil.copytree(d, dest / d.name)
    return dest


def test_judge_fits_a_diff_far_over_the_window_and_counts_every_request(
        llama_server: object, bobbin_dir: Path, tmp_path: Path) -> None:
    # the last run, both arms with ~40k-character diffs: one pair, asked in both orders
    runs = _copy_task(bobbin_dir, "ruff-004", tmp_path / "runs", slice(-1, None))
    before = llama_server.requests()  # type: ignore[attr-defined]
    result = judgekit("judge", runs, "--judge", "openai:smollm2", "--base-url",
                      llama_server.base_url, "--no-audit", "--no-cache",  # type: ignore[attr-defined]
                      "--out", tmp_path / "out", cwd=tmp_path, timeout=1200)
    assert result.returncode == 0, result.stderr
    seen = llama_server.requests()[len(before):]  # type: ignore[attr-defined]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    judge = summary["judge"]
    assert judge["calls"] == len(seen)
    assert judge["structured_output"]["mode"] == "json_object"  # json_schema is refused here
    assert sum(s >= 400 for s in seen) <= 3  # at most: the mode once, the window once
    assert judge["failed_calls"].get("context_exceeded", 0) <= 1
    assert judge["context"]["window_tokens"] == llama_server.n_ctx  # type: ignore[attr-defined]
    records = [json.loads(line) for line in (tmp_path / "out" / "pairwise.jsonl").open()]
    asked = [r for r in records if not r["identical"]]
    assert asked
    for record in asked:
        for order in record["orders"]:
            assert order["state"] != "error", order["reason"]
            assert order["skipped"] or order["cached"] or order["tries"] >= 1
            assert order["fitted"] or order["skipped"]  # a 40k diff is cut to fit
    assert "judge: openai:smollm2:" in result.stderr
    assert f"{len(seen)} requests sent (retries included)" in result.stderr


def test_audit_with_a_real_model_gives_verdicts_within_the_window(
        llama_server: object, bobbin_dir: Path, tmp_path: Path) -> None:
    runs = _copy_task(bobbin_dir, "flask-001", tmp_path / "runs", slice(0, 2))
    before = llama_server.requests()  # type: ignore[attr-defined]
    result = judgekit("audit", runs, "--rubric", "commit-revert", "--judge", "llamacpp:smollm2",
                      "--base-url", llama_server.base_url, "--no-cache",  # type: ignore[attr-defined]
                      "--judge-context", str(llama_server.n_ctx),  # type: ignore[attr-defined]
                      "--out", tmp_path / "out", cwd=tmp_path, timeout=1200)
    assert result.returncode == 0, result.stderr
    seen = llama_server.requests()[len(before):]  # type: ignore[attr-defined]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["judge"]["calls"] == len(seen)
    assert summary["judge"]["failed_calls"].get("context_exceeded", 0) == 0  # window given
    assert "timeout" not in summary["judge"]["failed_calls"]
    records = [json.loads(line) for line in (tmp_path / "out" / "audit.jsonl").open()]
    assert records
    for record in records:
        assert record["state"] == "valid" or record["reason"] or record["skipped"]
        # a request asked twice in one run (same materials) is sent once: its copy is cached
        assert record["skipped"] or record["cached"] or record["tries"] >= 1
    sent = [r for r in records if not r["skipped"]]
    assert sum(r["state"] == "valid" for r in sent) * 4 >= len(sent)


def test_item_audit_with_a_real_model_gives_one_record_per_item(
        llama_server: object, tmp_path: Path) -> None:
    bundled = Path(__file__).parents[1] / "audit" / "data" / "swebench_items.jsonl"
    items = tmp_path / "items.jsonl"  # two of the bundled SWE-bench items
    items.write_text("".join(bundled.read_text().splitlines(keepends=True)[:2]))
    n_items = len(items.read_text().splitlines())
    before = llama_server.requests()  # type: ignore[attr-defined]
    result = judgekit("audit", "--items", items, "--rubric", "swe-bench", "--judge",
                      f"llamacpp:smollm2@{llama_server.base_url}",  # type: ignore[attr-defined]
                      "--no-cache", "--judge-context", str(llama_server.n_ctx),  # type: ignore[attr-defined]
                      "--out", tmp_path / "out", cwd=tmp_path, timeout=1200)
    assert result.returncode == 0, result.stderr
    seen = llama_server.requests()[len(before):]  # type: ignore[attr-defined]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    records = [json.loads(line) for line in (tmp_path / "out" / "audit.jsonl").open()]
    assert len(records) == n_items == summary["audit"]["n_failed"]
    assert all(r["state"] in ("valid", "unscored", "error") for r in records)
    audit = summary["audit"]
    skipped = sum(audit["skipped"].values()) + (audit["n_skipped_cost"] or 0)
    assert audit["n_valid"] + audit["n_unscored"] + audit["n_error"] + skipped == n_items
    assert audit["n_valid"] == sum(r["state"] == "valid" for r in records)
    assert summary["judge"]["calls"] == len(seen)
