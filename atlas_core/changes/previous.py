"""The bundle an installed one replaced, and the bundles `atlas diff` takes by name.

An install root (`atlas_core.distribution.install`) keeps the release `current` points at and the
one before it unpacked under ``releases/``, and a snapshot of each replaced bundle in
``.backups/`` whose sidecar records the folder it was taken from. So the bundle a release replaced
is the folder of the newest snapshot taken from another release of the same root, while that
folder is still there.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from atlas_core.distribution import BACKUPS, RELEASES, list_snapshots
from atlas_core.errors import BundleError

if TYPE_CHECKING:
    from atlas_core.changes.compare import BundleDiff
    from atlas_core.config import Settings

CURRENT_NAME = "current"
PREVIOUS_NAME = "previous"


def install_root(bundle: Path) -> Path | None:
    """The install root holding `bundle` as one of its releases, or None for a loose bundle."""
    resolved = bundle.expanduser().resolve()
    return resolved.parent.parent if resolved.parent.name == RELEASES else None


def previous_bundle(bundle: Path) -> Path | None:
    """The unpacked bundle that `bundle` replaced in its install root, or None when `bundle` is
    not an installed release or the one before it is no longer kept."""
    current = bundle.expanduser().resolve()
    root = install_root(current)
    if root is None:
        return None
    releases = (root / RELEASES).resolve()
    for snap in list_snapshots(root / BACKUPS):  # newest first
        origin = snap.summary.get("from")
        if not isinstance(origin, str):
            continue
        folder = Path(origin).resolve()
        if folder == current or folder.parent != releases:
            continue  # a backup of this release itself, or of a bundle from elsewhere
        return folder if (folder / "manifest.json").is_file() else None
    return None


def changes_since_previous(bundle: Path) -> BundleDiff | None:
    """What changed from the bundle `bundle` replaced to `bundle`; None when none is kept."""
    from atlas_core.changes.compare import diff_bundles

    previous = previous_bundle(bundle)
    return diff_bundles(previous, bundle) if previous is not None else None


def resolve_bundle_arg(arg: str, settings: Settings | None = None) -> Path:
    """A bundle folder for one argument of `atlas diff`: a path, `current` (the bundle commands
    open by default: the `bundles` setting, else the installed one), `previous` (the one current
    replaced) or an installed release's name."""
    path = Path(arg).expanduser()
    if path.exists():
        return path
    if arg in (CURRENT_NAME, PREVIOUS_NAME):
        from atlas_core.serving import resolve_bundle_paths

        try:
            current = resolve_bundle_paths(None, settings, allow_demo=False)[0]
        except BundleError:
            raise BundleError(
                f"`{arg}`: no bundle is installed or configured",
                hint="pass bundle folders instead, or install one with `atlas download`",
            ) from None
        if arg == CURRENT_NAME:
            return current.resolve()  # the release itself: `current` may flip while it is read
        previous = previous_bundle(current)
        if previous is None:
            raise BundleError(
                f"no previous bundle is kept for {current}",
                hint="the bundle an install replaced is kept under <data dir>/releases until the "
                "next install; pass two bundle folders instead",
            )
        return previous
    return _release_named(arg)


def _release_named(name: str) -> Path:
    from atlas_core.config import data_dir

    releases = data_dir() / RELEASES
    plain = name and "/" not in name and "\\" not in name and not name.startswith(".")
    found = sorted(releases.glob(f"{_glob_safe(name)}*")) if plain and releases.is_dir() else []
    exact = [p for p in found if p.name == name]
    matches = exact or [p for p in found if (p / "manifest.json").is_file()]
    if len(matches) == 1:
        return matches[0]
    if matches:
        shown = ", ".join(p.name for p in matches[:5])
        raise BundleError(
            f"{name!r} names {len(matches)} installed releases ({shown})",
            hint=f"pass the full name of one of them (in {releases})",
        )
    raise BundleError(
        f"{name} is not a bundle: no such folder, and no installed release is named so",
        hint=f"pass a bundle folder, `current`, `previous`, or a release name from {releases}",
    )


def _glob_safe(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[]" else c for c in name)
