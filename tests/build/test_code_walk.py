"""Walking a repository for the `code` source: what is indexed, what is skipped and why."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from atlas_core.errors import SourceError
from atlas_core.sources.code_walk import language_of, walk_repository


def _write(root: Path, rel: str, data: str | bytes = "x = 1\n") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8")
    return path


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    _write(root, "src/sync.py", "def sync():\n    return 1\n")
    _write(root, "src/app.ts", "export const a = 1;\n")
    _write(root, "scripts/run.sh", "echo hi\n")
    _write(root, "README.md", "# Repo\n")
    _write(root, "notes.txt", "plain text\n")
    # git ignores: top level, nested, negation
    _write(root, ".gitignore", "*.log\n!keep.log\nsecrets/\n/local.py\n")
    _write(root, "debug.log", "noise\n")
    _write(root, "keep.log", "kept\n")
    _write(root, "secrets/key.py", "KEY = 1\n")
    _write(root, "local.py", "x = 2\n")
    _write(root, "src/local.py", "x = 3\n")  # "/local.py" is anchored to the root
    _write(root, "src/gen/.gitignore", "*.py\n!hand.py\n")
    _write(root, "src/gen/auto.py", "x = 4\n")
    _write(root, "src/gen/hand.py", "x = 5\n")
    # committed but not wanted
    _write(root, ".atlasignore", "fixtures/\n")
    _write(root, "tests/fixtures/big.json", "{}\n")
    _write(root, "tests/test_sync.py", "def test(): pass\n")
    # vendored, generated, lock files, minified, binary, too large
    _write(root, "node_modules/lib/index.js", "module.exports = 1;\n")
    _write(root, "vendor/x.go", "package x\n")
    _write(root, "dist/app.js", "var a=1;\n")
    _write(root, "package-lock.json", "{}\n")
    _write(root, "uv.lock", "version = 1\n")
    _write(root, "web/app.min.js", "var a=1;\n")
    _write(root, "web/bundle.js", "var " + "a" * 5000 + "=1;\nvar b=2;\n")
    _write(root, "web/ok.js", "export function ok() {}\n")
    _write(root, "img/logo.png", b"\x89PNG\r\n\x1a\n\0\0\0rest")
    _write(root, "data/huge.py", "x = 1\n" * 200_000)
    return root


def _skipped(listing: object, reason_start: str) -> list[str]:
    skipped: dict[str, list[str]] = listing.skipped  # type: ignore[attr-defined]
    return sorted(e for reason, entries in skipped.items() if reason.startswith(reason_start)
                  for e in entries)  # fmt: skip


def test_the_walk_keeps_source_and_says_why_it_left_out_the_rest(repo: Path) -> None:
    listing = walk_repository(repo)
    kept = [f.rel for f in listing.files]
    assert kept == [
        "README.md",
        "keep.log",
        "notes.txt",
        "scripts/run.sh",
        "src/app.ts",
        "src/gen/hand.py",
        "src/local.py",
        "src/sync.py",
        "tests/test_sync.py",
        "web/ok.js",
    ]
    assert _skipped(listing, "ignored") == [
        "debug.log", "local.py", "secrets/", "src/gen/auto.py", "tests/fixtures/"
    ]  # fmt: skip
    assert _skipped(listing, "vendored") == ["dist/", "node_modules/", "vendor/"]
    assert _skipped(listing, "lock file") == ["package-lock.json", "uv.lock"]
    assert _skipped(listing, "minified") == ["web/app.min.js", "web/bundle.js"]
    assert _skipped(listing, "binary") == ["img/logo.png"]
    assert _skipped(listing, "larger than") == ["data/huge.py"]
    counts = listing.counts()
    assert counts["lock file"] == 2 and sum(counts.values()) == 14
    languages = {f.rel: f.language for f in listing.files}
    assert languages["src/sync.py"] == "python" and languages["src/app.ts"] == "typescript"
    assert languages["scripts/run.sh"] == "shell" and languages["notes.txt"] == "text"


def test_links_are_never_followed_and_odd_names_are_counted(repo: Path, tmp_path: Path) -> None:
    outside = _write(tmp_path / "outside", "secret.py", "TOKEN = 'x'\n")
    os.symlink(outside, repo / "src" / "leak.py")
    os.symlink(outside.parent, repo / "linked")
    odd = os.fsencode(repo / "src") + b"/caf\xe9.py"
    with open(odd, "wb") as handle:
        handle.write(b"x = 1\n")
    listing = walk_repository(repo)
    kept = [f.rel for f in listing.files]
    assert "src/leak.py" not in kept and not any(k.startswith("linked") for k in kept)
    assert _skipped(listing, "symbolic link") == ["linked", "src/leak.py"]
    assert _skipped(listing, "name is not UTF-8") == ["src/caf\\xe9.py"]


def test_the_size_cap_is_a_parameter(repo: Path) -> None:
    listing = walk_repository(repo, max_bytes=10)
    assert "src/sync.py" in _skipped(listing, "larger than 10 bytes")


def test_a_missing_repository_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="not a folder") as info:
        walk_repository(tmp_path / "nope")
    assert "--source code=PATH" in (info.value.hint or "")


def test_languages_by_name() -> None:
    assert language_of("a/b.groovy") == "groovy"
    assert language_of("build.gradle") == "groovy"
    assert language_of("x.tsx") == "tsx"
    assert language_of("deploy.yml") == "yaml"
    assert language_of("main.go") == "go"
    assert language_of("Makefile") == "text"


def test_credentials_files_are_never_indexed_and_git_is_not_a_skip(repo: Path) -> None:
    for rel in (".env", "config/.env.local", "certs/server.pem", "keys/id_rsa", "deploy/app.key"):
        _write(repo, rel, "SECRET=1\n")
    _write(repo, "config/app.env.example", "SECRET=\n")  # a template names keys, not values
    _write(repo, ".eslintrc.js", "module.exports = {};\n")
    _write(repo, ".github/workflows/ci.yml", "on: push\n")
    _write(repo, ".git/config", "[core]\n")
    listing = walk_repository(repo)
    rels = {f.rel for f in listing.files}
    assert {"config/app.env.example", ".github/workflows/ci.yml"} <= rels
    assert listing.counts()["hidden file"] == 1  # .eslintrc.js: bundles hold no dot-files
    assert not rels & {".env", "config/.env.local", "certs/server.pem", "keys/id_rsa"}
    assert listing.counts()["credentials file (.env, keys)"] == 5
    assert not any(".git" in entry for entries in listing.skipped.values() for entry in entries)
