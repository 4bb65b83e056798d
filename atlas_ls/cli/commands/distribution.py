"""`atlas download`, `atlas install`, `atlas backup`, `atlas restore` and `atlas publish`."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from atlas_core.config import Settings


def register(sub: argparse._SubParsersAction) -> None:
    from atlas_core.distribution import API_ENV, DEFAULT_API_URL, DEFAULT_RELEASE_REPO, REPO_ENV

    download = sub.add_parser(
        "download",
        help="install the latest (or a tagged) bundle release; running servers pick it up",
        description="Find a GitHub release, download its .tar.zst bundle with resume, verify the "
        "SHA-256 and the bundle, snapshot the current one, then swap the new one in atomically. "
        f"With no arguments: the latest Collibra docs bundle from {DEFAULT_RELEASE_REPO}. "
        "`atlas doctor` shows the release repository in effect.",
    )
    download.add_argument(
        "--repo",
        default=None,
        help=f"OWNER/NAME of the releases (default: ${REPO_ENV}, else [release] repo in "
        f"atlas.toml, else {DEFAULT_RELEASE_REPO})",
    )
    download.add_argument("--tag", default=None, help="release tag (default: the latest)")
    download.add_argument(
        "--output", type=Path, default=None, help="install root (default: data dir)"
    )
    download.add_argument(
        "--api-url",
        default=None,
        help=f"GitHub (Enterprise) API URL (default: ${API_ENV}, else [release] api_url, else "
        f"{DEFAULT_API_URL})",
    )
    download.add_argument("--keep", type=int, default=5, help="snapshots to keep in .backups (5)")
    download.add_argument("--mirror", action="store_true", help="download the docs mirror instead")
    download.add_argument("--no-progress", action="store_true", help="no progress output")
    download.set_defaults(func=run_download)

    install = sub.add_parser(
        "install",
        help="make a bundle folder or archive the current bundle; running servers pick it up",
        description="Copy a bundle folder (from `atlas build`) or unpack an archive (.tar.zst or "
        ".tar.gz from `atlas publish` or `atlas backup`, checked against the .sha256 beside it), "
        "verify every file, snapshot the current bundle, then swap the new one in atomically.",
    )
    install.add_argument("path", type=Path, help="bundle folder or archive")
    install.add_argument(
        "--output", type=Path, default=None, help="install root (default: data dir)"
    )
    install.add_argument("--keep", type=int, default=5, help="snapshots to keep in .backups (5)")
    install.set_defaults(func=run_install)

    backup = sub.add_parser("backup", help="snapshot a bundle into a .tar.zst archive")
    backup.add_argument("--bundle", type=Path, default=None, help="bundle (default: installed)")
    backup.add_argument("--backup-dir", type=Path, default=None, help="where snapshots go")
    backup.set_defaults(func=run_backup)

    restore = sub.add_parser("restore", help="install a snapshot again, or list snapshots")
    restore.add_argument("--snapshot", type=Path, default=None, help="snapshot .tar.zst to restore")
    restore.add_argument("--target", type=Path, default=None, help="install root or bundle folder")
    restore.add_argument("--backup-dir", type=Path, default=None, help="where snapshots live")
    restore.add_argument("--list", action="store_true", help="list snapshots, newest first")
    restore.set_defaults(func=run_restore)

    publish = sub.add_parser(
        "publish", help="archive a bundle with its checksum and publish it as a GitHub release"
    )
    publish.add_argument("--bundle", type=Path, required=True, help="bundle folder to publish")
    publish.add_argument("--repo", required=True, help="OWNER/NAME to publish to")
    publish.add_argument("--tag", default=None, help="release tag (default: vYYYY.MM of the build)")
    publish.add_argument("--dry-run", action="store_true", help="only write the archive + checksum")
    publish.add_argument("--out", type=Path, default=Path.cwd(), help="where archives are written")
    publish.add_argument("--api-url", default=DEFAULT_API_URL, help="GitHub (Enterprise) API URL")
    via = publish.add_mutually_exclusive_group()
    via.add_argument("--gh", dest="use_gh", action="store_true", default=None, help="use gh CLI")
    via.add_argument("--api", dest="use_gh", action="store_false", help="use the REST API")
    publish.set_defaults(func=run_publish)


def _install_root(output: Path | None, mirror: bool = False) -> Path:
    from atlas_core.config import data_dir

    if output is not None:
        return output
    return data_dir() / "mirror" if mirror else data_dir()


def _served_instead(root: Path, settings: Settings) -> str | None:
    """A note when what was just installed is not what servers and searches open by default."""
    from atlas_core.config import data_dir, installed_bundle_dir
    from atlas_core.errors import AtlasError
    from atlas_core.serving import resolve_bundle_paths

    if root.resolve() != data_dir().resolve():
        return None
    try:
        paths = resolve_bundle_paths(None, settings, allow_demo=False)
    except AtlasError:
        return None
    if paths == [installed_bundle_dir()]:
        return None
    shown = ", ".join(str(p) for p in paths)
    return (
        f"note: ATLAS_BUNDLE or [bundle] path is set, so servers and searches open {shown}, "
        "not this install; unset it to use the installed bundle"
    )


def run_download(args: argparse.Namespace) -> int:
    from atlas_core.distribution import download_release, release_source
    from atlas_ls.cli.outputs import removed_on_failure

    source = release_source(args.settings)
    root = _install_root(args.output, args.mirror)
    with removed_on_failure(root), offline_hint():
        report = download_release(
            source.repo,
            tag=args.tag,
            output=root,
            api_url=source.api_url,
            token=args.settings.github_token,
            keep=args.keep,
            mirror=args.mirror,
            progress=not args.no_progress,  # a bar on a terminal, plain lines in a log
        )
    mib = report.bytes / 2**20
    rate = mib / report.seconds if report.seconds else 0.0
    resumed = f", resumed at {report.resumed_from} bytes" if report.resumed_from else ""
    print(f"installed {report.asset} ({report.tag}, {mib:.1f} MiB, {rate:.1f} MiB/s{resumed})")
    print(f"  from {source.describe()}")
    print(f"  sha256 {report.sha256} verified; bundle verified")
    _print_swap(report.root, report.installed, report.backup)
    if not args.mirror and (note := _served_instead(root, args.settings)):
        print(note)
    return 0


@contextlib.contextmanager
def offline_hint() -> Iterator[None]:
    """A download that fails for the network also names the routes that need none."""
    from atlas_core.errors import NetworkError
    from atlas_ls.cli.hints import OFFLINE_ROUTE

    try:
        yield
    except NetworkError as exc:
        exc.hint = f"{exc.hint}; {OFFLINE_ROUTE}" if exc.hint else OFFLINE_ROUTE
        raise


def _print_swap(root: Path, installed: Path, backup: Path | None) -> None:
    print(f"  {root / 'current'} -> {installed}")
    if backup:
        print(
            f"  previous bundle saved as {backup} (undo: atlas restore --snapshot "
            f"{backup} --target {root})"
        )


def run_install(args: argparse.Namespace) -> int:
    from atlas_core.distribution import install_path

    root = _install_root(args.output)
    report = install_path(args.path, root, keep=args.keep)
    kind = "folder" if args.path.is_dir() else "archive"
    checked = f"sha256 matches {args.path.name}.sha256; " if report.checksum else ""
    print(f"installed {args.path} ({kind}; {checked}every file verified)")
    _print_swap(report.root, report.installed, report.backup)
    if note := _served_instead(root, args.settings):
        print(note)
    return 0


def _default_backup_dir(backup_dir: Path | None) -> Path:
    from atlas_core.config import data_dir
    from atlas_core.distribution import BACKUPS

    return backup_dir or data_dir() / BACKUPS


def run_backup(args: argparse.Namespace) -> int:
    from atlas_core.config import installed_bundle_dir
    from atlas_core.distribution import backup
    from atlas_core.errors import DistributionError

    bundle = args.bundle or installed_bundle_dir()
    if not (bundle / "manifest.json").is_file():
        raise DistributionError(
            f"no bundle at {bundle}", hint="pass --bundle DIR, or install one with `atlas download`"
        )
    archive = backup(bundle, _default_backup_dir(args.backup_dir))
    print(f"snapshot written: {archive}")
    return 0


def run_restore(args: argparse.Namespace) -> int:
    from atlas_core.config import data_dir
    from atlas_core.distribution import BACKUPS, list_snapshots, restore
    from atlas_core.errors import ConfigError

    if args.list:
        backups = args.backup_dir or (
            args.target / BACKUPS if args.target else data_dir() / BACKUPS
        )
        snapshots = list_snapshots(backups)
        if not snapshots:
            print(f"no snapshots in {backups}")
        for snap in snapshots:
            chunks = snap.summary.get("chunks", "?")
            print(f"{snap.taken_at}  {snap.size / 2**20:8.1f} MiB  {chunks} chunks  {snap.path}")
        return 0
    if args.snapshot is None:
        raise ConfigError("restore needs --snapshot FILE (or --list)", hint="see atlas restore -h")
    target = args.target or data_dir()
    installed = restore(args.snapshot, target, backup_dir=args.backup_dir)
    print(f"restored {args.snapshot.name} into {installed}")
    return 0


def run_publish(args: argparse.Namespace) -> int:
    from atlas_core.distribution import publish_release

    report = publish_release(
        args.bundle,
        args.repo,
        tag=args.tag,
        dry_run=args.dry_run,
        out=args.out,
        api_url=args.api_url,
        token=args.settings.github_token,
        use_gh=args.use_gh,
    )
    print(f"archive:  {report.archive}")
    print(f"checksum: {report.checksum}")
    if report.published:
        print(f"published {report.tag} to {args.repo} via {report.published} {report.url}".rstrip())
    else:
        print(f"dry run: nothing published; upload both files as release {report.tag} assets")
    return 0
