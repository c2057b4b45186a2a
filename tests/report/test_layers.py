"""The report package is layered: building blocks, inputs, words, renderings, orchestration.

A module imports report modules of its own layer or below only (lazy imports inside
functions count), and no two modules import each other, directly or around a loop.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "judgekit" / "report"

#: Layer of each module of the package (see the package docstring).
LAYERS: dict[str, int] = {
    "format": 1, "markup": 1, "markdown_blocks": 1, "svg": 1, "outdir": 1, "calibration": 1,
    "parts_cache": 1,
    "load": 2,
    "content": 3, "clustering": 3, "judged": 3, "size_and_jury": 3, "calibration_view": 3,
    "transcript_view": 3, "integrity_view": 3, "inspect_writeback": 3,
    "html_jury": 4, "html_judged": 4, "html_tasks": 4, "html": 4, "markdown_judged": 4,
    "markdown_tasks": 4, "markdown": 4, "terminal": 4, "pairwise_terminal": 4,
    "audit_text": 4, "step_parts": 4, "html_transcript": 4, "markdown_transcript": 4,
    "prepare": 5, "__init__": 5,
}


def _module(name: str) -> str | None:
    """The module of the package ``name`` is (``__init__``: the package), else ``None``."""
    if name == "judgekit.report":
        return "__init__"
    parts = name.split(".")
    if parts[:2] == ["judgekit", "report"] and (PACKAGE / f"{parts[2]}.py").is_file():
        return parts[2]
    return None


def _report_imports(path: Path) -> set[str]:
    """The modules of the package that ``path`` imports, lazily or not."""
    found: set[str | None] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {_module(a.name) for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            for a in node.names:  # ``from judgekit.report import svg`` imports the module
                found.add(_module(f"{node.module}.{a.name}") or _module(node.module))
    return {m for m in found if m is not None}


def _graph() -> dict[str, set[str]]:
    return {p.stem: _report_imports(p) - {p.stem} for p in PACKAGE.glob("*.py")}


def test_every_module_has_a_layer() -> None:
    assert set(_graph()) == set(LAYERS)


def test_no_module_imports_from_a_higher_layer() -> None:
    graph = _graph()
    upward = sorted(f"{m} ({LAYERS[m]}) -> {t} ({LAYERS[t]})" for m, targets in graph.items()
                    for t in targets if LAYERS[t] > LAYERS[m])
    assert not upward, "\n".join(upward)


def test_no_import_loop() -> None:
    graph = _graph()
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, " -> ".join((*path, module))
        if module in done:
            return
        for target in sorted(graph[module]):
            visit(target, (*path, module))
        done.add(module)

    for module in sorted(graph):
        visit(module, ())
