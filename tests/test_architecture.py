"""The house's layout, read from the source (no import runs): no circle between studio's packages nor between its
modules, the lab apart from serving, and one lower layer for the figures of speech.

Nodes are studio's top-level packages and modules (studio.similes, studio.hauser, studio.models, studio.errors, …),
with studio.lab as one node; an edge is any import of one by another, at the top of a file or inside a function.
Serving may not reach the lab: the only edge into studio.lab allowed is the command line's (its build / train / eval
commands), and tests/test_serving_imports.py checks the same at run time."""
from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

STUDIO = Path(__file__).resolve().parents[1] / "studio"
#: the packages that each hold one capability (or its front end); studio.figures may import none of them
CAPABILITY_PACKAGES = ("similes", "hauser", "continuation", "proverbs", "imagine", "ui", "cli", "lab")
#: file names that say training, a build, a calibration or an evaluation: only under studio/lab/
LAB_NAMES = ("train", "evaluat", "_build", "calibrat", "finetune")


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def studio_modules(root: Path = STUDIO) -> dict[str, Path]:
    return {_module_name(p, root): p for p in sorted(root.rglob("*.py"))}


def imported_modules(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The studio modules a module imports anywhere in its file (top level and inside functions)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == "studio")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "studio":
                continue
            for a in node.names:
                out.add(f"{target}.{a.name}" if f"{target}.{a.name}" in modules else target)
    return out


def node(module: str) -> str:
    """studio's top-level package or module a module belongs to (studio.lab counts as one)."""
    return ".".join(module.split(".")[:2])


def package_graph(root: Path = STUDIO) -> dict[tuple[str, str], list[str]]:
    """{(from node, to node): ["module -> module", …]} over every import between two different nodes."""
    modules = studio_modules(root)
    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for name, path in modules.items():
        for target in imported_modules(name, path, modules):
            if node(name) != node(target):
                edges[node(name), node(target)].append(f"{name} -> {target}")
    return dict(edges)


def circles(edges) -> list[list[str]]:
    """The strongly connected components of more than one node (each holds at least one circle)."""
    graph = defaultdict(set)
    for a, b in edges:
        graph[a].add(b)
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(set(graph) | {b for targets in graph.values() for b in targets}):
        if v not in index:
            visit(v)
    return out


def test_no_circle_between_studios_packages():
    edges = package_graph()
    found = circles(edges)
    assert not found, "\n".join(
        f"circle {c}: " + "; ".join(f"{a} -> {b} ({edges[a, b][0]})" for a in c for b in c if (a, b) in edges)
        for c in found)


def module_graph(root: Path = STUDIO) -> dict[tuple[str, str], list[str]]:
    """{(module, module): []} over every import of one studio module by another (a package's __init__ is a module)."""
    modules = studio_modules(root)
    return {(name, target): [] for name, path in modules.items()
            for target in imported_modules(name, path, modules) if target != name and target in modules}


def test_no_circle_between_studios_modules():
    """Lazy imports inside functions count: a module that needs another's name at load time and is needed back by it
    is one concern in two files, or a name in the wrong one."""
    found = circles(module_graph())
    assert not found, "\n".join(f"circle: {' <-> '.join(c)}" for c in found)


def test_only_the_command_line_imports_the_lab():
    into_lab = {a: how for (a, b), how in package_graph().items() if b == "studio.lab" and a != "studio.cli"}
    assert not into_lab, into_lab


def test_the_figures_import_no_capability():
    reached = {b: how for (a, b), how in package_graph().items()
               if a == "studio.figures" and b.split(".")[1] in CAPABILITY_PACKAGES}
    assert not reached, reached


def test_no_train_function_nor_lab_module_outside_the_lab():
    lab = STUDIO / "lab"
    trains, lab_named = [], []
    for path in sorted(STUDIO.rglob("*.py")):
        if lab in path.parents:
            continue
        if any(k in path.stem for k in LAB_NAMES):
            lab_named.append(str(path.relative_to(STUDIO.parent)))
        for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "train":
                trains.append(f"{path.relative_to(STUDIO.parent)}:{n.lineno}")
    assert not trains, trains
    assert not lab_named, lab_named


def test_no_code_enables_trust_remote_code():
    """The studio never runs a checkpoint's own code: every `trust_remote_code=` passed anywhere (studio, bench,
    scripts, app.py, tests) is the literal False (docs/models.md)."""
    root = STUDIO.parent
    files = [root / "app.py", *sorted(p for d in ("studio", "bench", "scripts", "tests") for p in (root / d).rglob("*.py"))]
    passed = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.keyword) and node.arg == "trust_remote_code":
                passed.append((path.relative_to(root), node.lineno, ast.unparse(node.value)))
    assert passed, "the loaders pass trust_remote_code=False explicitly"
    assert [p for p in passed if p[2] != "False"] == []
