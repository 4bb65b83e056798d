"""The hostile-input suite (issue 10) is stress testing by design: every test in this folder
carries the `stress` marker, so the README's quick command leaves it to `.ci/run`, which runs it."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Hooks of a folder's conftest see the whole session's items: mark only this folder's.
    for item in items:
        if HERE in item.path.resolve().parents:
            item.add_marker(pytest.mark.stress)
