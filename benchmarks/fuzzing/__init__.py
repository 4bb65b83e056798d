"""The adversarial suite behind `benchmarks/fuzz.py`: one module per class of hostile input.

A class module has `CLASS`, `DEFAULT_CASES`, `TIMEOUT_S` and `recipe(seed, index)`, plus either a
`Target` (run in a separate case runner, see `worker.py`: in-process components) or a
`run(workspace, recipes, tally)` (classes that drive a server process themselves).
"""

from __future__ import annotations

import importlib
import time
from types import ModuleType

from benchmarks.fuzzing.core import Tally
from benchmarks.fuzzing.workspace import Workspace

# Class name -> module; listed in the order a full run goes through them.
MODULES = {
    "archive": "archive",
    "release": "release",
    "bundle": "bundle",
    "sources": "sources",
    "client_configs": "client_configs",
    "repositories": "repositories",
    "queries": "queries",
    "mcp_paths": "mcp_paths",
    "mcp_wire": "mcp_wire",
    "lsp_wire": "lsp_wire",
    "http": "http_limits",
}
CLASSES = tuple(MODULES)


def load(cls: str) -> ModuleType:
    return importlib.import_module(f"benchmarks.fuzzing.{MODULES[cls]}")


def run_class(cls: str, workspace: Workspace, cases: int | None = None) -> Tally:
    """Generate and run `cases` cases of `cls` (its default count when None)."""
    module = load(cls)
    count = module.DEFAULT_CASES if cases is None else cases
    recipes = [module.recipe(workspace.seed, index) for index in range(count)]
    tally = Tally()
    started = time.monotonic()
    if hasattr(module, "Target"):
        _run_in_worker(cls, module, workspace, recipes, tally)
    else:
        module.run(workspace, recipes, tally)
    tally.seconds = time.monotonic() - started
    return tally


def _run_in_worker(
    cls: str, module: ModuleType, workspace: Workspace, recipes: list[dict], tally: Tally
) -> None:
    from benchmarks.fuzzing.worker import Worker

    setup = module.setup(workspace) if hasattr(module, "setup") else workspace.setup(cls)
    worker = Worker(MODULES[cls], setup, workspace.root / f"{cls}.log")
    timeout = workspace.case_timeout(module.TIMEOUT_S)
    try:
        for index, recipe in enumerate(recipes):
            tally.add(index, recipe["label"], worker.run(recipe, timeout))
            workspace.trace(cls, index, recipe["label"], tally.last)
    finally:
        worker.close()
    if worker.starts > 1:
        tally.note = f"case runner restarted {worker.starts - 1} time(s) after a hang or crash"
