"""Download, install layout, backup/restore and publish against a release server on 127.0.0.1."""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import threading
from pathlib import Path
from typing import Any

import pytest
import zstandard

from atlas_core.distribution.archive import pack, unpack
from atlas_core.distribution.download import InstallReport, download_release
from atlas_core.distribution.install import BACKUPS, current_target, install_lock
from atlas_core.errors import AtlasError, DistributionError
from tests.release_server import ReleaseServer

REPO = "acme/docs"


def _assets(name: str, data: bytes, *, checksum: bytes | None = None) -> dict[str, bytes]:
    digest = hashlib.sha256(checksum if checksum is not None else data).hexdigest()
    return {name: data, f"{name}.sha256": f"{digest}  {name}\n".encode()}


def _install(server: ReleaseServer, root: Path, **kwargs: Any) -> InstallReport:
    return download_release(
        REPO, output=root, api_url=server.api_url, token=None, progress=False, **kwargs
    )


def _atlas(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "atlas_ls.cli", *args],
        capture_output=True, text=True, timeout=300, env={**os.environ, **(env or {})},
    )  # fmt: skip


def _manifest_name(root: Path) -> str:
    target = current_target(root)
    assert target is not None
    return (target / "mirror" / "guide" / "assets.md").read_text().splitlines()[0]


def test_download_installs_then_updates_with_backup(
    server: ReleaseServer, archives: dict[str, bytes], tmp_path: Path
) -> None:
    root = tmp_path / "install"
    server.add_release("v1", _assets("atlas-bundle-v1.tar.zst", archives["v1"]))
    result = _atlas("download", "--repo", REPO, "--output", str(root), "--api-url", server.api_url)
    assert result.returncode == 0, result.stderr
    assert "sha256" in result.stdout and "verified" in result.stdout
    # stderr is a pipe here: progress comes as whole lines, never a bar's redraws.
    assert "\r" not in result.stderr and "atlas-bundle-v1.tar.zst: " in result.stderr
    assert "bytes (" in result.stderr or "done in" in result.stderr
    assert (root / "current").is_symlink()
    assert _manifest_name(root) == "# Assets v1"

    server.add_release("v2", _assets("atlas-bundle-v2.tar.zst", archives["v2"]))
    report = _install(server, root)
    assert report.tag == "v2" and _manifest_name(root) == "# Assets v2"
    assert report.backup is not None and report.backup.parent == root / BACKUPS
    assert json.loads(report.backup.with_name(report.backup.name + ".json").read_text())["chunks"]

    # Undo: restore the snapshot of v1; what it replaces (v2) is snapshotted in turn.
    restored = _atlas("restore", "--snapshot", str(report.backup), "--target", str(root))
    assert restored.returncode == 0, restored.stderr
    assert _manifest_name(root) == "# Assets v1"
    listed = _atlas("restore", "--list", "--target", str(root))
    assert listed.stdout.count(".tar.zst") == 2


def test_install_by_tag_and_unknown_tag(
    server: ReleaseServer, archives: dict[str, bytes], tmp_path: Path
) -> None:
    server.add_release("v1", _assets("atlas-bundle-v1.tar.zst", archives["v1"]))
    server.add_release("v2", _assets("atlas-bundle-v2.tar.zst", archives["v2"]))
    root = tmp_path / "install"
    assert _install(server, root, tag="v1").tag == "v1"
    result = _atlas("download", "--repo", REPO, "--tag", "v9", "--output", str(root),
                    "--api-url", server.api_url)  # fmt: skip
    assert result.returncode == 2
    assert "no release tag 'v9'" in result.stderr and "hint:" in result.stderr
    assert _manifest_name(root) == "# Assets v1"


