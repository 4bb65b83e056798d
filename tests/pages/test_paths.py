"""Safe path resolution: only regular files inside the mirror, however the path is dressed up."""

from __future__ import annotations

from pathlib import Path

import pytest

from atlas_core.pages import PathRejected, normalize_relpath, resolve_file


@pytest.fixture
def root(tmp_path: Path) -> Path:
    mirror = tmp_path / "mirror"
    (mirror / "sec").mkdir(parents=True)
    (mirror / "sec" / "page.md").write_text("hello\n", encoding="utf-8")
    (tmp_path / "secret.md").write_text("outside\n", encoding="utf-8")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "x.md").write_text("outside\n", encoding="utf-8")
    (mirror / "sec" / "escape.md").symlink_to(tmp_path / "secret.md")
    (mirror / "sec" / "alias.md").symlink_to(mirror / "sec" / "page.md")
    (mirror / "linkdir").symlink_to(tmp_path / "elsewhere")
    (mirror / "loop.md").symlink_to(mirror / "loop.md")
    return mirror


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("sec/page.md", "sec/page.md"),
        ("./sec//page.md", "sec/page.md"),
        ("atlas://docs/sec/page.md", "sec/page.md"),
        ("sec%2Fpage.md", "sec/page.md"),
        ("sec\\page.md", "sec/page.md"),
    ],
)
def test_accepted_forms(root: Path, raw: str, expected: str) -> None:
    assert normalize_relpath(raw) == expected
    rel, path = resolve_file(root, raw)
    assert rel == expected and path == (root / expected).resolve()


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("../secret.md", "'..'"),
        ("sec/../../secret.md", "'..'"),
        ("%2e%2e/secret.md", "'..'"),
        ("%252e%252e%252fsecret.md", "'..'"),
        ("..%5csecret.md", "'..'"),
        ("/etc/passwd", "absolute"),
        ("%2fetc%2fpasswd", "absolute"),
        ("~/secret.md", "absolute"),
        ("C:/Windows/win.ini", "absolute"),
        ("sec/page.md\x00.txt", "NUL"),
        ("sec/page.md%00", "NUL"),
        ("", "empty"),
        (".", "root"),
        ("x" * 2000, "longer"),
    ],
)
def test_refused_strings(root: Path, raw: str, reason: str) -> None:
    with pytest.raises(PathRejected, match=reason):
        resolve_file(root, raw)


def test_links_leading_outside_are_refused(root: Path) -> None:
    with pytest.raises(PathRejected, match="outside"):
        resolve_file(root, "sec/escape.md")
    with pytest.raises(PathRejected, match="outside"):
        resolve_file(root, "linkdir/x.md")
    assert resolve_file(root, "sec/alias.md")[1] == (root / "sec" / "page.md").resolve()


def test_missing_directories_and_loops(root: Path) -> None:
    with pytest.raises(PathRejected, match="no file"):
        resolve_file(root, "sec/none.md")
    with pytest.raises(PathRejected, match="directory"):
        resolve_file(root, "sec")
    with pytest.raises(PathRejected):
        resolve_file(root, "loop.md")
