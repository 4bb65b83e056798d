"""Atlas engine: bundle format, build pipeline, search and distribution. Imports no protocol library."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from atlas_core.metadata import version

# "0.0.0+unknown": a source tree that was never installed.
__version__ = version("atlas-docs") or "0.0.0+unknown"


def lazy_exports(package: str, exports: dict[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``package.<module>`` only when one of its names is
    first read: the language server's cold start must not pay for the build-time modules (or
    numpy) that sit in the same package as the one class it needs."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{module}"), name)

    return __getattr__
