"""Hostile releases against `atlas download` / `publish` / `restore` (issue 10, items 1, 2, 7, 4).

Each attack is served by a real HTTP server on 127.0.0.1 (`tests/release_server.py`) and, for the
headline cases, driven through the CLI as a subprocess. A refusal must be one line plus a hint,
leave nothing outside `--output`, no `.part` behind and `current` where it was.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import zstandard

from atlas_core.distribution import download as download_module
from atlas_core.distribution.archive import pack, unpack
from atlas_core.distribution.download import download_release
from atlas_core.distribution.install import BACKUPS, RELEASES, current_target, flip_current
from atlas_core.errors import DistributionError
from tests.release_server import ReleaseServer

REPO = "acme/docs"
TOKEN = "ghp-secret-token-1234567890"
OLD = "atlas-bundle-v1.tar.zst"
NEW = "atlas-bundle-v2.tar.zst"
MiB = 1024**2


# -- fixtures and helpers --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def archive(hash_bundle: Path, tmp_path_factory: pytest.TempPathFactory) -> bytes:
    out = tmp_path_factory.mktemp("adv-dist")
    return pack(hash_bundle, out / NEW, top="atlas-bundle").read_bytes()


@pytest.fixture()
def server() -> Iterator[ReleaseServer]:
    srv = ReleaseServer().start()
    yield srv
    srv.stop()


@pytest.fixture()
def storage() -> Iterator[ReleaseServer]:
    """A second host (another port) standing in for GitHub's asset storage."""
    srv = ReleaseServer().start()
    yield srv
    srv.stop()


@pytest.fixture()
def output(server: ReleaseServer, archive: bytes, tmp_path: Path) -> Path:
    """An install root with v1 installed, so every refusal can be checked to leave it serving."""
    root = tmp_path / "install"
    server.add_release("v1", _assets(OLD, archive))
    download_release(REPO, output=root, api_url=server.api_url, token=None, progress=False)
    assert current_target(root) is not None
    return root


def _assets(name: str, data: bytes, *, listed_as: str | None = None) -> dict[str, bytes]:
    digest = hashlib.sha256(data).hexdigest()
    return {name: data, f"{name}.sha256": f"{digest}  {listed_as or name}\n".encode()}


def _atlas(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "atlas_ls.cli", *args],
        capture_output=True, text=True, timeout=300, env={**os.environ, **(env or {})},
    )  # fmt: skip


# Runs the CLI and records how many bytes the process wrote (/proc/self/io `wchar`, every write()
# call: files, pipes, all threads), so a test can bound what a bomb cost without timing anything.
_MEASURED = (
    "import atexit, sys\n"
    "report = sys.argv.pop(1)\n"
    "def _io():\n"
    "    text = open('/proc/self/io').read()\n"
    "    open(report, 'w').write(text)\n"
    "atexit.register(_io)\n"
    "from atlas_ls.cli import main\n"
    "sys.exit(main())\n"
)


