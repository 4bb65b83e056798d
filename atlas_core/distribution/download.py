"""`atlas download`: fetch a released bundle (or docs mirror), check it, and swap it in.

Order matters, so a bad download never touches what is installed: find the release, pick the
archive and its SHA-256, check free space, stream with resume, verify the checksum, unpack safely
into a fresh folder, verify the bundle, snapshot the current one, and only then flip `current`.
"""

from __future__ import annotations

import errno
import http.client
import logging
import os
import re
import shutil
import ssl
import sys
import time
import urllib.error
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from atlas_core.distribution.archive import DEFAULT_MAX_BYTES, sha256_file, unpack
from atlas_core.distribution.github import (
    REPO_HINT,
    Asset,
    GitHub,
    Release,
    http_error,
    unreachable,
)
from atlas_core.distribution.install import (
    DOWNLOADS,
    RELEASES,
    install_lock,
    release_dir,
    swap_in,
)
from atlas_core.errors import DistributionError, NetworkError

if TYPE_CHECKING:
    from tqdm import tqdm

    from atlas_core.console import PlainProgress

log = logging.getLogger(__name__)

ATTEMPTS = 4  # one try plus resumed retries for a dropped connection
BLOCK = 256 * 1024
# An archive larger than it may unpack to is no bundle; it also caps an asset of unknown size.
MAX_DOWNLOAD_BYTES = DEFAULT_MAX_BYTES
_HEX64 = re.compile(r"\b([0-9a-fA-F]{64})\b")


@dataclass(frozen=True, slots=True)
class InstallReport:
    root: Path
    installed: Path
    tag: str
    asset: str
    sha256: str
    bytes: int
    seconds: float
    resumed_from: int
    backup: Path | None
    previous: Path | None


def download_release(
    repo: str,
    *,
    tag: str | None = None,
    output: Path,
    api_url: str,
    token: str | None,
    keep: int = 5,
    mirror: bool = False,
    progress: bool = True,
    disk_free: Callable[[Path], int] | None = None,
) -> InstallReport:
    started = time.monotonic()
    github = GitHub(api_url, token)
    output.mkdir(parents=True, exist_ok=True)
    with install_lock(output):
        release = github.release(repo, tag)
        asset, checksum_asset = pick_assets(release, mirror=mirror, repo=repo)
        _check_size(asset)
        expected = _expected_sha256(github, checksum_asset, asset)
        _check_disk(output, asset.size, disk_free or _free_bytes)
        part = output / DOWNLOADS / f"{asset.name}.part"
        resumed_from = _fetch(github, asset, part, progress)
        actual = sha256_file(part)
        if actual != expected:
            part.unlink(missing_ok=True)
            raise DistributionError(
                f"{asset.name}: SHA-256 mismatch (expected {expected[:12]}…, got {actual[:12]}…)",
                hint="the download is damaged or was tampered with and was deleted; run the "
                "command again — what is installed is unchanged",
            )
        incoming = output / RELEASES / f".incoming-{os.getpid()}"
        shutil.rmtree(incoming, ignore_errors=True)
        try:
            root = unpack(part, incoming)
            _verify(root, mirror=mirror, name=asset.name)
            final = release_dir(output, release.tag)
            final.parent.mkdir(parents=True, exist_ok=True)
            os.rename(root, final)
        except DistributionError:
            # The archive is exactly what was published and it is refused: downloading it again
            # cannot help, so it does not stay behind taking up space.
            part.unlink(missing_ok=True)
            raise
        finally:
            shutil.rmtree(incoming, ignore_errors=True)
        previous, backup = swap_in(output, final, keep=keep)
        part.unlink(missing_ok=True)
    return InstallReport(
        root=output,
        installed=final,
        tag=release.tag,
        asset=asset.name,
        sha256=actual,
        bytes=asset.size or part_size(final),
        seconds=time.monotonic() - started,
        resumed_from=resumed_from,
        backup=backup,
        previous=previous,
    )