def test_dropped_connection_resumes_with_range(
    server: ReleaseServer, archives: dict[str, bytes], tmp_path: Path
) -> None:
    name = "atlas-bundle-v1.tar.zst"
    server.add_release("v1", _assets(name, archives["v1"]))
    server.drop_after[name] = len(archives["v1"]) // 2
    report = _install(server, tmp_path / "install")
    assert server.range_requests == [f"bytes={len(archives['v1']) // 2}-"]
    assert report.sha256 == hashlib.sha256(archives["v1"]).hexdigest()
    assert _manifest_name(tmp_path / "install") == "# Assets v1"


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("checksum", "SHA-256 mismatch"),
        ("truncated", "stopped early"),
        ("rate_limit", "rate limit reached; it resets at"),
        ("traversal", "contains '..'"),
        ("absolute", "absolute path"),
        ("symlink", "is a link"),
        ("bad_bundle", "failed verification"),
        ("disk", "not enough free disk space"),
        ("no_checksum", "no SHA-256"),
    ],
)
def test_faults_leave_the_installed_bundle_serving(
    fault: str, message: str, server: ReleaseServer, archives: dict[str, bytes],
    bundles: dict[str, Path], tmp_path: Path,
) -> None:  # fmt: skip
    root = tmp_path / "install"
    server.add_release("v1", _assets("atlas-bundle-v1.tar.zst", archives["v1"]))
    _install(server, root)
    before = current_target(root)
    name = "atlas-bundle-v2.tar.zst"
    data = archives["v2"]
    kwargs: dict[str, object] = {}
    if fault == "checksum":
        assets = _assets(name, data, checksum=b"something else")
    elif fault == "truncated":
        assets = _assets(name, data)
        server.truncate_to[name] = len(data) - 100
    elif fault in ("traversal", "absolute", "symlink"):
        data = _evil_archive(fault)
        assets = _assets(name, data)
    elif fault == "bad_bundle":
        data = _corrupted_archive(bundles["v2"], tmp_path)
        assets = _assets(name, data)
    elif fault == "no_checksum":
        assets = {name: data}
    else:
        assets = _assets(name, data)
    server.add_release("v2", assets)
    if fault == "rate_limit":
        server.rate_limited = True
    if fault == "disk":
        kwargs["disk_free"] = lambda _path: 1024
    with pytest.raises(AtlasError, match=message) as info:
        _install(server, root, **kwargs)
    assert info.value.hint
    # A transfer cut short is a network failure (exit 3: run it again); the rest are refusals.
    assert info.value.exit_code == (3 if fault == "truncated" else 2)
    assert current_target(root) == before
    assert _manifest_name(root) == "# Assets v1"
    assert not list((root / "releases").glob(".incoming-*"))
    assert not (tmp_path / "etc").exists() and not Path("/tmp/atlas-evil").exists()


def test_two_installs_at_once_are_refused(
    server: ReleaseServer, archives: dict[str, bytes], tmp_path: Path
) -> None:
    root = tmp_path / "install"
    server.add_release("v1", _assets("atlas-bundle-v1.tar.zst", archives["v1"]))
    held = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with install_lock(root):
            held.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    held.wait(5)
    try:
        result = _atlas(
            "download", "--repo", REPO, "--output", str(root), "--api-url", server.api_url
        )
        assert result.returncode == 2
        assert "another install" in result.stderr
    finally:
        release.set()
        thread.join()
    assert current_target(root) is None


def test_publish_dry_run_output_is_accepted_by_download(
    server: ReleaseServer, bundles: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    result = _atlas("publish", "--bundle", str(bundles["v2"]), "--repo", REPO, "--tag", "v2026.11",
                    "--dry-run", "--out", str(out))  # fmt: skip
    assert result.returncode == 0, result.stderr
    files = sorted(p.name for p in out.iterdir())
    assert files == ["atlas-bundle-v2026.11.tar.zst", "atlas-bundle-v2026.11.tar.zst.sha256"]
    server.add_release("v2026.11", {name: (out / name).read_bytes() for name in files})
    report = _install(server, tmp_path / "install")
    assert report.tag == "v2026.11" and _manifest_name(tmp_path / "install") == "# Assets v2"


def test_publish_through_the_rest_api(
    server: ReleaseServer, bundles: dict[str, Path], tmp_path: Path
) -> None:
    args = ["publish", "--bundle", str(bundles["v1"]), "--repo", REPO, "--tag", "v1.0", "--api",
            "--out", str(tmp_path / "out"), "--api-url", server.api_url]  # fmt: skip
    refused = _atlas(*args, env={"GITHUB_TOKEN": "", "GH_TOKEN": ""})
    assert refused.returncode == 2 and "needs a token" in refused.stderr
    result = _atlas(*args, env={"GITHUB_TOKEN": "secret"})
    assert result.returncode == 0, result.stderr
    spec = server.releases["v1.0"]
    assert set(spec.uploaded) == {"atlas-bundle-v1.0.tar.zst", "atlas-bundle-v1.0.tar.zst.sha256"}
    assert "Documents:" in spec.body and "local:" in spec.body
    report = _install(server, tmp_path / "install")
    assert report.tag == "v1.0"


def test_backup_and_restore_a_plain_bundle_folder(bundles: dict[str, Path], tmp_path: Path) -> None:
    import shutil

    target = tmp_path / "bundle"
    shutil.copytree(bundles["v1"], target)
    backups = tmp_path / "snaps"
    made = _atlas("backup", "--bundle", str(target), "--backup-dir", str(backups))
    assert made.returncode == 0, made.stderr
    snap = next(backups.glob("*.tar.zst"))
    shutil.rmtree(target)
    shutil.copytree(bundles["v2"], target)
    restored = _atlas("restore", "--snapshot", str(snap), "--target", str(target),
                      "--backup-dir", str(backups))  # fmt: skip
    assert restored.returncode == 0, restored.stderr
    assert (target / "mirror/guide/assets.md").read_text().startswith("# Assets v1")
    assert len(list(backups.glob("*.tar.zst"))) == 2  # the replaced v2 was snapshotted

    (snap.with_name(snap.name + ".sha256")).write_text("0" * 64 + f"  {snap.name}\n")
    damaged = _atlas("restore", "--snapshot", str(snap), "--target", str(target))
    assert damaged.returncode == 2 and "does not match" in damaged.stderr


def test_unpack_refuses_oversized_archives(archives: dict[str, bytes], tmp_path: Path) -> None:
    archive = tmp_path / "a.tar.zst"
    archive.write_bytes(archives["v1"])
    with pytest.raises(DistributionError, match="unpacks to more than"):
        unpack(archive, tmp_path / "x", max_bytes=100)
    assert not (tmp_path / "x").exists()


def _evil_archive(kind: str) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        payload = b"pwned\n"
        if kind == "symlink":
            info = tarfile.TarInfo("atlas-bundle/manifest.json")
            info.type = tarfile.SYMTYPE
            info.linkname = "/etc/passwd"
            tar.addfile(info)
        else:
            name = "atlas-bundle/../../etc/evil" if kind == "traversal" else "/tmp/atlas-evil"
            info = tarfile.TarInfo(name)
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))
    return zstandard.ZstdCompressor().compress(buffer.getvalue())


