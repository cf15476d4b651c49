"""How the project's modules hang together (read from their source with ast, as tests/test_layers.py does):

* no import circle between any two of the project's modules, counting an import inside a function too (a
  circle that only a function's import closes still makes each module need the other: neither can be read,
  moved or tested without the other);
* no module-level name (a function or a class, a command line's entry point included) is defined in two
  modules of engine/: a reader who meets `write` or `encode` knows which one is meant.
"""
from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

def project_files(root: Path = ROOT) -> list[Path]:
    """Every .py of the project: the app's packages, the benchmarks', deploy/, harness/, docs/, the tests."""
    found = []
    for entry in sorted(root.iterdir()):
        if entry.name.startswith(".") or entry.name == "test-artifacts":
            continue
        if entry.is_dir():
            found += [p for p in entry.rglob("*.py") if "__pycache__" not in p.parts]
        elif entry.suffix == ".py":
            found.append(entry)
    return sorted(found)


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def graph(files: list[Path], root: Path = ROOT) -> dict[str, set[str]]:
    """module -> the project's modules it imports, at any depth of the file (a function's own import counts).
    `from pkg import name` imports pkg.name when that is a module, else pkg; a relative import is resolved
    against the file's own package; importing a.b.c runs a/__init__ and a.b's too, but only the module named is
    counted (a package's __init__ is an edge of its own when it imports)."""
    names = {module_name(p, root): p for p in files}
    edges: dict[str, set[str]] = {}
    for name, path in names.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".") if package else []
                    base = base[:len(base) - (node.level - 1)] if node.level > 1 else base
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                for alias in node.names:
                    whole = f"{source}.{alias.name}" if source else alias.name
                    found.add(whole if whole in names else source)
        edges[name] = {m for m in found if m in names and m != name}
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected set of two or more modules (Tarjan's algorithm), each as a sorted list."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(found)


def test_no_import_circle_between_the_projects_modules():
    found = circles(graph(project_files()))
    assert not found, "import circles (each set imports itself round): " + "; ".join(
        " <-> ".join(part) for part in found)


def defined(path: Path) -> set[str]:
    """The module-level functions and classes a file defines (dunder names aside)."""
    return {node.name for node in ast.parse(path.read_text()).body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and not (node.name.startswith("__") and node.name.endswith("__"))}


def twice(files: list[Path]) -> dict[str, list[str]]:
    where: dict[str, list[str]] = {}
    for path in files:
        for name in defined(path):
            where.setdefault(name, []).append(path.relative_to(ROOT).as_posix())
    return {name: sorted(paths) for name, paths in sorted(where.items()) if len(paths) > 1}


def test_no_name_is_defined_in_two_modules_of_the_engine():
    found = twice(sorted(p for p in (ROOT / "engine").rglob("*.py") if "__pycache__" not in p.parts))
    assert not found, "defined in two modules of engine/: " + "; ".join(
        f"{name} in {', '.join(paths)}" for name, paths in found.items())


def test_the_readers_see_what_they_must(tmp_path):
    """The graph sees a function's import, a relative one and `from pkg import module`; a circle made only by a
    function's import is found; a name defined in two modules is found (a test that cannot fail is a defect)."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from . import b\n\ndef main():\n    return b\n")
    (package / "b.py").write_text("def f():\n    from pkg.c import g\n    return g\n\ndef main():\n    pass\n")
    (package / "c.py").write_text("import os\n\ndef g():\n    from .a import main\n    return main\n")
    (package / "d.py").write_text("from pkg import c\n")
    files = sorted(package.glob("*.py"))
    edges = graph(files, tmp_path)
    assert edges == {"pkg": set(), "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.c"}, "pkg.c": {"pkg.a"}, "pkg.d": {"pkg.c"}}
    assert circles(edges) == [["pkg.a", "pkg.b", "pkg.c"]]
    edges["pkg.c"] = set()
    assert circles(edges) == []
    assert defined(package / "b.py") == {"f", "main"}
    where: dict[str, list[str]] = {}
    for path in files:
        for name in defined(path):
            where.setdefault(name, []).append(path.name)
    assert {n: sorted(p) for n, p in where.items() if len(p) > 1} == {"main": ["a.py", "b.py"]}
