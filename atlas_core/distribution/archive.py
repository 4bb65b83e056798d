"""Bundle archives: `.tar.zst` files with one top-level folder, packed and unpacked safely.

Unpacking trusts nothing in the archive: absolute names, `..` segments, links of any kind, device
files and oversized contents are refused before a byte is written, and everything is written into
a fresh folder that the caller renames into place only after verifying it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tarfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath

import zstandard

from atlas_core.errors import DistributionError

DEFAULT_MAX_BYTES = 20 * 1024**3  # unpacked size cap
DEFAULT_MAX_MEMBERS = 1_000_000
ZSTD_LEVEL = 10


def sha256_file(path: Path, progress: Callable[[int], None] | None = None) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(1024 * 1024):
            digest.update(block)
            if progress:
                progress(len(block))
    return digest.hexdigest()


def pack(source: Path, archive: Path, top: str) -> Path:
    """Write `source`'s files as `<top>/...` into a zstd-compressed tar; returns `archive`.

    Members are added in sorted order with owners and modes normalised: nothing about the machine
    that packed it travels with the bundle.
    """
    tmp = archive.with_name(archive.name + ".partial")
    compressor = zstandard.ZstdCompressor(level=ZSTD_LEVEL, threads=-1)
    try:
        with (
            tmp.open("wb") as raw,
            compressor.stream_writer(raw, closefd=False) as zfh,
            tarfile.open(fileobj=zfh, mode="w|", format=tarfile.PAX_FORMAT) as tar,
        ):
            for path in sorted(source.rglob("*")):
                rel = path.relative_to(source).as_posix()
                if path.is_symlink():
                    raise DistributionError(
                        f"{path} is a symbolic link; bundles hold plain files only",
                        hint="replace the link with the file it points to and pack again",
                    )
                info = tar.gettarinfo(str(path), arcname=f"{top}/{rel}")
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                info.mode = 0o755 if path.is_dir() else 0o644
                if path.is_file():
                    with path.open("rb") as fh:
                        tar.addfile(info, fh)
                else:
                    tar.addfile(info)
        os.replace(tmp, archive)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return archive


def unpack(
    archive: Path,
    dest: Path,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_members: int = DEFAULT_MAX_MEMBERS,
) -> Path:
    """Unpack into the new folder `dest`; returns the bundle root inside it.

    The bundle root is the archive's single top-level folder (or `dest` itself when the files sit
    at the archive's top). Raises DistributionError, leaving nothing behind, on any unsafe member.
    """
    if dest.exists():
        raise DistributionError(f"{dest} already exists", hint="remove it and try again")
    dest.mkdir(parents=True)
    try:
        _unpack_into(archive, dest, max_bytes=max_bytes, max_members=max_members)
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)
        raise
    entries = list(dest.iterdir())
    if len(entries) == 1 and entries[0].is_dir() and not (dest / "manifest.json").exists():
        return entries[0]
    return dest


def _unpack_into(archive: Path, dest: Path, *, max_bytes: int, max_members: int) -> None:
    total = 0
    members = 0
    root = dest.resolve()
    decompressor = zstandard.ZstdDecompressor()
    try:
        with (
            archive.open("rb") as raw,
            decompressor.stream_reader(raw) as zfh,
            tarfile.open(fileobj=zfh, mode="r|") as tar,
        ):
            for member in tar:
                members += 1
                if members > max_members:
                    raise _unsafe(archive, f"more than {max_members} entries")
                name = _safe_name(archive, member.name)
                target = (root / name).resolve()
                if not target.is_relative_to(root):
                    raise _unsafe(archive, f"entry {member.name!r} points outside the folder")
                if member.isdir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                if not member.isfile():
                    kind = "link" if member.issym() or member.islnk() else "special file"
                    raise _unsafe(archive, f"entry {member.name!r} is a {kind}")
                total += member.size
                if total > max_bytes:
                    raise _unsafe(archive, f"unpacks to more than {max_bytes} bytes")
                target.parent.mkdir(parents=True, exist_ok=True)
                source = tar.extractfile(member)
                assert source is not None
                with target.open("xb") as out:
                    shutil.copyfileobj(source, out, 1024 * 1024)
    except (tarfile.TarError, zstandard.ZstdError, EOFError) as exc:
        raise DistributionError(
            f"{archive.name} is not a readable .tar.zst archive: {exc}",
            hint="download it again; if it keeps failing the release asset is damaged",
        ) from exc
    except FileExistsError as exc:
        raise _unsafe(archive, f"entry {exc.filename} appears twice") from exc


def _safe_name(archive: Path, name: str) -> str:
    if "\x00" in name or "\\" in name:
        raise _unsafe(archive, f"entry {name!r} has a forbidden character")
    path = PurePosixPath(name)
    if path.is_absolute() or name.startswith("/"):
        raise _unsafe(archive, f"entry {name!r} is an absolute path")
    if any(part == ".." for part in path.parts):
        raise _unsafe(archive, f"entry {name!r} contains '..'")
    parts = [p for p in path.parts if p not in ("", ".")]
    if not parts:
        raise _unsafe(archive, f"entry {name!r} has no name")
    return "/".join(parts)


def _unsafe(archive: Path, why: str) -> DistributionError:
    return DistributionError(
        f"refusing {archive.name}: {why}",
        hint="the archive is unsafe or damaged; nothing was installed — get the bundle from a "
        "trusted release",
    )
