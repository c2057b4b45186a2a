"""``calibration.json``: what ``judgekit calibrate`` found, kept beside an evaluation's files.

``judgekit calibrate`` compares the verdicts in a directory with a file of labels and,
when that directory is an output directory (it holds ``summary.json``), writes its result
here and rebuilds the reports, which then show it. Audit and pairwise calibrations are kept side by
side: a new one of either kind replaces the old one of that kind only. A new evaluation
written into ``DIR`` removes the file (its verdicts are gone).

Example:
    >>> CalibrationFile().model_dump()
    {'audit': None, 'pairwise': None, 'audit_scales': None}
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from judgekit.audit import Calibration
from judgekit.audit.scales import ScaleCalibration
from judgekit.errors import InputError
from judgekit.io import atomic_write_text, read_json
from judgekit.outputs import CALIBRATION_FILE
from judgekit.pairwise.calibrate import PairwiseCalibration
from judgekit.ingest.validation import validate

FILENAME = CALIBRATION_FILE


class CalibrationFile(BaseModel):
    """``calibration.json``: the verdicts of an evaluation measured against labels."""

    audit: Calibration | None = Field(None, description="Audit verdicts against human "
                                                        "labels per task.")
    pairwise: PairwiseCalibration | None = Field(
        None, description="Pairwise verdicts against gold labels, per judge and for the jury.")
    audit_scales: ScaleCalibration | None = Field(
        None, description="Audit verdicts against human severity scales, overall and per "
                          "category.")


def read_calibration(out_dir: str | Path) -> CalibrationFile | None:
    """The ``calibration.json`` of ``out_dir``, or ``None`` when there is none."""
    path = Path(out_dir) / FILENAME
    if not path.is_file():
        return None
    data = read_json(path)
    if not isinstance(data, dict):
        raise InputError(path, None, "expected a JSON object")
    return validate(CalibrationFile, data, path)


def write_calibration(out_dir: str | Path,
                      part: Calibration | PairwiseCalibration | ScaleCalibration) -> Path:
    """Keep ``part`` in ``out_dir``'s ``calibration.json`` (the other kind stays); return
    the file's path."""
    current = read_calibration(out_dir) or CalibrationFile()
    kind = ("pairwise" if isinstance(part, PairwiseCalibration) else "audit_scales"
            if isinstance(part, ScaleCalibration) else "audit")
    updated = current.model_copy(update={kind: part})
    path = Path(out_dir) / FILENAME
    atomic_write_text(path, updated.model_dump_json(indent=2) + "\n")
    return path
