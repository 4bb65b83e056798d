"""`atlas install PATH`: make a bundle folder or archive on this machine the current bundle.

The steps of a download without the network, in the same order so a bad source never touches what
is installed: copy the folder (or unpack the archive, after checking the `.sha256` written beside
it) into a fresh folder under `releases/`, verify every file of the bundle, snapshot the current
one, and only then flip `current`. Running servers watch `current` and reload.

A folder is copied rather than linked: the installed bundle must not change when the build folder
is rebuilt or deleted, and a folder holding links or special files is no bundle.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from atlas_core.distribution.archive import sha256_file, unpack
from atlas_core.distribution.install import RELEASES, install_lock, release_dir, swap_in
from atlas_core.errors import DistributionError

MANIFEST = "manifest.json"
ARCHIVE_SUFFIXES = (".tar.zst", ".tar.gz", ".tgz")
SOURCE_HINT = (
    "pass a bundle folder (it holds manifest.json) from `atlas build`, or an archive written by "
    "`atlas publish` or `atlas backup`; what is installed is unchanged"
)
_HEX64 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True, slots=True)
class LocalInstall:
    root: Path  # the install root: `current`, `releases/`, `.backups/`
    installed: Path  # the new release folder `current` points at
    source: Path
    checksum: str  # what the archive's `.sha256` said and matched; "" for a folder or none
    backup: Path | None  # the snapshot of the bundle it replaced
    previous: Path | None


def install_path(source: Path, output: Path, *, keep: int = 5) -> LocalInstall:
    """Install the bundle folder or archive `source` into the install root `output`."""
    if not source.exists():
        raise DistributionError(f"{source} does not exist", hint=SOURCE_HINT)
    if not source.is_dir() and not source.is_file():
        raise DistributionError(f"{source} is neither a folder nor a file", hint=SOURCE_HINT)
    if source.is_dir() and not (source / MANIFEST).is_file():
        raise DistributionError(
            f"{source} is not an Atlas bundle: {source / MANIFEST} is missing", hint=SOURCE_HINT
        )
    created = not output.exists()
    output.mkdir(parents=True, exist_ok=True)
    try:
        return _install_into(source, output, keep)
    except BaseException:
        if created:  # an install root this call made holds nothing worth keeping
            shutil.rmtree(output, ignore_errors=True)
        raise


def _install_into(source: Path, output: Path, keep: int) -> LocalInstall:
    with install_lock(output):
        incoming = output / RELEASES / f".incoming-{os.getpid()}"
        shutil.rmtree(incoming, ignore_errors=True)
        incoming.parent.mkdir(parents=True, exist_ok=True)
        try:
            if source.is_dir():
                checksum = ""
                root = _copy_bundle_folder(source, incoming)
            else:
                checksum = _check_sidecar(source)
                root = unpack(source, incoming)
            _verify(root, source)
            final = release_dir(output, _release_name(source))
            os.rename(root, final)
        finally:
            shutil.rmtree(incoming, ignore_errors=True)
        previous, backup = swap_in(output, final, keep=keep)
    return LocalInstall(output, final, source, checksum, backup, previous)


def _release_name(source: Path) -> str:
    name = source.name
    for suffix in ARCHIVE_SUFFIXES:
        name = name.removesuffix(suffix)
    return name or "bundle"


def _copy_bundle_folder(source: Path, dest: Path) -> Path:
    """Copy the plain files of `source` into the new folder `dest`; a link or special file is
    refused by name before anything is installed."""
    if not (source / MANIFEST).is_file():
        raise DistributionError(
            f"{source} is not an Atlas bundle: {source / MANIFEST} is missing", hint=SOURCE_HINT
        )
    dest.mkdir()
    for folder, dirs, files in os.walk(source):
        here = Path(folder)
        for name in [*dirs, *files]:
            path = here / name
            mode = path.lstat().st_mode
            if stat.S_ISLNK(mode):
                raise DistributionError(
                    f"{path} is a symbolic link; a bundle holds plain files only",
                    hint="replace the link with the file it points to, or rebuild the bundle",
                )
            target = dest / path.relative_to(source)
            if stat.S_ISDIR(mode):
                target.mkdir()
            elif stat.S_ISREG(mode):
                shutil.copyfile(path, target)
            else:
                raise DistributionError(
                    f"{path} is not a regular file; a bundle holds plain files only",
                    hint=SOURCE_HINT,
                )
    return dest


def _check_sidecar(archive: Path) -> str:
    """Check `archive` against the `<archive>.sha256` beside it, when there is one."""
    sidecar = archive.with_name(archive.name + ".sha256")
    if not sidecar.is_file():
        return ""  # the bundle's own per-file SHA-256s are still checked by _verify
    words = sidecar.read_bytes()[:1024].decode("ascii", errors="replace").split()
    expected = words[0].lower() if words else ""
    if not _HEX64.fullmatch(expected):
        raise DistributionError(
            f"{sidecar} does not start with a SHA-256",
            hint="write it as `<sha256>  <archive name>` (as `atlas publish` does), or remove it",
        )
    actual = sha256_file(archive)
    if actual != expected:
        raise DistributionError(
            f"{archive}: SHA-256 {actual[:12]}… does not match {sidecar.name} ({expected[:12]}…)",
            hint="the archive is damaged or not the one the checksum was written for; copy it "
            "again — what is installed is unchanged",
        )
    return expected


def _verify(root: Path, source: Path) -> None:
    from atlas_core.bundle import verify_bundle

    problems = verify_bundle(root)
    if problems:
        listed = "; ".join(problems[:5])
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        raise DistributionError(
            f"{source} failed verification: {listed}{more}",
            hint="rebuild it with `atlas build` (or copy it again); what is installed is unchanged",
        )
