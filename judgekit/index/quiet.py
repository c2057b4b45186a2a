"""Keeping the model libraries' progress bars and advice off stderr (the CLI's stderr is
for errors).

Example:
    >>> with quiet_root_logger():
    ...     pass
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator


def quiet_loading() -> None:
    """No weight-loading progress bars from transformers (when it is installed)."""
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]  # unannotated upstream
    except (ImportError, AttributeError):
        pass


@contextlib.contextmanager
def quiet_root_logger() -> Iterator[None]:
    """Only errors on the root logger meanwhile: onnxruntime's tools log advice there."""
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        yield
    finally:
        root.setLevel(level)