def _atlas_measured(report: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], int]:
    if not Path("/proc/self/io").is_file():
        pytest.skip("needs Linux /proc/self/io to count the bytes a process writes")
    result = subprocess.run(
        [sys.executable, "-c", _MEASURED, str(report), *args],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    fields = dict(line.split(": ") for line in report.read_text().splitlines())
    return result, int(fields["wchar"])


def _download_args(server: ReleaseServer, output: Path, *extra: str) -> list[str]:
    # No progress lines: stderr is then the refusal alone, which these tests read.
    return ["download", "--repo", REPO, "--output", str(output), "--api-url", server.api_url,
            "--no-progress", *extra]  # fmt: skip


def _assert_one_line_refusal(result: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert lines[0].startswith("atlas: error: "), result.stderr
    assert len(lines) == 2 and lines[1].startswith("  hint: "), result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


def _tree(top: Path, *, skip: Path | None = None) -> set[str]:
    """Every path under `top` (files, folders, links), leaving out `skip` and what it holds."""
    found = set()
    for dirpath, dirnames, filenames in os.walk(top):
        here = Path(dirpath)
        dirnames[:] = [n for n in dirnames if here / n != skip]
        found.update(str((here / n).relative_to(top)) for n in dirnames + filenames)
    return found


def _rename(mapping: dict[str, str]) -> Callable[[dict[str, Any]], Any]:
    """A release-answer edit that renames assets (their download URLs stay what they were)."""

    def edit(release: dict[str, Any]) -> Any:
        for asset in release["assets"]:
            asset["name"] = mapping.get(asset["name"], asset["name"])
        return release

    return edit


# -- item 1: names from the release and the manifest never escape the install root ---------------


def test_asset_name_with_dot_dot_is_refused_and_writes_nothing_outside(
    server: ReleaseServer, archive: bytes, output: Path, tmp_path: Path
) -> None:
    evil = "../../x/atlas-bundle-v2.tar.zst"
    # The checksum file names the evil path too, so the download would verify and install.
    server.add_release("v2", _assets(NEW, archive, listed_as=evil))
    server.mutate = _rename({NEW: evil, f"{NEW}.sha256": f"{evil}.sha256"})
    outside, before = _tree(tmp_path, skip=output), current_target(output)

    result = _atlas(*_download_args(server, output))

    _assert_one_line_refusal(result, repr(evil), "path separator", "assets[")
    assert _tree(tmp_path, skip=output) == outside
    assert not list(output.rglob("*.part"))
    assert current_target(output) == before


def test_checksum_asset_name_and_tag_are_checked_too(
    server: ReleaseServer, archive: bytes, output: Path, tmp_path: Path
) -> None:
    outside, before = _tree(tmp_path, skip=output), current_target(output)
    server.add_release("v2", _assets(NEW, archive))
    server.mutate = _rename({f"{NEW}.sha256": f"../{NEW}.sha256"})
    result = _atlas(*_download_args(server, output))
    _assert_one_line_refusal(result, f"'../{NEW}.sha256'")

    def evil_tag(release: dict[str, Any]) -> Any:
        return release | {"tag_name": "../../x"}

    server.mutate = evil_tag
    result = _atlas(*_download_args(server, output))
    _assert_one_line_refusal(result, "the release tag '../../x'")
    assert _tree(tmp_path, skip=output) == outside
    assert not list(output.rglob("*.part"))
    assert current_target(output) == before


def _install_with_manifest_name(hash_bundle: Path, root: Path, name: str) -> Path:
    """Install a bundle whose manifest `name` is `name` the way an older Atlas would have.

    It goes straight into the layout (not through `atlas download`), because `verify` now refuses
    such a manifest; what is tested is that a later download copes with one already installed.
    """
    folder = root / RELEASES / "atlas-bundle-v1-20250101T000000"
    shutil.copytree(hash_bundle, folder)
    manifest_path = folder / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["name"] = name
    manifest_path.write_text(json.dumps(manifest, indent=2))
    flip_current(root, folder)
    return folder


@pytest.mark.parametrize("kind", ["escape", "nested", "dot-dot", "too-long"])
def test_manifest_name_never_places_the_snapshot(
    kind: str, server: ReleaseServer, archive: bytes, hash_bundle: Path, tmp_path: Path
) -> None:
    root = tmp_path / "install"
    (tmp_path / "outside").mkdir()
    escape = os.path.relpath(tmp_path / "outside", root / BACKUPS) + "/PWN"
    name = {"escape": escape, "nested": "a/b", "dot-dot": "..", "too-long": "n" * 300}[kind]
    installed = _install_with_manifest_name(hash_bundle, root, name)
    outside = _tree(tmp_path, skip=root)
    server.add_release("v2", _assets(NEW, archive))

    result = _atlas(*_download_args(server, root))

    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert _tree(tmp_path, skip=root) == outside
    snapshots = list((root / BACKUPS).glob("*.tar.zst"))
    assert [s.name.startswith(installed.name) for s in snapshots] == [True]
    assert current_target(root) != installed.resolve()
    # Restoring it is installed or refused by `verify` (which refuses such a manifest), but it
    # never writes outside either.
    undo = _atlas("restore", "--snapshot", str(snapshots[0]), "--target", str(root))
    assert undo.returncode in (0, 2) and "Traceback" not in undo.stderr, undo.stderr
    assert _tree(tmp_path, skip=root) == outside


def test_restore_list_survives_damaged_snapshot_summaries(tmp_path: Path) -> None:
    backups = tmp_path / "snaps"
    backups.mkdir()
    for name, meta in [("a", b"[1, 2]"), ("b", b"\xff\xfe not utf-8"), ("c", b'"text"')]:
        (backups / f"{name}.tar.zst").write_bytes(b"x")
        (backups / f"{name}.tar.zst.json").write_bytes(meta)
    result = _atlas("restore", "--list", "--backup-dir", str(backups))
    assert result.returncode == 0, result.stderr
    assert result.stdout.count(".tar.zst") == 3


def test_restore_with_an_empty_checksum_sidecar_is_one_line(archive: bytes, tmp_path: Path) -> None:
    snap = tmp_path / "snap.tar.zst"
    snap.write_bytes(archive)
    (tmp_path / "snap.tar.zst.sha256").write_bytes(b"")
    result = _atlas("restore", "--snapshot", str(snap), "--target", str(tmp_path / "install"))
    _assert_one_line_refusal(result, "does not match")


# -- item 2: GITHUB_TOKEN goes to the API host only -------------------------------------------


def _leaks(srv: ReleaseServer) -> list[str]:
    return [
        f"{path} {headers}"
        for path, headers in srv.seen
        if "Authorization" in headers or TOKEN in path or TOKEN in str(headers)
    ]


def test_token_is_not_forwarded_to_a_redirected_host(
    server: ReleaseServer, storage: ReleaseServer, archive: bytes, tmp_path: Path
) -> None:
    assets = _assets(NEW, archive)
    server.add_release("v2", assets)
    storage.add_release("v2", assets)
    # The archive and its checksum live on the API host and redirect to storage, like GitHub's
    # assets; the archive's first transfer drops half way, so the resume goes the same way.
    for name in assets:
        server.redirects[f"/download/v2/{name}"] = f"http://127.0.0.1:{storage.port}"
    storage.drop_after[NEW] = len(archive) // 2
    root = tmp_path / "install"

    result = _atlas(*_download_args(server, root), env={"GITHUB_TOKEN": TOKEN})

    assert result.returncode == 0, result.stderr
    assert f"Bearer {TOKEN}" in server.auth_headers  # the API host did get it
    fetched = [path for path, _ in storage.seen]
    assert f"/download/v2/{NEW}" in fetched and f"/download/v2/{NEW}.sha256" in fetched
    assert storage.range_requests == [f"bytes={len(archive) // 2}-"]
    assert _leaks(storage) == []
    assert current_target(root) is not None


def test_publish_upload_redirect_does_not_carry_the_token(
    server: ReleaseServer, storage: ReleaseServer, hash_bundle: Path, tmp_path: Path
) -> None:
    server.redirects["/uploads/v1.0"] = f"http://127.0.0.1:{storage.port}"
    result = _atlas(
        "publish", "--bundle", str(hash_bundle), "--repo", REPO, "--tag", "v1.0", "--api",
        "--out", str(tmp_path / "out"), "--api-url", server.api_url,
        env={"GITHUB_TOKEN": TOKEN},
    )  # fmt: skip
    # urllib turns the redirected POST into a GET, which storage refuses: one line, no token.
    _assert_one_line_refusal(result)
    assert [path for path, _ in storage.seen] == ["/uploads/v1.0?name=atlas-bundle-v1.0.tar.zst"]
    assert _leaks(storage) == []


# -- item 7: cheap inputs cannot cost gigabytes -------------------------------------------------


class _Zeros(io.RawIOBase):
    """`size` zero bytes, produced as they are read, so a bomb costs the test no memory."""

    def __init__(self, size: int) -> None:
        self.left = size

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        n = self.left if n < 0 else min(n, self.left)
        self.left -= n
        return bytes(n)


def _bomb(path: Path, members: list[tuple[str, int]], files: dict[str, int] | None = None) -> bytes:
    """A .tar.zst of zero-filled members, with a manifest declaring `files` first when given."""
    with (
        path.open("wb") as raw,
        zstandard.ZstdCompressor(level=3).stream_writer(raw, closefd=False) as zfh,
        tarfile.open(fileobj=zfh, mode="w|", format=tarfile.PAX_FORMAT) as tar,
    ):
        if files is not None:
            declared = {n: {"size": s, "sha256": "0" * 64} for n, s in files.items()}
            manifest = json.dumps({"name": "bomb", "files": declared}).encode()
            info = tarfile.TarInfo("atlas-bundle/manifest.json")
            info.size = len(manifest)
            tar.addfile(info, io.BytesIO(manifest))
        for name, size in members:
            info = tarfile.TarInfo(f"atlas-bundle/{name}")
            info.size = size
            tar.addfile(info, _Zeros(size))
    return path.read_bytes()


BOMBS = {
    # kind: (members, manifest files, message, most bytes the refused command may write)
    "one-member": ([("aaa.bin", 200 * MiB)], None, "unpacks to more than", 1 * MiB),
    "many-members": (
        [(f"part{i:03}.bin", MiB) for i in range(200)],
        None,
        "unpacks to more than",
        10 * MiB,
    ),
    "larger-than-declared": (
        [("aaa.bin", 6 * MiB)],
        {"aaa.bin": 1000},
        "but the manifest declares 1000",
        1 * MiB,
    ),
    "more-than-declared": (
        [("a.bin", 1000), ("b.bin", 6 * MiB)],
        {"a.bin": 1000},
        "its manifest declares",
        1 * MiB,
    ),
}


@pytest.mark.parametrize("kind", list(BOMBS))
def test_zstd_bomb_is_refused_before_it_fills_the_disk(
    kind: str, server: ReleaseServer, output: Path, tmp_path: Path
) -> None:
    members, files, message, most = BOMBS[kind]
    data = _bomb(tmp_path / "bomb.tar.zst", members, files)
    assert len(data) < 256 * 1024  # cheap to send
    server.add_release("v2", _assets(NEW, data))
    before = current_target(output)

    result, written = _atlas_measured(tmp_path / "io.txt", *_download_args(server, output))

    assert written < most, f"the refused download wrote {written} bytes"
    _assert_one_line_refusal(result, message)
    assert current_target(output) == before
    assert not list(output.rglob("*.part"))
    assert not list((output / RELEASES).glob(".incoming-*"))


def test_oversized_tar_header_is_refused(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        info = tarfile.TarInfo("atlas-bundle/a.md")
        info.pax_headers = {"comment": "x" * (2 * MiB)}  # tarfile reads a pax header whole
        tar.addfile(info, io.BytesIO(b""))
    archive = tmp_path / "a.tar.zst"
    archive.write_bytes(zstandard.ZstdCompressor().compress(buffer.getvalue()))
    with pytest.raises(DistributionError, match="tar header holds"):
        unpack(archive, tmp_path / "x")
    assert not (tmp_path / "x").exists()


def _plain_archive(path: Path, names: list[str]) -> Path:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name in names:
            info = tarfile.TarInfo(name)
            info.size = 2
            tar.addfile(info, io.BytesIO(b"ok"))
    path.write_bytes(zstandard.ZstdCompressor().compress(buffer.getvalue()))
    return path


@pytest.mark.parametrize(
    ("names", "needle"),
    [
        # Found by benchmarks/fuzz.py (archive class): an OSError escaped halfway through.
        (["atlas-bundle/" + "n" * 300 + ".md"], "longer than 255 bytes"),
        (["atlas-bundle/" + "d/" * 2100 + "a.md"], "longer than 4096 bytes"),
        (["atlas-bundle/a\nb.md"], "forbidden character"),
        (["atlas-bundle/a\rb.md"], "forbidden character"),
        # A repeated entry is named once, relative and quoted: one line, whatever the name holds.
        (["atlas-bundle/a.md", "atlas-bundle/a.md"], "'atlas-bundle/a.md' appears twice"),
    ],
    ids=["long segment", "long path", "newline", "carriage return", "duplicate"],
)
def test_odd_entry_names_are_one_line_refusals(
    tmp_path: Path, names: list[str], needle: str
) -> None:
    archive = _plain_archive(tmp_path / "a.tar.zst", names)
    with pytest.raises(DistributionError) as caught:
        unpack(archive, tmp_path / "x")
    assert needle in caught.value.message
    assert "\n" not in caught.value.one_line()
    assert not (tmp_path / "x").exists()


def test_pack_writes_the_manifest_first(hash_bundle: Path, tmp_path: Path) -> None:
    archive = pack(hash_bundle, tmp_path / "b.tar.zst", top="b")
    with (
        archive.open("rb") as raw,
        zstandard.ZstdDecompressor().stream_reader(raw) as zfh,
        tarfile.open(fileobj=zfh, mode="r|") as tar,
    ):
        names = [m.name for m in tar]
    assert names[0] == "b/manifest.json" and "b/manifest.json" not in names[1:]
    assert (unpack(archive, tmp_path / "u") / "manifest.json").is_file()


@pytest.mark.parametrize("with_length", [False, True], ids=["chunked", "content-length"])
def test_download_stops_at_the_declared_size(
    with_length: bool, server: ReleaseServer, archive: bytes, output: Path, tmp_path: Path
) -> None:
    server.add_release("v2", _assets(NEW, archive))
    server.overflow[NEW] = 50 * MiB  # the release declares len(archive)
    server.overflow_length = with_length
    before = current_target(output)

    result, written = _atlas_measured(tmp_path / "io.txt", *_download_args(server, output))

    assert written < len(archive) + MiB, f"the refused download wrote {written} bytes"
    _assert_one_line_refusal(result, f"sent more of {NEW} than the {len(archive)} bytes")
    assert not list(output.rglob("*.part"))
    assert current_target(output) == before


def test_download_of_unknown_size_stops_at_the_cap(
    server: ReleaseServer, archive: bytes, output: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # In-process with a lowered cap: the real one (20 GiB) is too big to stream in a test.
    monkeypatch.setattr(download_module, "MAX_DOWNLOAD_BYTES", 4 * MiB)
    server.add_release("v2", _assets(NEW, archive))
    server.overflow[NEW] = 20 * MiB

    def no_sizes(release: dict[str, Any]) -> Any:
        for asset in release["assets"]:
            asset["size"] = None
        return release

    server.mutate = no_sizes
    before = current_target(output)
    with pytest.raises(DistributionError, match="the release gives no size"):
        download_release(REPO, output=output, api_url=server.api_url, token=None, progress=False)
    assert not list(output.rglob("*.part"))
    assert current_target(output) == before


# -- item 4: any hostile release answer is a DistributionError ----------------------------------


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], Any]:
    def edit(release: dict[str, Any]) -> Any:
        if not path:
            return value
        node: Any = release
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        return release

    return edit


def _drop(key: str) -> Callable[[dict[str, Any]], Any]:
    def edit(release: dict[str, Any]) -> Any:
        for asset in release["assets"]:
            asset.pop(key, None)
        return release

    return edit


HOSTILE = {
    "answer-is-a-list": _set((), [1, 2]),
    "answer-is-null": _set((), None),
    "assets-is-an-object": _set(("assets",), {"a": 1}),
    "assets-is-a-string": _set(("assets",), "atlas-bundle-v2.tar.zst"),
    "assets-is-a-number": _set(("assets",), 7),
    "asset-is-a-string": _set(("assets", 0), NEW),
    "asset-is-null": _set(("assets", 0), None),
    "asset-is-a-list": _set(("assets", 0), [NEW]),
    "name-missing": _drop("name"),
    "name-null": _set(("assets", 0, "name"), None),
    "name-number": _set(("assets", 0, "name"), 5),
    "name-empty": _set(("assets", 0, "name"), ""),
    "name-dot-dot": _set(("assets", 0, "name"), f"../{NEW}"),
    "name-absolute": _set(("assets", 0, "name"), f"/tmp/{NEW}"),
    "name-backslash": _set(("assets", 0, "name"), f"..\\{NEW}"),
    "name-hidden": _set(("assets", 0, "name"), f".{NEW}"),
    "name-nul": _set(("assets", 0, "name"), f"a\x00{NEW}"),
    "name-newline": _set(("assets", 0, "name"), f"a\n{NEW}"),
    "name-surrogate": _set(("assets", 0, "name"), f"\ud800{NEW}"),
    "name-too-long": _set(("assets", 0, "name"), "n" * 300 + ".tar.zst"),
    "size-negative": _set(("assets", 0, "size"), -1),
    "size-huge": _set(("assets", 0, "size"), 10**30),
    "size-string": _set(("assets", 0, "size"), "1000"),
    "size-float": _set(("assets", 0, "size"), 1.5),
    "size-bool": _set(("assets", 0, "size"), True),
    "size-list": _set(("assets", 0, "size"), [1]),
    "url-missing": _drop("browser_download_url"),
    "url-number": _set(("assets", 0, "browser_download_url"), 5),
    "url-file": _set(("assets", 0, "browser_download_url"), "file:///etc/passwd"),
    "checksum-url-file": _set(("assets", 1, "browser_download_url"), "file:///etc/hostname"),
    "url-ftp": _set(("assets", 0, "browser_download_url"), "ftp://127.0.0.1/x"),
    "url-bad-ipv6": _set(("assets", 0, "browser_download_url"), "http://[oops/x"),
    "url-bad-port": _set(("assets", 0, "browser_download_url"), "http://127.0.0.1:99999/x"),
    "url-no-host": _set(("assets", 0, "browser_download_url"), "http:///x"),
    "url-control": _set(("assets", 0, "browser_download_url"), "http://127.0.0.1:1/a\r\nX: y"),
    "checksum-url-bad-port": _set(("assets", 1, "browser_download_url"), "http://127.0.0.1:x/"),
    "tag-missing": lambda r: {k: v for k, v in r.items() if k != "tag_name"},
    "tag-null": _set(("tag_name",), None),
    "tag-number": _set(("tag_name",), 2),
    "tag-empty": _set(("tag_name",), ""),
    "tag-slash": _set(("tag_name",), "a/b"),
    "tag-dot-dot": _set(("tag_name",), ".."),
    "tag-escape": _set(("tag_name",), "../../../x"),
    "tag-hidden": _set(("tag_name",), ".v2"),
    "tag-too-long": _set(("tag_name",), "v" * 300),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_release_answer_is_refused_cleanly(
    case: str, server: ReleaseServer, archive: bytes, tmp_path: Path
) -> None:
    server.add_release("v2", _assets(NEW, archive))
    server.mutate = HOSTILE[case]
    root = tmp_path / "install"
    with pytest.raises(DistributionError) as info:
        download_release(REPO, output=root, api_url=server.api_url, token=None, progress=False)
    assert info.value.hint
    assert "\n" not in info.value.one_line()
    assert current_target(root) is None
    assert _tree(tmp_path, skip=root) == set()
    assert not list(root.rglob("*.part"))


@pytest.mark.parametrize(
    "target",
    [
        "file:///etc/passwd",
        "ftp://127.0.0.1/x",
        "http://[oops",
        "http://127.0.0.1:99999",
        "http://",
    ],
)
def test_bad_redirect_is_refused_cleanly(
    target: str, server: ReleaseServer, archive: bytes, tmp_path: Path
) -> None:
    server.add_release("v2", _assets(NEW, archive))
    server.redirects[f"/download/v2/{NEW}"] = target
    with pytest.raises(DistributionError) as info:
        download_release(
            REPO, output=tmp_path / "i", api_url=server.api_url, token=None, progress=False
        )
    assert info.value.hint and "\n" not in info.value.one_line()
    assert current_target(tmp_path / "i") is None


def test_publish_refuses_a_tag_that_is_a_path(hash_bundle: Path, tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    result = _atlas("publish", "--bundle", str(hash_bundle), "--repo", REPO, "--tag", "../../x",
                    "--dry-run", "--out", str(tmp_path / "out"))  # fmt: skip
    _assert_one_line_refusal(result, "the tag '../../x'")
    assert _tree(tmp_path) == {"out"}
