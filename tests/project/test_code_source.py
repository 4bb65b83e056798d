"""The `code` source: what a repository's files become, and what is skipped and why."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from atlas_core.errors import SourceError
from atlas_core.sources import load_sources, parse_spec
from atlas_core.sources.code import load_code

SYNC_PY = '''"""Nightly sync of our assets."""
import requests

BASE = "https://acme.collibra.com/rest/2.0"


def find_assets(name):
    """Find assets by name."""
    return requests.get(BASE + "/assets", params={"name": name}).json()
'''


def _repo(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "sync.py").write_text(SYNC_PY, encoding="utf-8")
    (root / "README.md").write_text("# Sync\n\nHow we sync assets.\n", encoding="utf-8")
    (root / "jobs").mkdir()
    (root / "jobs" / "import.groovy").write_text("def run() {\n  println 'x'\n}\n")
    return root


def test_source_files_become_documents_with_their_language(tmp_path: Path) -> None:
    root = _repo(tmp_path / "acme-sync")
    (root / "src" / "crlf.py").write_bytes(b"\xef\xbb\xbfx = 1\r\ny = 2\r\n")
    docs, description = load_code(str(root))
    by_path = {d.path: d for d in docs}
    assert sorted(by_path) == ["README.md", "jobs/import.groovy", "src/crlf.py", "src/sync.py"]
    assert by_path["src/sync.py"].text == SYNC_PY  # the file as it is, for line numbers
    assert by_path["src/sync.py"].language == "python"
    assert by_path["jobs/import.groovy"].language == "groovy"
    assert by_path["src/crlf.py"].text == "x = 1\ny = 2\n"  # BOM dropped, LF line ends
    # Markdown of the repository is a page like any other, chunked as markdown.
    assert by_path["README.md"].language == "" and by_path["README.md"].title == "Sync"
    assert {d.publication for d in docs} == {"acme-sync"}
    assert description["kind"] == "code" and description["documents"] == 4
    assert description["languages"] == {"groovy": 1, "markdown": 1, "python": 2}
    assert description["path"] == str(root.resolve())


def test_unreadable_and_odd_files_are_skipped_with_the_reason(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    (root / "src" / "latin1.py").write_bytes("name = 'caf\xe9'\n".encode("latin-1"))
    (root / "src" / "empty.py").write_text("   \n")
    (root / "outside.py").symlink_to(tmp_path / "elsewhere.py")
    (tmp_path / "elsewhere.py").write_text("SECRET = 1\n")
    (root / "node_modules").mkdir()
    (root / "node_modules" / "dep.js").write_text("module.exports = 1\n")
    locked = root / "src" / "locked.py"
    locked.write_text("x = 1\n")
    locked.chmod(0)
    try:
        docs, description = load_code(str(root))
    finally:
        locked.chmod(0o644)
    paths = {d.path for d in docs}
    assert "src/latin1.py" not in paths and "outside.py" not in paths
    assert not any("SECRET" in d.text for d in docs)  # a link out is never followed
    skipped = description["skipped"]
    assert skipped["not UTF-8 text"] == 1
    assert skipped["empty"] == 1
    assert skipped["symbolic link (never followed)"] == 1
    assert skipped["vendored or generated folder"] == 1
    if os.geteuid() != 0:  # root reads any file
        assert "src/locked.py" not in paths
        assert any(reason.startswith("unreadable") for reason in skipped)
    assert description["skipped_files"]["not UTF-8 text"] == ["src/latin1.py"]


def test_a_file_that_vanishes_during_indexing_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _repo(tmp_path / "repo")
    import atlas_core.sources.code as code

    real = code.read_regular_file

    def vanishing(path: Path, name: str) -> bytes:
        if name == "src/sync.py":
            path.unlink()  # deleted between the listing and the read
        return real(path, name)

    monkeypatch.setattr(code, "read_regular_file", vanishing)
    docs, description = load_code(str(root))
    assert "src/sync.py" not in {d.path for d in docs}
    (reason,) = [r for r in description["skipped"] if r.startswith("changed or vanished")]
    assert description["skipped_files"][reason] == ["src/sync.py"]


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_commit_is_read_from_git_not_from_the_working_tree(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "first"], ["tag", "v1"]):
        subprocess.run(["git", *args], cwd=root, check=True, env=env)
    (root / "src" / "sync.py").write_text("CHANGED = True\n")  # not committed
    (root / "src" / "new.py").write_text("NEW = 1\n")
    docs, description = load_code(f"{root}#v1")
    by_path = {d.path: d for d in docs}
    assert by_path["src/sync.py"].text == SYNC_PY and "src/new.py" not in by_path
    assert description["ref"] == "v1" and len(description["commit"]) == 40
    docs, _ = load_code(f"{root}#v1:src")
    assert sorted(d.path for d in docs) == ["sync.py"]
    with pytest.raises(SourceError, match="no-such-ref"):
        load_code(f"{root}#no-such-ref")


def test_code_is_a_source_kind_and_a_missing_folder_says_so(tmp_path: Path) -> None:
    assert parse_spec("code=./repo") == ("code", "./repo")
    with pytest.raises(SourceError, match="not a folder"):
        load_sources([f"code={tmp_path / 'missing'}"])


def test_a_repository_over_the_file_limit_is_refused_before_reading(tmp_path: Path) -> None:
    from atlas_core.sources.code_walk import MAX_FILES, walk_repository

    root = tmp_path / "mono"
    for n in range(12):
        (root / f"pkg{n % 3}").mkdir(parents=True, exist_ok=True)
        (root / f"pkg{n % 3}" / f"m{n}.py").write_text(f"X = {n}\n")
    assert len(walk_repository(root, max_files=12).files) == 12
    with pytest.raises(SourceError, match="more than 11 files to index") as refused:
        walk_repository(root, max_files=11)
    assert ".atlasignore" in (refused.value.hint or "")
    (root / ".atlasignore").write_text("pkg0/\n")  # the way out the hint names
    assert len(walk_repository(root, max_files=11).files) == 8
    help_text = subprocess.run(
        [sys.executable, "-m", "atlas_ls.cli", "index", "--help"], capture_output=True, text=True
    ).stdout
    assert f"default {MAX_FILES:,}" in " ".join(help_text.split())