def _corrupted_archive(bundle: Path, tmp_path: Path) -> bytes:
    import shutil

    copy = tmp_path / "corrupt-bundle"
    shutil.copytree(bundle, copy)
    vectors = copy / "vectors.npy"
    raw = bytearray(vectors.read_bytes())
    raw[-1] ^= 0xFF
    vectors.write_bytes(bytes(raw))
    return pack(copy, tmp_path / "corrupt.tar.zst", top="atlas-bundle").read_bytes()


def test_publish_script_wraps_verify_and_publish(bundles: dict[str, Path], tmp_path: Path) -> None:
    script = Path(__file__).resolve().parents[2] / "scripts" / "publish-bundle.sh"
    env = {**os.environ, "ATLAS": f"{sys.executable} -m atlas_ls.cli", "OUT_DIR": str(tmp_path)}
    result = subprocess.run(
        ["bash", str(script), str(bundles["v1"]), REPO, "v3.0", "--dry-run"],
        capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("OK")
    assert (tmp_path / "atlas-bundle-v3.0.tar.zst.sha256").is_file()


def test_download_mirror_installs_a_docs_mirror(server: ReleaseServer, tmp_path: Path) -> None:
    mirror = tmp_path / "mirror"
    (mirror / "markdown" / "guide").mkdir(parents=True)
    (mirror / "markdown" / "guide" / "a.md").write_text("---\ntitle: A\n---\n\n# A\n")
    (mirror / "crawl_meta.json").write_text('{"sections": {}}\n')
    name = "atlas-mirror-v1.tar.zst"
    data = pack(mirror, tmp_path / name, top="atlas-mirror-v1").read_bytes()
    bundle_assets = {"atlas-bundle-v1.tar.zst": b"not this one"}
    server.add_release("v1", {**_assets(name, data), **bundle_assets})
    root = tmp_path / "install"
    report = _install(server, root, mirror=True)
    assert report.asset == name
    assert (root / "current" / "markdown" / "guide" / "a.md").is_file()

    server.add_release("v2", _assets("atlas-mirror-v2.tar.zst", b"\x28\xb5\x2f\xfd garbage"))
    with pytest.raises(DistributionError):
        _install(server, root, mirror=True)
    assert (root / "current" / "markdown" / "guide" / "a.md").is_file()


def test_publish_uses_the_gh_cli_when_present(bundles: dict[str, Path], tmp_path: Path) -> None:
    # A stand-in for gh: the real one talks only to GitHub, which these machines cannot reach.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "gh-calls.txt"
    fake = bin_dir / "gh"
    fake.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {calls}\necho https://example.invalid/r\n')
    fake.chmod(0o755)
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "GITHUB_TOKEN": ""}
    result = _atlas("publish", "--bundle", str(bundles["v1"]), "--repo", REPO, "--tag", "v5",
                    "--out", str(tmp_path / "out"), env=env)  # fmt: skip
    assert result.returncode == 0, result.stderr
    args = calls.read_text().splitlines()
    assert args[:3] == ["release", "create", "v5"]
    assert args[3].endswith("atlas-bundle-v5.tar.zst") and args[4].endswith(".sha256")
    assert args[5:7] == ["--repo", REPO] and "--notes-file" in args
    assert "via gh" in result.stdout
