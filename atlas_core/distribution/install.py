"""The install layout: many unpacked releases, one `current` link, backups, and a lock.

    <root>/current            symlink to releases/<name>; servers load this path
    <root>/releases/<name>/   one unpacked, verified bundle per install (never modified after)
    <root>/.backups/          snapshots of what each install replaced (newest --keep kept)
    <root>/.downloads/        partial downloads, resumed on the next try
    <root>/.lock              held while an install runs

Flipping `current` is one `rename` of a fresh symlink over the old one, so a reader resolving
`current` sees the old bundle or the new one, never a mix.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import logging
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from atlas_core.distribution.archive import pack, sha256_file
from atlas_core.distribution.names import as_file_name, shown, unsafe_reason
from atlas_core.errors import DistributionError
from atlas_core.safeio import read_json

log = logging.getLogger(__name__)

CURRENT = "current"
RELEASES = "releases"
BACKUPS = ".backups"
DOWNLOADS = ".downloads"
LOCK = ".lock"
KEEP_RELEASES = 2  # current + the one before, so servers still reading it are not cut off


@contextlib.contextmanager
def install_lock(root: Path) -> Iterator[None]:
    """Hold the install lock of `root`, or fail at once if another install holds it."""
    root.mkdir(parents=True, exist_ok=True)
    path = root / LOCK
    with path.open("a+") as fh:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EAGAIN, errno.EACCES):
                fh.seek(0)
                holder = fh.read().strip() or "another process"
                raise DistributionError(
                    f"another install into {root} is running ({holder})",
                    hint="wait for it to finish, then run the command again",
                ) from exc
            raise
        fh.seek(0)
        fh.truncate()
        fh.write(f"pid {os.getpid()}")
        fh.flush()
        try:
            remove_leftovers(root)
            yield
        finally:
            fh.seek(0)
            fh.truncate()
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


# Where an install unpacks before its release folder is renamed into place (local and download
# installs; a restore), each named after the process that made it.
LEFTOVER_PATTERNS = (f"{RELEASES}/.incoming-*", ".restore-*")


def remove_leftovers(root: Path) -> list[Path]:
    """Remove the unpack folders of installs into `root` that were killed before their cleanup.

    Only a holder of the install lock calls this. Every install makes its folder under that lock
    and removes it before letting go, and the lock dies with its process, so any such folder seen
    while holding the lock belongs to an install that is no longer running: no process id is
    trusted (one can be reused), and a running install cannot be holding the lock at this moment.
    """
    removed = []
    for pattern in LEFTOVER_PATTERNS:
        for folder in sorted(root.glob(pattern)):
            if folder.is_symlink() or not folder.is_dir():
                continue
            shutil.rmtree(folder, ignore_errors=True)
            if not folder.exists():
                removed.append(folder)
    if removed:
        log.info(
            "removed %d unpack folder(s) left by killed installs in %s: %s",
            len(removed),
            root,
            ", ".join(p.name for p in removed),
        )
    return removed


def current_target(root: Path) -> Path | None:
    """The release `current` points at, or None when nothing is installed."""
    link = root / CURRENT
    if link.is_symlink() or link.is_dir():
        resolved = link.resolve()
        return resolved if resolved.is_dir() else None
    return None


def release_dir(root: Path, name: str) -> Path:
    """A fresh folder name under releases/ for an install called `name`."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    base = root / RELEASES / f"{as_file_name(name)}-{stamp}"
    candidate, n = base, 1
    while candidate.exists():
        n += 1
        candidate = base.with_name(f"{base.name}-{n}")
    return candidate


def flip_current(root: Path, target: Path) -> None:
    """Point `current` at `target` in one atomic rename."""
    link = root / CURRENT
    if link.exists() and not link.is_symlink():
        raise DistributionError(
            f"{link} is a real folder, not the link this layout uses",
            hint=f"move it away (it is not deleted automatically), then install again into {root}",
        )
    tmp = root / f".{CURRENT}.{os.getpid()}.tmp"
    tmp.unlink(missing_ok=True)
    os.symlink(os.path.relpath(target, root), tmp)
    os.replace(tmp, link)