def part_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def pick_assets(release: Release, *, mirror: bool, repo: str = "") -> tuple[Asset, Asset | None]:
    """The `.tar.zst` archive to install and the asset that holds its SHA-256."""
    archives = [a for a in release.assets if a.name.endswith(".tar.zst")]
    wanted = [a for a in archives if ("mirror" in a.name.lower()) == mirror]
    where = f"release {release.tag} of {repo}" if repo else f"release {release.tag}"
    if not wanted:
        kind = "docs mirror" if mirror else "bundle"
        raise DistributionError(
            f"{where} has no {kind} archive (.tar.zst); assets: "
            + (", ".join(a.name for a in release.assets) or "none"),
            hint=f"pick another --tag, or check the release repository ({REPO_HINT}); a "
            "maintainer publishes bundles with `atlas publish`",
        )
    asset = sorted(wanted, key=lambda a: ("bundle" not in a.name.lower(), a.name))[0]
    by_name = {a.name: a for a in release.assets}
    checksum = by_name.get(f"{asset.name}.sha256")
    if checksum is None:
        checksum = next(
            (
                a
                for a in release.assets
                if re.search(r"(sha256sums?|checksums?)(\.txt)?$", a.name, re.I)
            ),
            None,
        )
    if checksum is None:
        raise DistributionError(
            f"{where} has no SHA-256 for {asset.name}",
            hint=f"publish {asset.name}.sha256 (or a checksums file) beside it; Atlas never "
            "installs an unverified archive",
        )
    return asset, checksum


def _expected_sha256(github: GitHub, checksum: Asset | None, asset: Asset) -> str:
    assert checksum is not None
    text = _get_small(github, checksum.url).decode("utf-8", errors="replace")
    for line in text.splitlines():
        match = _HEX64.search(line)
        if not match:
            continue
        rest = line[match.end() :].strip().lstrip("*").strip()
        if not rest or rest == asset.name or rest.endswith("/" + asset.name):
            return match.group(1).lower()
    raise DistributionError(
        f"{checksum.name} has no SHA-256 line for {asset.name}",
        hint="the release's checksum file is incomplete; ask its publisher to fix it",
    )


def _check_size(asset: Asset) -> None:
    if asset.size > MAX_DOWNLOAD_BYTES:
        raise DistributionError(
            f"{asset.name} declares {asset.size} bytes, more than the {_gib(MAX_DOWNLOAD_BYTES)} "
            "an archive may have",
            hint="the release is malformed or hostile; nothing was downloaded — pick another --tag",
        )


def _gib(n: int) -> str:
    return f"{n / 2**30:g} GiB"


def _get_small(github: GitHub, url: str, limit: int = 1024 * 1024) -> bytes:
    try:
        with github.open(url, github.headers(url, "application/octet-stream"), timeout=30) as resp:
            return resp.read(limit)
    except urllib.error.HTTPError as exc:
        raise http_error(exc, url) from exc
    except (urllib.error.URLError, http.client.HTTPException, OSError) as exc:
        raise unreachable(url, exc) from exc


def _fetch(github: GitHub, asset: Asset, part: Path, progress: bool) -> int:
    """Stream `asset` into `part`, resuming what an earlier try left; returns the resume offset."""
    part.parent.mkdir(parents=True, exist_ok=True)
    first_offset = part.stat().st_size if part.exists() else 0
    if asset.size and first_offset > asset.size:
        part.unlink()
        first_offset = 0
    bar = _bar(asset, progress)
    last_error = ""
    try:
        for attempt in range(ATTEMPTS):
            have = part.stat().st_size if part.exists() else 0
            if asset.size and have == asset.size:
                return first_offset
            try:
                _stream(github, asset, part, have, bar)
            except (http.client.HTTPException, ConnectionError, TimeoutError, ssl.SSLError) as exc:
                last_error = f"{type(exc).__name__}: {exc}"
                log.info("download interrupted (%s); resuming", last_error)
                time.sleep(min(2.0, 0.25 * 2**attempt))
                continue
            except urllib.error.URLError as exc:
                if isinstance(exc, urllib.error.HTTPError):
                    raise http_error(exc, asset.url) from exc
                last_error = str(exc.reason)
                time.sleep(min(2.0, 0.25 * 2**attempt))
                continue
            except OSError as exc:
                if exc.errno == errno.ENOSPC:
                    raise DistributionError(
                        f"disk full while downloading {asset.name}",
                        hint=f"free space under {part.parent.parent} and run the command again "
                        "(it resumes)",
                    ) from exc
                raise
            have = part.stat().st_size
            if not asset.size or have == asset.size:
                return first_offset
            last_error = f"got {have} of {asset.size} bytes"
    finally:
        if bar is not None:
            bar.close()
    raise NetworkError(
        f"download of {asset.name} stopped early ({last_error})",
        hint="run the same command again: it resumes where it stopped; what is installed is "
        "unchanged",
    )


