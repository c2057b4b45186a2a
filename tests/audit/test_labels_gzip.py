"""Label files may be gzip-compressed (``labels.csv.gz``): judgekit reads them decompressed,
known by their first bytes, and a damaged one is one line naming the file."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from judgekit.audit.calibrate import read_labels
from judgekit.audit.scales import read_scale_labels
from judgekit.cli import main
from tests.audit.test_calibrate import HUMAN, KAPPA, TASKS, write_audit

SCALES = ("instance_id,underspecified,false_negative\n"
          "acme__calc-0,0,0\nacme__calc-1,3,0\nacme__calc-2,1,2\n")


def _gz(path: Path, text: str) -> Path:
    path.write_bytes(gzip.compress(text.encode("utf-8")))
    return path


def test_a_gzip_labels_file_is_read_as_its_csv(tmp_path: Path) -> None:
    text = "task_id,label\n" + "".join(f"{t},{h}\n" for t, h in zip(TASKS, HUMAN))
    plain = tmp_path / "labels.csv"
    plain.write_text(text)
    assert read_labels(_gz(tmp_path / "labels.csv.gz", text)) == read_labels(plain)
    (tmp_path / "scales.csv").write_text(SCALES)
    columns = ["underspecified", "false_negative"]
    zipped = read_scale_labels(_gz(tmp_path / "scales.csv.gz", SCALES), columns)
    assert zipped.rows == read_scale_labels(tmp_path / "scales.csv", columns).rows == 3
    assert zipped.overall == read_scale_labels(tmp_path / "scales.csv", columns).overall


def test_calibrate_takes_a_gzip_labels_file(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    write_audit(tmp_path / "audit.jsonl")
    labels = _gz(tmp_path / "labels.csv.gz", "task_id,label\n" + "".join(
        f"{t},{h}\n" for t, h in zip(TASKS, HUMAN)))
    assert main(["calibrate", str(tmp_path), "--labels", str(labels), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["kappa"] == pytest.approx(KAPPA, abs=1e-6)


def test_a_damaged_gzip_file_is_one_line(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    write_audit(tmp_path / "audit.jsonl")
    whole = gzip.compress(b"task_id,label\n" + b"t00,1\n" * 1000)
    cut = tmp_path / "cut.csv.gz"
    cut.write_bytes(whole[: len(whole) // 2])
    for flags in ([], ["--label-columns", "label"]):
        assert main(["calibrate", str(tmp_path), "--labels", str(cut), *flags]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and f"{cut}:" in err[0] and "gzip" in err[0]
