"""`atlas install PATH`: a bundle folder or archive made current, verified, backed up and swapped
atomically; a bad source refused by name, the bundle untouched. A running server picking up what
`atlas install` put in place is tested with the other hot reloads, in tests/mcp/test_reload.py."""

from __future__ import annotations

import hashlib
import io
import shutil
import tarfile
from pathlib import Path

import pytest
import zstandard

from atlas_core.distribution.install import BACKUPS, current_target
from atlas_core.distribution.local import install_path
from atlas_core.errors import DistributionError
from atlas_ls.cli import main


def _heading(root: Path) -> str:
    target = current_target(root)
    assert target is not None
    return (target / "mirror" / "guide" / "assets.md").read_text().splitlines()[0]


def _with_checksum(archive: Path, data: bytes) -> Path:
    archive.write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    archive.with_name(archive.name + ".sha256").write_text(f"{digest}  {archive.name}\n")
    return archive


def _tar_gz(folder: Path, archive: Path, top: str) -> Path:
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname=top)
    return archive


def test_install_a_folder_a_tar_zst_and_a_tar_gz(
    bundles: dict[str, Path],
    archives: dict[str, bytes],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = tmp_path / "data"  # the default install root: what servers open with no --bundle
    monkeypatch.setenv("ATLAS_DATA_DIR", str(data))
    assert main(["install", str(bundles["v2"])]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"installed {bundles['v2']} (folder; every file verified)"
    assert lines[1].startswith(f"  {data / 'current'} -> {data / 'releases'}")
    assert _heading(data) == "# Assets v2"
    installed = current_target(data)
    assert installed is not None and not any(p.is_symlink() for p in installed.rglob("*"))
    assert "note:" not in "\n".join(lines)
    # A bundle named by ATLAS_BUNDLE wins over the installed one: the install says so.
    monkeypatch.setenv("ATLAS_BUNDLE", str(bundles["v1"]))
    assert main(["install", str(bundles["v2"])]) == 0
    assert f"servers and searches open {bundles['v1']}, not this install" in capsys.readouterr().out
    monkeypatch.delenv("ATLAS_BUNDLE")

    root = tmp_path / "install"
    install_path(bundles["v2"], root)

    bare = tmp_path / "atlas-bundle-v1.tar.zst"  # no .sha256 beside it: the bundle's own hashes
    bare.write_bytes(archives["v1"])
    assert install_path(bare, root).checksum == "" and _heading(root) == "# Assets v1"

    gz = _tar_gz(bundles["v2"], tmp_path / "atlas-bundle-v2.tar.gz", "atlas-bundle-v2")
    _with_checksum(gz, gz.read_bytes())
    report = install_path(gz, root)
    assert report.checksum == hashlib.sha256(gz.read_bytes()).hexdigest()
    assert len(list((root / BACKUPS).glob("*.tar.zst"))) == 2  # v2, then v1, each snapshotted
    assert _heading(root) == "# Assets v2" and report.backup is not None
    assert report.previous is not None and report.previous.name.startswith("atlas-bundle-v1")


def _evil_tar(tmp_path: Path) -> Path:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        info = tarfile.TarInfo("atlas-bundle/../../escaped.md")
        info.size = 6
        tar.addfile(info, io.BytesIO(b"pwned\n"))
    path = tmp_path / "evil.tar.zst"
    path.write_bytes(zstandard.ZstdCompressor().compress(buffer.getvalue()))
    return path


def _bad_source(kind: str, bundle: Path, archive: bytes, tmp_path: Path) -> tuple[Path, str]:
    """A source that must be refused, and the text that names what is wrong with it (or texts,
    joined by " | ", any of which may)."""
    copy = tmp_path / "copy"
    if kind in ("corrupt folder", "partial folder", "link in folder"):
        shutil.copytree(bundle, copy)
    if kind == "missing":
        return tmp_path / "nothing-here", "nothing-here does not exist"
    if kind == "foreign folder":
        (tmp_path / "notes").mkdir()
        (tmp_path / "notes" / "a.md").write_text("# Notes\n")
        return tmp_path / "notes", f"is not an Atlas bundle: {tmp_path / 'notes' / 'manifest.json'}"
    if kind == "corrupt folder":
        vectors = copy / "vectors.npy"
        raw = bytearray(vectors.read_bytes())
        raw[-1] ^= 0xFF
        vectors.write_bytes(bytes(raw))
        return copy, "failed verification: vectors.npy"
    if kind == "partial folder":
        (copy / "vectors.npy").unlink()
        return copy, "failed verification: vectors.npy"
    if kind == "link in folder":
        (copy / "mirror" / "leak.md").symlink_to("/etc/hostname")
        return copy, f"{copy / 'mirror' / 'leak.md'} is a symbolic link"
    if kind == "corrupt archive":
        path = tmp_path / "b.tar.zst"
        path.write_bytes(b"\x28\xb5\x2f\xfd" + bytes(range(256)) * 8)
        return path, "b.tar.zst is not a readable .tar.zst or .tar.gz archive"
    if kind == "partial archive":
        path = tmp_path / "b.tar.zst"
        path.write_bytes(archive[: len(archive) // 2])
        # Cut inside a member (the usual case) or, by chance, between two: either way it is named.
        return path, "b.tar.zst is not a readable | b.tar.zst failed verification"
    if kind == "checksum mismatch":
        path = tmp_path / "b.tar.zst"
        path.write_bytes(archive)
        (tmp_path / "b.tar.zst.sha256").write_text("0" * 64 + "  b.tar.zst\n")
        return path, "does not match b.tar.zst.sha256"
    if kind == "foreign archive":
        (tmp_path / "notes").mkdir()
        (tmp_path / "notes" / "a.md").write_text("# Notes\n")
        return _tar_gz(tmp_path / "notes", tmp_path / "notes.tar.gz", "notes"), (
            "notes.tar.gz failed verification: manifest.json"
        )
    assert kind == "dot-dot tar"
    return _evil_tar(tmp_path), "refusing evil.tar.zst: entry 'atlas-bundle/../../escaped.md'"


@pytest.mark.parametrize(
    "kind",
    [
        "missing", "foreign folder", "corrupt folder", "partial folder", "link in folder",
        "corrupt archive", "partial archive", "checksum mismatch", "foreign archive",
        "dot-dot tar",
    ],
)  # fmt: skip
def test_a_bad_source_is_refused_by_name_and_nothing_changes(
    kind: str, bundles: dict[str, Path], archives: dict[str, bytes], tmp_path: Path
) -> None:
    root = tmp_path / "install"
    install_path(bundles["v1"], root)
    before = current_target(root)
    source, needle = _bad_source(kind, bundles["v2"], archives["v2"], tmp_path)
    with pytest.raises(DistributionError) as info:
        install_path(source, root)
    assert any(text in info.value.message for text in needle.split(" | ")), info.value.message
    assert info.value.hint and "\n" not in info.value.one_line()
    assert current_target(root) == before and _heading(root) == "# Assets v1"
    assert not list((root / "releases").glob(".incoming-*"))
    assert not (root / BACKUPS).exists()  # nothing was replaced, so nothing was snapshotted
    assert not (tmp_path.parent / "escaped.md").exists() and not (root / "escaped.md").exists()
