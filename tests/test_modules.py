"""How the project's modules hang together (read from their source with ast, as tests/test_layers.py does):

* no import circle between any two of the project's modules, counting an import inside a function too (a
  circle that only a function's import closes still makes each module need the other: neither can be read,
  moved or tested without the other);
* no module-level name (a function or a class, a command line's entry point included) is defined in two
  modules of engine/ and factory/ together: a reader who meets `write` or `encode` knows which one is meant;
* the engine (the teaching core) never imports the factory (shipping, the disk store, the corpus builder),
  not even inside a function: the factory depends on the engine, never the reverse;
* an import alias names one module (or function) in every file, and no plain import binds that name to another
  module: `words` named five ui.prose modules, ui.lessons.words and a function (issue 48);
* no two modules of one package (ui/, engine/, factory/, services/) share a file name, the per-page packages
  ui/sections/<page>/ aside (each page may have its own maps.py).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import ROOT


def import_source(node: ast.ImportFrom, package: str) -> str:
    """The module a `from … import` reads from, a relative one resolved against its file's package."""
    if not node.level:
        return node.module or ""
    base = package.split(".") if package else []
    base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
    return ".".join(base + ([node.module] if node.module else []))


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
                source = import_source(node, package)
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
        " <-> ".join(part) for part in found
    )


def defined(path: Path) -> set[str]:
    """The module-level functions and classes a file defines (dunder names aside)."""
    return {
        node.name
        for node in ast.parse(path.read_text()).body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and not (node.name.startswith("__") and node.name.endswith("__"))
    }


def twice(files: list[Path]) -> dict[str, list[str]]:
    where: dict[str, list[str]] = {}
    for path in files:
        for name in defined(path):
            where.setdefault(name, []).append(path.relative_to(ROOT).as_posix())
    return {name: sorted(paths) for name, paths in sorted(where.items()) if len(paths) > 1}


def package_files(*packages: str) -> list[Path]:
    return sorted(p for package in packages for p in (ROOT / package).rglob("*.py") if "__pycache__" not in p.parts)


def test_no_name_is_defined_in_two_modules_of_the_engine_and_the_factory():
    found = twice(package_files("engine", "factory"))
    assert not found, "defined in two modules of engine/ and factory/: " + "; ".join(
        f"{name} in {', '.join(paths)}" for name, paths in found.items()
    )


def test_the_engine_never_imports_the_factory():
    """The factory (shipping runs, their measures, the disk store, the corpus builder, shown windows) is built on
    the engine; the engine, what a student reads, needs none of it (an import inside a function counts too)."""
    edges = graph(project_files())
    found = sorted(
        (module, other)
        for module, others in edges.items()
        if module.split(".")[0] == "engine"
        for other in others
        if other.split(".")[0] == "factory"
    )
    assert not found, found


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


def bound_names(files: list[Path], root: Path = ROOT) -> tuple[dict[str, dict[str, set[str]]], dict[str, set[str]]]:
    """(alias -> what it names -> the files that say so, for every `import a as x` and `from a import b as x`;
    name -> the project's modules bound by a plain `from pkg import module`). A relative import is resolved
    against the file's own package, as graph() does."""
    modules = {module_name(p, root) for p in files}
    aliases: dict[str, dict[str, set[str]]] = {}
    plain: dict[str, set[str]] = {}
    for path in files:
        name = module_name(path, root)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        where = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        aliases.setdefault(alias.asname, {}).setdefault(alias.name, set()).add(where)
            elif isinstance(node, ast.ImportFrom):
                source = import_source(node, package)
                for alias in node.names:
                    whole = f"{source}.{alias.name}" if source else alias.name
                    if alias.asname:
                        aliases.setdefault(alias.asname, {}).setdefault(whole, set()).add(where)
                    elif whole in modules:
                        plain.setdefault(alias.name, set()).add(whole)
    return aliases, plain


