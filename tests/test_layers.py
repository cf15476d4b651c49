"""Which layer of the app may import which (read from every module's own imports, as text):

* engine/    plain NumPy, the teaching core: imports nothing of the app (not the factory either);
* factory/   what makes and keeps the models the app ships (shipping runs and their measures, the disk store, the
             corpus builder, the shown passage): imports the engine and itself, never Streamlit, services/ or ui/;
* services/  what serves the app but draws nothing (trained weights, training workers, the poll's store):
             imports the engine, the factory and itself, never Streamlit or ui/;
* ui/        everything that draws: may import the engine, the factory and the services. Its pure parts (the words in
             ui/prose/, and the frame's state, URL, presets, page list, View and Part) import no Streamlit;
             only ui/compute.py (and its Experiments part, ui/compute_experiments.py) calls the engine's
             computations (a forward pass, a training, a measure) or the weights service (others may name
             its types, and the model handle's), so every such number is cached on small keys
             in one place; the poll's store is imported by ui/poll/ only;
* pages/     thin: each calls its folder of ui/sections/ (its page.py): they import ui only;
* a page's own words, lesson facts and poll question (ui/sections/<page>/words*.py, facts.py, question.py)
  are pure like ui/prose/.

No module of the project outside tests/ is longer than 300 lines (the app's, and the benchmarks', deploy/'s,
harness/'s, docs/' too). The app's tests in tests/ import nothing from benchmarks/ (the benchmark tools' own
tests live beside them, in benchmarks/tests/). No cached function has a default argument: Streamlit keys a
cached call by its arguments as written, so f(x) and f(x, None) would be two entries, two measures of one
quantity (a wrapper spells the defaults out, then calls the cached function).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import ROOT

APP = ("engine", "factory", "services", "ui", "pages")
PURE_UI = (
    "ui/prose/",
    "ui/shell/state.py",
    "ui/shell/url.py",
    "ui/shell/presets.py",
    "ui/shell/site.py",
    "ui/shell/view.py",
    "ui/shell/parts.py",
    "ui/poll/link.py",
    "ui/poll/questions.py",
    "ui/lessons/lesson.py",
    "ui/lessons/facts",
    "ui/lessons/registry.py",
    "ui/lessons/lesson_words.py",
    "ui/lessons/shipped.py",
    "ui/lessons/check.py",
)
# A page's own words, lesson facts and poll question live in its folder, ui/sections/<page>/, pure as above.
PURE_PAGE_PARTS = ("words", "facts", "question")
COMPUTATIONS = {
    "run",
    "forward",
    "train",
    "task_stack",
    "task_trace",
    "evaluate",
    "position_metrics",
    "head_scores",
    "share_history",
    "init_params",
    "extend",
    "predict",
    "run_preset",
    "previous_share",
    "expected_share",
    "share_per_query",
    "causal_test",
    "positions_test",
    "scaling_rows",
    "init_sweep",
    "random_rows",
    "variance_curve",
    "get",
    "find",
    "replay",
}
SERVICE_TYPES = {"Model", "Training", "ORIGINS"}
HANDLE_TYPES = {"Handle"}  # services.handle: the model a page shows (ui/compute.py alone looks one up)
MAX_LINES = 300
# Streamlit's caches around the engine and the services:
COMPUTE = ("ui/compute.py", "ui/compute_experiments.py", "ui/compute_roles.py")


def modules() -> list[Path]:
    files = [p for top in APP for p in (ROOT / top).rglob("*.py")] + [ROOT / "streamlit_app.py"]
    return sorted(p for p in files if "__pycache__" not in p.parts)


def every_module(root: Path = ROOT) -> list[Path]:
    """Every .py of the project outside tests/: the app's modules and the benchmarks', deploy/'s, harness/'s ..."""
    from test_modules import project_files

    return [p for p in project_files(root) if p.relative_to(root).parts[0] != "tests"]


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def imports(path: Path) -> list[tuple[str, tuple[str, ...]]]:
    """(module, names) of every import in the file, at any depth (a function's own import counts too)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(alias.name, ()) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module, tuple(alias.name for alias in node.names)))
        elif isinstance(node, ast.ImportFrom):  # relative: inside its own package
            found.append((rel(path).split("/")[0] + "." + (node.module or ""), tuple(a.name for a in node.names)))
    return found


def top(module: str) -> str:
    return module.split(".")[0]


@pytest.mark.parametrize("path", modules(), ids=rel)
def test_each_layer_imports_only_what_it_may(path):
    where = rel(path)
    layer = where.split("/")[0]
    for module, names in imports(path):
        root = top(module)
        if layer == "engine":
            assert root not in ("factory", "services", "ui", "pages", "streamlit"), (where, module)
        elif layer == "factory":
            assert root not in ("services", "ui", "pages", "streamlit"), (where, module)
        elif layer == "services":
            assert root not in ("ui", "pages", "streamlit"), (where, module)
        elif layer == "pages":
            assert root not in ("engine", "factory", "services", "numpy", "pandas"), (where, module)
        if where.startswith(PURE_UI) or (where.startswith("ui/sections/") and path.stem.startswith(PURE_PAGE_PARTS)):
            assert root != "streamlit", (where, module)
        if layer == "ui" and module.startswith("services"):
            if module.startswith(
                ("services.poll", "services.jobs", "services.jobrunner")
            ):  # the rooms' experiment's queue
                assert where.startswith("ui/poll/"), (where, module, "the poll's store is the poll's own")
            elif where not in COMPUTE:
                named = SERVICE_TYPES if module == "services.weights" else HANDLE_TYPES
                assert module in ("services.weights", "services.handle") and set(names) <= named, (
                    where,
                    module,
                    names,
                    "only ui/compute.py calls the weights service",
                )


@pytest.mark.parametrize("path", [p for p in modules() if rel(p).startswith(("ui/", "pages/"))], ids=rel)
def test_only_compute_calls_the_engines_computations(path):
    """A call such as engine.forward(...), analysis.extend(...) or service.get(...) outside ui/compute.py
    computes a number that no cache keeps."""
    if rel(path) in COMPUTE:
        return
    aliases = {"engine", "analysis", "experiments", "xp", "service", "weights", "evidence", "measure", "training"}
    calls = [
        ast.unparse(node.func)
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in COMPUTATIONS
        and (
            (isinstance(node.func.value, ast.Name) and node.func.value.id in aliases)
            or ast.unparse(node.func.value).split(".")[0] == "engine"  # engine.measure.task_stack(...) too
        )
    ]
    assert not calls, (rel(path), calls)


def defaulted_caches(path: Path) -> list[tuple[int, str]]:
    """(line, name) of the functions under @st.cache_data / @st.cache_resource in the file that have a default
    argument."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and any(
                getattr(d.func if isinstance(d, ast.Call) else d, "attr", None) in ("cache_data", "cache_resource")
                for d in node.decorator_list
            )
            and (node.args.defaults or any(node.args.kw_defaults))
        ):
            found.append((node.lineno, node.name))
    return found


@pytest.mark.parametrize("path", [p for p in modules() if rel(p).startswith("ui/")], ids=rel)
def test_no_cached_function_has_a_default_argument(path):
    assert not defaulted_caches(path), (rel(path), defaulted_caches(path), "spell the defaults out in a wrapper")


@pytest.mark.parametrize("path", every_module(), ids=rel)
def test_no_module_is_longer_than_300_lines(path):
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_LINES, f"{rel(path)} has {lines} lines"


def benchmark_imports(folder: Path) -> list[tuple[str, str]]:
    """(file, module) of every import of benchmarks/ by a .py under folder, at any depth of the file."""
    return [
        (path.relative_to(folder.parent).as_posix(), module)
        for path in sorted(folder.rglob("*.py"))
        if "__pycache__" not in path.parts
        for module, _ in imports(path)
        if top(module) == "benchmarks"
    ]


def test_the_apps_tests_import_nothing_from_the_benchmarks():
    """tests/ is the app's: the benchmark tools' own tests are benchmarks/tests/, run by pytest's testpaths."""
    assert not benchmark_imports(ROOT / "tests"), benchmark_imports(ROOT / "tests")


def test_the_rules_see_what_they_must(tmp_path):
    """The readers above notice a forbidden import, a computation and a cached function's default (a test that
    cannot fail is a defect)."""
    sample = tmp_path / "x.py"
    sample.write_text(
        "import engine\nfrom services.weights import get\n\ndef f():\n    from streamlit import x\n"
        "    return engine.forward(1)\n"
    )
    assert ("engine", ()) in imports(sample) and ("streamlit", ("x",)) in imports(sample)
    assert ("services.weights", ("get",)) in imports(sample)
    tree = ast.parse(sample.read_text())
    assert any(isinstance(n, ast.Call) and getattr(n.func, "attr", None) == "forward" for n in ast.walk(tree))
    cached = tmp_path / "y.py"
    cached.write_text(
        "import streamlit as st\n\n@st.cache_data(max_entries=4)\ndef f(a, b=None):\n    return a\n\n"
        "@st.cache_resource\ndef g(a, *, k=1):\n    return a\n\n@st.cache_data\ndef h(a, b):\n    return a\n"
    )
    assert defaulted_caches(cached) == [(4, "f"), (8, "g")]
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_b.py").write_text(
        "import benchmarks.load\n\ndef test():\n    from benchmarks import hall\n"
    )
    assert [m for _, m in benchmark_imports(tmp_path / "tests")] == ["benchmarks.load", "benchmarks"]
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "t.py").write_text("")
    (tmp_path / "top.py").write_text("")
    assert [p.relative_to(tmp_path).as_posix() for p in every_module(tmp_path)] == [
        "tools/t.py",
        "top.py",
        "x.py",
        "y.py",
    ]


def test_each_page_is_its_folder_and_a_two_line_entry():
    """One home per page (issue 48): every page of the page list is its folder, ui/sections/<path>/, whose page.py
    draws it (its header, then its sections), and an entry file pages/<path>.py that only calls it. A new page is
    that folder, that file and its line in ui/shell/site.py."""
    from ui.shell import site

    for page in site.PAGES:
        entry = ROOT / page.file
        tree = ast.parse(entry.read_text())
        code = [ast.unparse(node) for node in tree.body if not isinstance(node, ast.Expr) or node is tree.body[-1]]
        assert code == ["from ui import app", f"from ui.sections.{page.path} import page", "page.draw(app.view())"], (
            page.file,
            code,
        )
        home = ROOT / "ui" / "sections" / page.path / "page.py"
        assert "draw" in {n.name for n in ast.parse(home.read_text()).body if isinstance(n, ast.FunctionDef)}, home
