"""The packages of `atlas_core` sit in ranked layers, and every import respects them.

`LAYERS` below is the one written form of the order (docs/architecture.md draws it).
A package imports only packages of its own layer or of a layer below, never in a cycle, and only
through their public face: `atlas_core.<package>` itself and a name its `__init__` lists in
`__all__`, never `atlas_core.<package>.<module>`. The hosts (`atlas_ls`) sit above every layer and
import `atlas_core` through the same faces. Nothing of `atlas_core` imports a host or a protocol
library. The checks walk the syntax trees, so an import inside a function, under TYPE_CHECKING or
through `importlib.import_module("...")` counts as much as one at the top.

The order lives here rather than in `atlas_core`: nothing reads it at run time, and the test is
the one place that must agree with the code.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "atlas_core"
HOSTS = ROOT / "atlas_ls"
FORBIDDEN = ("atlas_ls", "pygls", "lsprotocol", "mcp")
CORE = "atlas_core"

# Bottom to top. A name is a package or module directly under atlas_core; "atlas_core" is the
# package's own __init__ (its version and the lazy-face helper).
LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    (
        "foundation",
        frozenset(
            {"atlas_core", "errors", "types", "config", "metadata", "safeio", "syntax", "console"}
        ),
    ),
    ("readers", frozenset({"markdown", "code", "recognize"})),
    ("gatherers", frozenset({"sources", "embed", "crawl"})),
    ("indexes", frozenset({"search", "identifiers"})),
    ("bundle and its pages", frozenset({"bundle", "pages"})),
    ("builders and checkers", frozenset({"build", "apicheck", "distribution", "demo", "project"})),
    ("engine", frozenset({"engine"})),
    ("serving", frozenset({"serving"})),
    ("tools over served bundles", frozenset({"changes", "evaluate"})),
)
RANK = {name: rank for rank, (_, names) in enumerate(LAYERS) for name in names}


@dataclass(frozen=True, slots=True)
class Import:
    line: int
    module: str  # absolute dotted name
    names: tuple[str, ...] = ()  # for `from MODULE import a, b`


def module_name(path: Path) -> tuple[str, bool]:
    """(dotted name, whether it is a package's __init__) of a file under ROOT."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


def imports_of(tree: ast.AST, module: str = "x", is_package: bool = False) -> Iterator[Import]:
    """Every import in the tree, relative ones made absolute, at any depth."""
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (Import(node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            yield Import(node.lineno, target, tuple(alias.name for alias in node.names))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            yield Import(node.lineno, node.args[0].value)


def imported_modules(tree: ast.AST) -> list[tuple[int, str]]:
    return [(found.line, found.module) for found in imports_of(tree)]


def forbidden_imports(source: str, filename: str) -> list[str]:
    tree = ast.parse(source, filename)
    return [
        f"{filename}:{line}: imports {name}"
        for line, name in imported_modules(tree)
        if name.split(".")[0] in FORBIDDEN
    ]


def package_of(module: str) -> str | None:
    """The atlas_core package (or top-level module) a dotted name belongs to; None outside."""
    parts = module.split(".")
    if parts[0] != CORE:
        return None
    return parts[1] if len(parts) > 1 else CORE


def face_exports(package: str) -> frozenset[str] | None:
    """The names `atlas_core/<package>/__init__.py` lists in `__all__`; None for a plain module
    (errors.py, types.py: the whole module is its face) or a face without `__all__`."""
    init = ENGINE / package / "__init__.py" if package != CORE else ENGINE / "__init__.py"
    if not init.is_file():
        return None
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
            and isinstance(node.value, ast.List | ast.Tuple)
        ):
            return frozenset(
                e.value
                for e in node.value.elts
                if isinstance(e, ast.Constant) and type(e.value) is str
            )
    return None


def face_problem(found: Import) -> str | None:
    """Why an import from another package goes past that package's public face, or None."""
    target = package_of(found.module)
    assert target is not None
    if target == CORE:
        return None if found.module == CORE else f"imports {found.module}, past atlas_core's face"
    if found.module != f"{CORE}.{target}":
        return f"imports {found.module}: import it from {CORE}.{target}, its public face"
    exports = face_exports(target)
    if exports is None:
        return None
    hidden = sorted(set(found.names) - exports)
    if hidden:
        return f"imports {', '.join(hidden)} from {found.module}, which its __all__ does not export"
    return None


def layer_problems(source: str, path: Path) -> tuple[list[str], set[tuple[str, str]]]:
    """(problems, package edges) of one file of atlas_core or a host, as if it lived at `path`."""
    module, is_package = module_name(path)
    here = package_of(module)
    where = path.relative_to(ROOT)
    problems: list[str] = []
    edges: set[tuple[str, str]] = set()
    for found in imports_of(ast.parse(source, str(where)), module, is_package):
        target = package_of(found.module)
        if target is None or target == here:
            continue
        if target not in RANK:
            problems.append(f"{where}:{found.line}: {target} is in no layer: add it to LAYERS")
            continue
        if here is not None:  # a module of atlas_core
            if here not in RANK:
                problems.append(f"{where}:{found.line}: {here} is in no layer: add it to LAYERS")
                continue
            edges.add((here, target))
            if RANK[target] > RANK[here]:
                problems.append(
                    f"{where}:{found.line}: {here} ({LAYERS[RANK[here]][0]}) imports "
                    f"{found.module} from a higher layer ({LAYERS[RANK[target]][0]})"
                )
        problem = face_problem(found)
        if problem:
            problems.append(f"{where}:{found.line}: {problem}")
    return problems, edges


def find_cycle(edges: set[tuple[str, str]]) -> list[str] | None:
    """One cycle of the package graph (its packages in order, the first repeated last), or None."""
    graph: dict[str, list[str]] = {}
    for source, target in sorted(edges):
        graph.setdefault(source, []).append(target)
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in graph.get(node, ()):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def check_tree(*roots: Path) -> tuple[list[str], set[tuple[str, str]]]:
    problems: list[str] = []
    edges: set[tuple[str, str]] = set()
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            found, more = layer_problems(path.read_text(encoding="utf-8"), path)
            problems += found
            edges |= more
    return problems, edges


def test_the_engine_imports_no_host_and_no_protocol_library() -> None:
    problems = []
    for path in sorted(ENGINE.rglob("*.py")):
        problems += forbidden_imports(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert problems == []


@pytest.mark.parametrize(
    "source",
    [
        "import atlas_ls.lsp.server\n",
        "from pygls.lsp.server import LanguageServer\n",
        "def f():\n    from lsprotocol import types\n",
        "import mcp.types as t\n",
        "import importlib\nimportlib.import_module('atlas_ls.smoke')\n",
    ],
)
def test_the_check_sees_every_kind_of_import(source: str) -> None:
    assert forbidden_imports(source, "x.py")


def test_every_package_is_in_a_layer_and_imports_only_downward_through_faces() -> None:
    problems, _ = check_tree(ENGINE, HOSTS)
    assert problems == []


def test_no_import_cycle_between_packages() -> None:
    _, edges = check_tree(ENGINE)
    assert find_cycle(edges) is None


def test_every_package_of_atlas_core_has_a_layer() -> None:
    names = {p.stem for p in ENGINE.glob("*.py")} | {
        p.name for p in ENGINE.iterdir() if (p / "__init__.py").is_file()
    }
    names = {CORE if n == "__init__" else n for n in names} - {"__main__"}
    assert sorted(names - set(RANK)) == []


def test_the_architecture_page_draws_the_layers_in_this_order() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    start = text.index("<!-- layers -->")
    drawing = text[start : text.index("<!-- /layers -->", start)]
    rows = [line for line in drawing.splitlines() if "|" in line and not line.startswith("|-")]
    drawn = [
        {cell.strip().strip("`").removesuffix("/").removesuffix(".py") for cell in cells}
        for cells in (row.split("|")[2].split(",") for row in rows[1:])
    ]
    assert drawn == [set(names) for _, names in reversed(LAYERS)]


PLANTED = ROOT / "atlas_core" / "markdown" / "planted.py"


@pytest.mark.parametrize(
    "source",
    [
        "from atlas_core.search import tokenize\n",  # a layer up
        "def f():\n    from atlas_core.engine import Engine\n",  # inside a function
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from atlas_core.bundle import Bundle\n",
        "import importlib\nimportlib.import_module('atlas_core.serving')\n",
        "import atlas_core.sources\n",
        "from atlas_core.newcomer import thing\n",  # a package no layer names
    ],
)
def test_the_check_fails_on_a_planted_upward_import(source: str) -> None:
    problems, _ = layer_problems(source, PLANTED)
    assert problems, source


@pytest.mark.parametrize(
    "source",
    [
        "from atlas_core.syntax.tree import parse_source\n",
        "def f():\n    import atlas_core.safeio.bounded_read\n",
        "from atlas_core.recognize import registry\n",  # a module, not an exported name
        "from atlas_core.code import not_exported\n",
        "import importlib\nimportlib.import_module('atlas_core.errors.sub')\n",
    ],
)
def test_the_check_fails_on_a_planted_deep_import(source: str) -> None:
    problems, _ = layer_problems(source, PLANTED)
    assert any("face" in p or "__all__" in p for p in problems), (source, problems)


@pytest.mark.parametrize(
    "source",
    [
        "from atlas_core.errors import SourceError\n",
        "from atlas_core.code import chunk_code\n",  # same layer, through the face
        "from atlas_core import __version__\n",
        "from atlas_core.markdown.outline import Heading\n",  # its own package
        "from .outline import Heading\n",
    ],
)
def test_the_check_passes_downward_imports_through_faces(source: str) -> None:
    assert layer_problems(source, PLANTED)[0] == []


def test_the_check_finds_a_cycle_between_packages() -> None:
    edges = {("code", "markdown"), ("markdown", "recognize"), ("recognize", "code"), ("a", "b")}
    cycle = find_cycle(edges)
    assert cycle is not None and cycle[0] == cycle[-1] and len(cycle) == 4
    assert find_cycle({("code", "markdown"), ("markdown", "errors")}) is None


def test_the_engine_has_few_top_level_modules() -> None:
    modules = [p.name for p in ENGINE.glob("*.py")]
    assert len(modules) <= 12, sorted(modules)
