"""Fixtures of the editor tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture()
def xdg_dirs(tmp_path: Path) -> dict[str, str]:
    """XDG folders of the test's own, so an editor reads no user config, plugin or state."""
    return {
        f"XDG_{kind.upper()}_HOME": str(tmp_path / "xdg" / kind)
        for kind in ("config", "data", "state", "cache")
    }
