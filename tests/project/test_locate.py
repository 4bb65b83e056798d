"""Where a project's index lives, and which one a server opens beside the docs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from atlas_core.config import data_dir, load_settings
from atlas_core.errors import SourceError
from atlas_core.project import (
    PROJECT_ENV,
    indexed_bundle,
    project_bundle_dir,
    project_bundles,
    project_root,
)


def _fake_index(root: Path) -> Path:
    bundle = project_bundle_dir(root)
    bundle.mkdir(parents=True)
    (bundle / "manifest.json").write_text(json.dumps({"name": root.name}))
    return bundle


def test_the_repository_is_the_nearest_folder_with_git(tmp_path: Path) -> None:
    repo = tmp_path / "acme"
    (repo / ".git").mkdir(parents=True)
    (repo / "src" / "jobs").mkdir(parents=True)
    assert project_root(repo / "src" / "jobs") == repo.resolve()
    plain = tmp_path / "plain"
    plain.mkdir()
    assert project_root(plain) == plain.resolve()  # no repository: the folder itself
    with pytest.raises(SourceError, match="not a folder"):
        project_root(tmp_path / "missing")


def test_two_checkouts_of_the_same_name_get_their_own_index(tmp_path: Path) -> None:
    one, two = tmp_path / "a" / "app", tmp_path / "b" / "app"
    one.mkdir(parents=True)
    two.mkdir(parents=True)
    first, second = project_bundle_dir(one), project_bundle_dir(two)
    assert first != second
    assert first.parent == second.parent == data_dir() / "projects"
    assert first.name.startswith("app-") and second.name.startswith("app-")


def test_servers_open_the_index_they_are_pointed_at_or_started_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "acme"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    monkeypatch.chdir(repo / "src")
    assert project_bundles(None) == []  # not indexed yet: nothing beside the docs
    assert indexed_bundle(repo) is None
    with pytest.raises(SourceError, match="no index yet") as raised:
        project_bundles(str(repo))
    assert "atlas index" in (raised.value.hint or "")
    bundle = _fake_index(repo)
    assert project_bundles(None) == [bundle]  # started inside the repository
    assert project_bundles(None, cwd=False) == []
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    monkeypatch.chdir(other)
    assert project_bundles(str(repo / "src")) == [bundle]  # --project inside the repository
    monkeypatch.setenv(PROJECT_ENV, str(repo))  # the servers pass the `project` setting
    assert project_bundles(load_settings().project) == [bundle]
