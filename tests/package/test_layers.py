"""Data flows one way: loading → scoring → judging / audit → report → CLI.

No module imports from a higher layer, not even lazily inside a function, and no modules
import each other, directly or through a loop. Every import form counts: ``import judgekit.x``,
``from judgekit.x import y`` (``y`` a module or a name), ``from judgekit import x``, relative
imports, ``importlib.import_module(...)`` (an f-string counts as every module under its
constant prefix) and module paths written as strings for a lazy loader
(``"judgekit.x.y:Name"``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "judgekit"

#: Layer of each top-level part of the package; a module may import only its own layer or lower.
LAYERS: dict[str, int] = {
    "errors": 0, "io": 0, "stats": 0, "diffs": 0, "infra": 0, "_resources": 0,
    "gcpause": 0, "jsonread": 0, "jsontext": 0, "omit": 0, "paths": 0, "plugins": 0,
    "steps": 0, "outputs": 0, "secretscan": 0, "corrected": 0,
    "ingest": 1,
    "scoring": 2, "index": 2,
    "engine": 3,
    "pairwise": 4, "audit": 4, "integrity": 4, "execute": 4, "evaluate": 4, "step_registry": 4,
    "summary": 5, "report": 5, "dataframe": 5, "rejudge": 5, "review": 5,
    "cli": 6, "__main__": 6,
    #: the scripted model server and its command lines: above the engine it serves, below
    #: nothing (no module of the flow imports it).
    "testing": 4,
}
#: Not part of the flow: the package's front door and its data.
OUTSIDE = {"__init__", "data"}

#: A module path written as a string for a lazy loader: ``judgekit.x.y`` or ``judgekit.x:Name``.
_MODULE_STRING = re.compile(r"^judgekit(?:\.[A-Za-z_]\w*)+(?::[A-Za-z_][\w.]*)?$")


def _part(module: str) -> str:
    return module.split(".")[1] if module.count(".") else "__init__"


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _known(name: str) -> str | None:
    """The module ``name`` is or lies in (``judgekit.a.b.Name`` → ``judgekit.a.b``)."""
    while name not in MODULES and "." in name:
        name = name.rsplit(".", 1)[0]
    return name if name in MODULES else None


def _relative(module: str, path: Path, node: ast.ImportFrom) -> str:
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _from_targets(module: str, path: Path, node: ast.ImportFrom) -> list[str]:
    base = _relative(module, path, node) if node.level else (node.module or "")
    # ``from judgekit.x import y``: y is a module of its own, or a name of judgekit.x
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]


def _import_module_targets(node: ast.Call) -> list[str]:
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if name not in ("import_module", "__import__") or not node.args:
        return []
    arg = node.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return [arg.value]
    if isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
        prefix = str(arg.values[0].value)
        return [m for m in MODULES if m.startswith(prefix) and m != prefix.rstrip(".")]
    return []


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(
                body[0].value, ast.Constant):
            ids.add(id(body[0].value))
    return ids


def imports_of(module: str, path: Path) -> list[tuple[int, str]]:
    """``(line, module of the package)`` for every import in ``path``, in any form."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = _docstrings(tree)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            found += [(node.lineno, t) for t in _from_targets(module, path, node)]
        elif isinstance(node, ast.Call):
            found += [(node.lineno, t) for t in _import_module_targets(node)]
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and id(node) not in docs and _MODULE_STRING.match(node.value)
              and node.value.split(":")[0] in MODULES):
            found.append((node.lineno, node.value.split(":")[0]))
    out = []
    for line, name in found:
        target = _known(name) if name == "judgekit" or name.startswith("judgekit.") else None
        if target is not None and target != module:
            out.append((line, target))
    return out


def _graph() -> dict[str, set[str]]:
    return {m: {t for _, t in imports_of(m, p)} for m, p in MODULES.items()}


def import_loops(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    loops: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                loops.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return loops


def test_every_part_of_the_package_has_a_layer() -> None:
    parts = {_part(m) for m in MODULES} - OUTSIDE
    assert parts <= LAYERS.keys(), sorted(parts - LAYERS.keys())


def test_no_module_imports_from_a_higher_layer() -> None:
    violations = []
    for module, path in MODULES.items():
        own = _part(module)
        if own in OUTSIDE:
            continue
        for line, target in imports_of(module, path):
            other = _part(target)
            if other in OUTSIDE or other not in LAYERS:
                if other == "__init__" and LAYERS[own] < LAYERS["cli"]:
                    # the front door re-exports every layer: only the top may use it
                    violations.append(f"{path.relative_to(PACKAGE.parent)}:{line} {module} "
                                      f"-> {target} (only the command line may import it)")
                continue
            if LAYERS[other] > LAYERS[own]:
                violations.append(f"{path.relative_to(PACKAGE.parent)}:{line} {module} -> {target}")
    assert not violations, "imports against the data flow:\n" + "\n".join(violations)


def test_no_import_loops() -> None:
    loops = import_loops(_graph())
    assert not loops, "modules importing each other:\n" + "\n".join(
        " <-> ".join(loop) for loop in loops)


def test_every_import_form_is_read(tmp_path: Path) -> None:
    """The reader sees the forms a loop could hide in."""
    source = (
        "import judgekit.errors\n"
        "from judgekit import stats\n"
        "from . import io\n"
        "from .diffs import files_touched\n"
        "def f():\n"
        "    import importlib\n"
        "    importlib.import_module('judgekit.jsontext')\n"
        "    return 'judgekit.omit:OmitIfNone'\n"
    )
    path = tmp_path / "probe.py"
    path.write_text(source)
    found = {t for _, t in imports_of("judgekit.probe", path)}
    assert found == {"judgekit.errors", "judgekit.stats", "judgekit.io", "judgekit.diffs",
                     "judgekit.jsontext", "judgekit.omit"}
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert import_loops(graph) == [["a", "b", "c"]]