def _stream(
    github: GitHub, asset: Asset, part: Path, have: int, bar: tqdm | PlainProgress | None
) -> None:
    headers = github.headers(asset.url, "application/octet-stream")
    if have:
        headers["Range"] = f"bytes={have}-"
    try:
        resp = github.open(asset.url, headers, timeout=60)
    except urllib.error.HTTPError as exc:
        if exc.code == 416 and have:
            return  # nothing left to send: the size check decides
        raise
    with resp:
        if have and resp.status == 206:
            content_range = resp.headers.get("Content-Range", "")
            if not content_range.startswith(f"bytes {have}-"):
                raise DistributionError(
                    f"the server resumed {asset.name} at the wrong offset ({content_range})",
                    hint="delete the .part file under .downloads and run the command again",
                )
            mode = "ab"
        else:
            mode = "wb"  # the server ignored Range: start over
            have = 0
            if bar is not None:
                bar.reset(total=asset.size or None)
        # Never keep more than the release declares: a server that sends more is broken or
        # hostile, and whatever it sent is deleted rather than left filling the disk.
        room = (asset.size or MAX_DOWNLOAD_BYTES) - have
        length = resp.headers.get("Content-Length", "")
        if length.isdigit() and int(length) > room:
            _too_long(asset, part)
        with part.open(mode) as out:
            while block := resp.read(BLOCK):
                if len(block) > room:
                    out.close()
                    _too_long(asset, part)
                room -= len(block)
                out.write(block)
                if bar is not None:
                    bar.update(len(block))


def _too_long(asset: Asset, part: Path) -> NoReturn:
    part.unlink(missing_ok=True)
    declared = (
        f"the {asset.size} bytes the release declares"
        if asset.size
        else f"{_gib(MAX_DOWNLOAD_BYTES)} (the release gives no size)"
    )
    raise DistributionError(
        f"the server sent more of {asset.name} than {declared}; the download was deleted",
        hint="the release asset or its server is broken or hostile; nothing was installed — "
        "report it to the publisher or pick another --tag",
    )


def _bar(asset: Asset, progress: bool) -> tqdm | PlainProgress | None:
    """A byte-counting bar on a terminal; plain lines (each tenth) in a log or a pipe."""
    if not progress:
        return None
    from atlas_core.console import PlainProgress, is_terminal

    if not is_terminal(sys.stderr):
        return PlainProgress(asset.size or None, asset.name, "bytes", sys.stderr)
    from tqdm import tqdm

    return tqdm(
        total=asset.size or None, unit="B", unit_scale=True, unit_divisor=1024,
        desc=asset.name, file=sys.stderr, dynamic_ncols=True,
    )  # fmt: skip


def _free_bytes(path: Path) -> int:
    return shutil.disk_usage(path).free


def _check_disk(output: Path, size: int, free: Callable[[Path], int]) -> None:
    # The archive, its unpacked copy and a snapshot of the current bundle live side by side.
    needed = size * 4 + 64 * 1024 * 1024
    available = free(output)
    if available < needed:
        raise DistributionError(
            f"not enough free disk space under {output}: {available // 2**20} MiB free, about "
            f"{needed // 2**20} MiB needed",
            hint="free some space (old snapshots live in .backups/) or pick another --output",
        )


def _verify(root: Path, *, mirror: bool, name: str) -> None:
    if mirror:
        markdown = root / "markdown"
        if not markdown.is_dir() or not any(markdown.rglob("*.md")):
            raise DistributionError(
                f"{name} is not a docs mirror (no markdown/ pages)",
                hint="pick the release's mirror asset, or drop --mirror",
            )
        return
    from atlas_core.bundle import verify_bundle

    problems = verify_bundle(root)
    if problems:
        listed = "; ".join(str(p) for p in problems[:5])
        raise DistributionError(
            f"{name} failed verification: {listed}",
            hint="the release's bundle is broken; nothing was installed — report it to the "
            "publisher or pick another --tag",
        )
