"""Every docstring example in the package runs as written."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import judgekit

#: Modules whose import needs an optional extra; their examples run when it is installed.
_EXTRAS = {"judgekit.ingest.adapters.inspect_log": "inspect_ai",
           "judgekit.execute.ray_executor": "ray"}


def _modules() -> list[str]:
    names = [m.name for m in pkgutil.walk_packages(judgekit.__path__, "judgekit.")]
    return sorted(n for n in names if not n.endswith("__main__"))


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples_run(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if name in _EXTRAS:
        pytest.importorskip(_EXTRAS[name])
    monkeypatch.chdir(judgekit.__path__[0] + "/..")
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
                             verbose=False, report=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
