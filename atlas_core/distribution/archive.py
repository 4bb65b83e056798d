"""Bundle archives: `.tar.zst` files (`.tar.gz` read too) with one top-level folder, packed and
unpacked safely.

Unpacking trusts nothing in the archive: absolute names, `..` segments, links of any kind, device
files and oversized contents are refused before a byte is written, and everything is written into
a fresh folder that the caller renames into place only after verifying it.

A small archive cannot buy a large unpack. Three budgets bound what is written, the smallest wins:
the 20 GiB cap; the archive's own size times `MAX_RATIO` (a bundle compresses a few times, a
zstd bomb thousands of times), which also bounds the decompressed stream so tar headers cannot
balloon in memory; and, once `manifest.json` is read, the sizes the manifest declares. A member is
checked against what is left *before* it is written. `pack` writes `manifest.json` first, so for a
well-formed archive the tightest budget holds from the first file on.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import os
import shutil
import tarfile
import zlib
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

import zstandard

from atlas_core.errors import DistributionError
from atlas_core.safeio import read_json

DEFAULT_MAX_BYTES = 20 * 1024**3  # unpacked size cap
DEFAULT_MAX_MEMBERS = 1_000_000
ZSTD_LEVEL = 10
MANIFEST = "manifest.json"
# Bundles compress 2-5x (vectors, Parquet and ONNX weights barely shrink); 100x is a bomb.
MAX_RATIO = 100
# Tiny archives are mostly tar headers and padding, which compress far better than any content.
SMALL_ARCHIVE_ALLOWANCE = 8 * 1024**2
# pax and GNU long-name headers hold a few names and times; tarfile reads them whole into memory.
MAX_HEADER_BYTES = 1024**2
MAX_MANIFEST_BYTES = 64 * 1024**2
MAX_SEGMENT_BYTES = 255  # one file or folder name (NAME_MAX on Linux, macOS and Windows)
MAX_NAME_BYTES = 4096  # a whole entry path (PATH_MAX)  # a big bundle's manifest is a few MB; larger is left to verify


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

    `manifest.json` comes first, so an unpacker knows the declared sizes before any other file;
    the rest follow in sorted order, with owners and modes normalised: nothing about the machine
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
            for path in sorted(source.rglob("*"), key=lambda p: (p != source / MANIFEST, p)):
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
    expands_to = max(SMALL_ARCHIVE_ALLOWANCE, archive.stat().st_size * MAX_RATIO)
    budget = _Budget(archive)
    budget.tighten(max_bytes, f"{max_bytes} bytes")
    budget.tighten(expands_to, f"{expands_to} bytes ({MAX_RATIO}x its compressed size)")
    members = 0
    root = dest.resolve()
    decompressor = zstandard.ZstdDecompressor()
    try:
        with (
            archive.open("rb") as raw,
            _decompressed(raw, decompressor) as zfh,
            tarfile.open(
                fileobj=_Bounded(zfh, archive, expands_to), mode="r|", tarinfo=_BoundedTarInfo
            ) as tar,
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
                budget.admit(name, member.size)
                target.parent.mkdir(parents=True, exist_ok=True)
                source = tar.extractfile(member)
                assert source is not None
                with target.open("xb") as out:
                    shutil.copyfileobj(source, out, 1024 * 1024)
                if budget.declared is None and _is_manifest(name):
                    budget.read_manifest(name, target)
    except (tarfile.TarError, zstandard.ZstdError, EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise DistributionError(
            f"{archive} is not a readable .tar.zst or .tar.gz archive: {exc}",
            hint="download it again; if it keeps failing the release asset is damaged",
        ) from exc
    except _OversizedHeader as exc:
        raise _unsafe(archive, f"a tar header holds {exc} bytes of names") from exc
    except FileExistsError as exc:
        try:
            where = Path(str(exc.filename)).relative_to(root).as_posix()
        except ValueError:
            where = str(exc.filename)
        raise _unsafe(archive, f"entry {where!r} appears twice") from exc
    except OSError as exc:
        raise DistributionError(
            f"cannot unpack {archive.name}: {exc.strerror or exc}",
            hint="check the free space and permissions of the install folder; nothing was "
            "installed",
        ) from exc


GZIP_MAGIC = b"\x1f\x8b"


def _decompressed(
    raw: io.BufferedReader, zstd: zstandard.ZstdDecompressor
) -> contextlib.AbstractContextManager[Any]:
    """The decompressed stream of `raw`: gzip when its first bytes say so, else zstd (whose
    reader refuses anything that is not zstd). The content decides, not the file name."""
    if raw.peek(2)[:2] == GZIP_MAGIC:
        return gzip.GzipFile(fileobj=raw, mode="rb")
    return zstd.stream_reader(raw)


class _Budget:
    """Bytes an archive may still write, by the tightest limit known so far."""

    def __init__(self, archive: Path) -> None:
        self.archive = archive
        self.limit = -1
        self.why = ""
        self.used = 0
        self.written: dict[str, int] = {}  # archive path -> size, to check against the manifest
        self.declared: dict[str, int] | None = None  # archive path -> size the manifest declares

    def tighten(self, limit: int, why: str) -> None:
        if self.limit < 0 or limit < self.limit:
            self.limit, self.why = limit, why
        if self.used > self.limit:
            raise _unsafe(self.archive, f"unpacks to more than {self.why}")

    def admit(self, name: str, size: int) -> None:
        """Count a member of `size` bytes before it is written, or refuse it."""
        if self.declared is not None:
            self._check_declared(name, size)
        if self.used + size > self.limit:
            raise _unsafe(self.archive, f"unpacks to more than {self.why} (at entry {name!r})")
        self.used += size
        self.written[name] = size

    def read_manifest(self, name: str, path: Path) -> None:
        """Tighten the budget to what the manifest declares, checking what came before it.

        A manifest that cannot be read is left to verification to refuse; only the other budgets
        apply then.
        """
        size = path.stat().st_size
        if size > MAX_MANIFEST_BYTES:
            return
        try:
            manifest = read_json(path)
        except (OSError, ValueError):
            return
        files = manifest.get("files") if isinstance(manifest, dict) else None
        if not isinstance(files, dict):
            return
        folder = name[: -len(MANIFEST)]
        self.declared = {
            folder + rel: entry["size"]
            for rel, entry in files.items()
            if isinstance(entry, dict) and _is_size(entry.get("size"))
        }
        self.tighten(size + sum(self.declared.values()), "the sizes its manifest declares")
        for earlier, written in self.written.items():
            if earlier != name:
                self._check_declared(earlier, written)

    def _check_declared(self, name: str, size: int) -> None:
        assert self.declared is not None
        declared = self.declared.get(name)
        if declared is not None and size > declared:
            raise _unsafe(
                self.archive,
                f"entry {name!r} is {size} bytes but the manifest declares {declared}",
            )


def _is_size(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_manifest(name: str) -> bool:
    """The bundle's manifest sits at the archive's top or inside its one top-level folder."""
    parts = name.split("/")
    return parts[-1] == MANIFEST and len(parts) <= 2


class _Bounded(io.RawIOBase):
    """A read-only stream that refuses to yield more than `limit` decompressed bytes.

    tarfile reads everything through it, headers and skipped data included, so no part of the
    archive can expand past the limit in memory or on disk. As a RawIOBase it is a file object
    tarfile's signature accepts: writing and seeking raise io.UnsupportedOperation.
    """

    def __init__(self, inner: Any, archive: Path, limit: int) -> None:
        self.inner = inner
        self.archive = archive
        self.limit = limit
        self.count = 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        if size < 0:
            size = 1024 * 1024  # never "read everything" from a stream that could be a bomb
        data = self.inner.read(size)
        self.count += len(data)
        if self.count > self.limit:
            raise _unsafe(
                self.archive,
                f"unpacks to more than {self.limit} bytes ({MAX_RATIO}x its compressed size)",
            )
        return data


class _OversizedHeader(Exception):
    pass


class _BoundedTarInfo(tarfile.TarInfo):
    """Refuse a pax or GNU long-name header too large to be one: tarfile reads it into memory."""

    def _proc_member(self, tar: tarfile.TarFile) -> tarfile.TarInfo:
        # The one hook tarfile offers before it reads a header's payload (a private method, but
        # unchanged since Python 3.2; the archive tests fail loudly if that ever changes). Being
        # private, it is not in typeshed's stubs: hence the ignore.
        if self.type in _NAME_HEADERS and self.size > MAX_HEADER_BYTES:
            raise _OversizedHeader(self.size)
        return super()._proc_member(tar)  # pyright: ignore[reportAttributeAccessIssue]


_NAME_HEADERS = (
    tarfile.XHDTYPE,
    tarfile.XGLTYPE,
    tarfile.SOLARIS_XHDTYPE,
    tarfile.GNUTYPE_LONGNAME,
    tarfile.GNUTYPE_LONGLINK,
)


def _safe_name(archive: Path, name: str) -> str:
    if "\\" in name or any(ord(c) < 0x20 or ord(c) == 0x7F for c in name):
        raise _unsafe(archive, f"entry {name!r} has a forbidden character")
    if len(name.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES:
        raise _unsafe(archive, f"entry {name[:80]!r}… is longer than {MAX_NAME_BYTES} bytes")
    path = PurePosixPath(name)
    if path.is_absolute() or name.startswith("/"):
        raise _unsafe(archive, f"entry {name!r} is an absolute path")
    if any(part == ".." for part in path.parts):
        raise _unsafe(archive, f"entry {name!r} contains '..'")
    parts = [p for p in path.parts if p not in ("", ".")]
    if not parts:
        raise _unsafe(archive, f"entry {name!r} has no name")
    # Every filesystem Atlas installs on caps one name at 255 bytes; refusing here turns what would
    # be an OSError halfway through the unpack into the same one-line refusal as any other entry.
    for part in parts:
        if len(part.encode("utf-8", "surrogateescape")) > MAX_SEGMENT_BYTES:
            raise _unsafe(
                archive, f"entry {name[:80]!r} has a name longer than {MAX_SEGMENT_BYTES} bytes"
            )
    return "/".join(parts)


def _unsafe(archive: Path, why: str) -> DistributionError:
    return DistributionError(
        f"refusing {archive.name}: {why}",
        hint="the archive is unsafe or damaged; nothing was installed — get the bundle from a "
        "trusted release",
    )