def swap_in(root: Path, final: Path, *, keep: int) -> tuple[Path | None, Path | None]:
    """Make the verified release folder `final` the current one: snapshot what `current` points
    at into `.backups/`, flip `current`, prune old releases. Returns (previous, its snapshot).

    The caller holds the install lock and has verified `final`, which sits under `releases/`."""
    previous = current_target(root)
    backup = snapshot(previous, root / BACKUPS, keep=keep) if previous else None
    flip_current(root, final)
    prune_releases(root)
    return previous, backup


def snapshot(bundle: Path, backups: Path, *, keep: int | None = None) -> Path:
    """Archive `bundle` into `backups/<name>-<time>.tar.zst` with a checksum and a summary."""
    backups.mkdir(parents=True, exist_ok=True)
    summary = _summary(bundle)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    name = f"{snapshot_prefix(summary.get('name'), bundle)}-{stamp}"
    archive = pack(bundle, backups / f"{name}.tar.zst", top=name)
    digest = sha256_file(archive)
    (backups / f"{archive.name}.sha256").write_text(f"{digest}  {archive.name}\n")
    summary |= {"snapshot": archive.name, "sha256": digest, "taken_at": _now(), "from": str(bundle)}
    (backups / f"{archive.name}.json").write_text(json.dumps(summary, indent=2) + "\n")
    if keep is not None:
        prune_backups(backups, keep)
    return archive


def snapshot_prefix(manifest_name: object, bundle: Path) -> str:
    """The manifest's name when it is one safe file name, else the bundle's folder name.

    The manifest came with a download: a name like `../../x` or `a/b` would put the snapshot
    outside `backups` or into a folder that does not exist.
    """
    if manifest_name and unsafe_reason(manifest_name) is None:
        assert isinstance(manifest_name, str)
        return manifest_name
    if manifest_name:
        log.warning(
            "bundle %s: manifest name %s %s; its snapshot is named after the folder instead",
            bundle,
            shown(manifest_name),
            unsafe_reason(manifest_name),
        )
    return as_file_name(bundle.name)


@dataclass(frozen=True, slots=True)
class Snapshot:
    path: Path
    taken_at: str
    size: int
    summary: dict[str, object]


def list_snapshots(backups: Path) -> list[Snapshot]:
    """Snapshots in `backups`, newest first."""
    if not backups.is_dir():
        return []
    found: list[Snapshot] = []
    for archive in backups.glob("*.tar.zst"):
        meta_path = archive.with_name(archive.name + ".json")
        try:
            meta = read_json(meta_path) if meta_path.is_file() else {}
        except (OSError, ValueError):  # ValueError: bad JSON or not UTF-8
            meta = {}
        if not isinstance(meta, dict):
            meta = {}
        taken = str(meta.get("taken_at") or _iso(archive.stat().st_mtime))
        found.append(Snapshot(archive, taken, archive.stat().st_size, meta))
    return sorted(found, key=lambda s: (s.taken_at, s.path.name), reverse=True)


def prune_backups(backups: Path, keep: int) -> list[Path]:
    removed: list[Path] = []
    for snap in list_snapshots(backups)[max(0, keep) :]:
        for extra in (snap.path, snap.path.with_name(snap.path.name + ".sha256"),
                      snap.path.with_name(snap.path.name + ".json")):  # fmt: skip
            extra.unlink(missing_ok=True)
        removed.append(snap.path)
    return removed


def prune_releases(root: Path, keep: int = KEEP_RELEASES) -> None:
    """Delete old release folders, always keeping the current one and the newest others."""
    releases = root / RELEASES
    if not releases.is_dir():
        return
    current = current_target(root)
    dirs = sorted(
        (d for d in releases.iterdir() if d.is_dir() and not d.name.startswith(".")),
        key=lambda d: d.stat().st_mtime,
        reverse=True,
    )
    kept = 0
    for folder in dirs:
        if current is not None and folder.resolve() == current:
            continue
        kept += 1
        if kept >= keep:
            shutil.rmtree(folder, ignore_errors=True)


def _summary(bundle: Path) -> dict[str, object]:
    try:
        manifest = read_json(bundle / "manifest.json")
    except (OSError, ValueError):  # ValueError: bad JSON or not UTF-8
        return {}
    if not isinstance(manifest, dict):
        return {}
    counts = manifest.get("counts")
    if not isinstance(counts, dict):
        counts = {}
    return {
        "name": manifest.get("name") or bundle.name,
        "format_version": manifest.get("format_version"),
        "built_at": manifest.get("built_at"),
        "chunks": counts.get("chunks"),
    }


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
