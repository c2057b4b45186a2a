"""Data flows one way: loading → scoring → judging / audit → report → CLI.

No module imports from a higher layer, not even lazily inside a function.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "judgekit"

#: Layer of each top-level part of the package; a module may import only its own layer or lower.
LAYERS: dict[str, int] = {
    "errors": 0, "io": 0, "stats": 0, "diffs": 0, "infra": 0, "_resources": 0,
    "gcpause": 0, "jsontext": 0, "omit": 0, "plugins": 0, "steps": 0,
    "runs": 1,
    "scoring": 2, "index": 2,
    "engine": 3,
    "pairwise": 4, "audit": 4, "runner": 4, "evaluate": 4,
    "summary": 5, "report": 5, "dataframe": 5, "rejudge": 5,
    "cli": 6, "__main__": 6,
}
#: Not part of the flow: the package's front door and the test support server.
OUTSIDE = {"__init__", "testing", "data"}


def _part(module: str) -> str:
    return module.split(".")[1] if module.count(".") else "__init__"


def _imports(path: Path, module: str) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")[: -node.level if path.name != "__init__.py"
                                          else len(module.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((node.lineno, target))
    return [(line, name) for line, name in found if name.startswith("judgekit.")]


def _modules() -> list[tuple[Path, str]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out.append((path, ".".join(parts)))
    return out


def test_every_part_of_the_package_has_a_layer() -> None:
    parts = {_part(m) for _, m in _modules()} - OUTSIDE
    assert parts <= LAYERS.keys(), sorted(parts - LAYERS.keys())


def test_no_module_imports_from_a_higher_layer() -> None:
    violations = []
    for path, module in _modules():
        own = _part(module)
        if own in OUTSIDE:
            continue
        for line, target in _imports(path, module):
            other = _part(target)
            if other in OUTSIDE or other not in LAYERS:
                continue
            if LAYERS[other] > LAYERS[own]:
                violations.append(f"{path.relative_to(PACKAGE.parent)}:{line} {module} -> {target}")
    assert not violations, "imports against the data flow:\n" + "\n".join(violations)