def alias_clashes(files: list[Path], root: Path = ROOT) -> dict[str, list[str]]:
    """alias -> the things it names, where it names two or more across the files (a plain `from pkg import m`
    elsewhere that binds the same name to another module counts too)."""
    aliases, plain = bound_names(files, root)
    found = {}
    for alias, targets in sorted(aliases.items()):
        meant = set(targets) | plain.get(alias, set())
        if len(meant) > 1:
            found[alias] = [f"{t} ({', '.join(sorted(targets.get(t, {'plain import'})))})" for t in sorted(meant)]
    return found


def test_an_alias_names_one_thing_everywhere():
    """A reader who meets `words.` or `st.` knows which module is meant without looking at the file's imports:
    an alias names the same module (or function) in every file of the project, and no plain import binds that
    name to another module."""
    found = alias_clashes(project_files())
    assert not found, "aliases that name different things in different files: " + "; ".join(
        f"{alias} = {' | '.join(targets)}" for alias, targets in found.items()
    )


# Per-page packages may each keep their own names for their parts (two pages' `maps.py` each draw that page's
# maps): a module directly in ui/sections/<page>/ is not compared with the others.
PER_PAGE = "ui/sections/"


def shared_file_names(files: list[Path], root: Path = ROOT) -> dict[str, list[str]]:
    """file name -> the modules of the ui package that have it, where two or more do (__init__.py and the
    per-page packages' modules aside)."""
    where: dict[str, list[str]] = {}
    for path in files:
        relative = path.relative_to(root).as_posix()
        if path.name == "__init__.py" or relative.startswith(PER_PAGE):
            continue
        where.setdefault(path.name, []).append(relative)
    return {name: sorted(paths) for name, paths in sorted(where.items()) if len(paths) > 1}


@pytest.mark.parametrize("package", ["ui", "engine", "factory", "services"])
def test_no_two_modules_of_one_package_share_a_name(package):
    """Inside one package, one name means one module: `place` in ui/lessons/ and in ui/poll/ kept two different
    things; a reader who meets `place.` or opens place.py should not have to ask which."""
    found = shared_file_names(sorted(p for p in (ROOT / package).rglob("*.py") if "__pycache__" not in p.parts))
    assert not found, f"modules of {package}/ that share a file name: " + "; ".join(
        f"{name}: {', '.join(paths)}" for name, paths in found.items()
    )


def test_the_name_readers_see_a_clash(tmp_path):
    """An alias naming two modules, an alias clashing with a plain import of another module, a relative import
    and a shared file name are each found; per-page modules and __init__.py are not compared."""
    for folder in ("pkg", "pkg/prose", "pkg/lessons", "pkg/poll", "ui/sections/a", "ui/sections/b", "ui/x"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "__init__.py").write_text("")
    for name in (
        "pkg/prose/learn.py",
        "pkg/prose/room.py",
        "pkg/lessons/words.py",
        "pkg/lessons/place.py",
        "pkg/poll/place.py",
        "ui/sections/a/maps.py",
        "ui/sections/b/maps.py",
        "ui/x/maps.py",
    ):
        (tmp_path / name).write_text("")
    (tmp_path / "pkg/a.py").write_text("from pkg.prose import learn as words\nimport numpy as np\n")
    (tmp_path / "pkg/b.py").write_text("from .prose import room as words\nimport numpy as np\n")
    (tmp_path / "pkg/c.py").write_text("from pkg.lessons import words\nfrom pkg.prose import learn as learn_words\n")
    files = sorted(tmp_path.rglob("*.py"))
    clashes = alias_clashes(files, tmp_path)
    assert list(clashes) == ["words"]
    assert [t.split(" ")[0] for t in clashes["words"]] == ["pkg.lessons.words", "pkg.prose.learn", "pkg.prose.room"]
    (tmp_path / "pkg/b.py").write_text("from .prose import learn as words\n")
    (tmp_path / "pkg/c.py").write_text("from pkg.prose import learn\n")
    assert alias_clashes(sorted(tmp_path.rglob("*.py")), tmp_path) == {}
    assert shared_file_names(files, tmp_path) == {"place.py": ["pkg/lessons/place.py", "pkg/poll/place.py"]}
