"""The engine depends on nothing above it: no module of `atlas_core` imports the host package or a
protocol library, at the top or inside a function. Walks the syntax trees, so a lazy import hidden
in a function body counts as much as one at the top."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "atlas_core"
FORBIDDEN = ("atlas_ls", "pygls", "lsprotocol", "mcp")


def imported_modules(tree: ast.AST) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.lineno, node.args[0].value))
    return found


def forbidden_imports(source: str, filename: str) -> list[str]:
    tree = ast.parse(source, filename)
    return [
        f"{filename}:{line}: imports {name}"
        for line, name in imported_modules(tree)
        if name.split(".")[0] in FORBIDDEN
    ]


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


def test_the_engine_has_few_top_level_modules() -> None:
    modules = [p.name for p in ENGINE.glob("*.py")]
    assert len(modules) <= 12, sorted(modules)
