"""`atlas publish` and `atlas backup`/`atlas restore`: archives out, archives back in."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from atlas_core.distribution.archive import pack, sha256_file, unpack
from atlas_core.distribution.github import GitHub
from atlas_core.distribution.install import (
    BACKUPS,
    CURRENT,
    RELEASES,
    current_target,
    flip_current,
    install_lock,
    release_dir,
    snapshot,
)
from atlas_core.distribution.names import check_name
from atlas_core.errors import DistributionError
from atlas_core.safeio import read_json


@dataclass(frozen=True, slots=True)
class PublishReport:
    archive: Path
    checksum: Path
    tag: str
    notes: str
    published: str  # "" for a dry run, else "gh" or "api"
    url: str = ""


def _verified_manifest(bundle: Path) -> dict[str, Any]:
    from atlas_core.bundle import verify_bundle

    problems = verify_bundle(bundle)
    if problems:
        raise DistributionError(
            f"{bundle} failed verification: " + "; ".join(str(p) for p in problems[:5]),
            hint="rebuild it with `atlas build`; only intact bundles are published or restored",
        )
    return read_json(bundle / "manifest.json")


def default_tag(manifest: dict[str, Any]) -> str:
    built = str(manifest.get("built_at", ""))
    return f"v{built[:4]}.{built[5:7]}" if len(built) >= 7 else "v0.0"


def release_notes(manifest: dict[str, Any], tag: str, repo: str = "OWNER/NAME") -> str:
    counts = manifest.get("counts", {})
    model = manifest.get("model", {})
    lines = [
        f"# Atlas docs bundle {tag}",
        "",
        f"- Built: {manifest.get('built_at', '?')} with atlas {manifest.get('atlas_version', '?')}",
        f"- Format: {manifest.get('format_version', '?')}",
        f"- Documents: {counts.get('documents', '?')}, chunks: {counts.get('chunks', '?')}, "
        f"identifiers: {counts.get('identifiers', '?')}",
        f"- Model: {model.get('name', '?')} ({model.get('dims', '?')} dims)",
        "",
        "## Sources",
        "",
    ]
    for source in manifest.get("sources", []):
        where = source.get("url") or source.get("path") or ""
        rev = source.get("commit") or source.get("revision") or ""
        extra = f" @ {rev}" if rev else ""
        lines.append(
            f"- {source.get('kind', '?')}: {where}{extra} ({source.get('documents', '?')} documents)"
        )
    lines += [
        "",
        f"Install with `atlas download --repo {repo} --tag {tag}`; the archive's SHA-256 is "
        "in the `.sha256` asset.",
    ]
    return "\n".join(lines) + "\n"


def publish_release(
    bundle: Path,
    repo: str,
    *,
    tag: str | None,
    dry_run: bool,
    out: Path,
    api_url: str,
    token: str | None,
    use_gh: bool | None = None,
) -> PublishReport:
    manifest = _verified_manifest(bundle)
    # The tag names the archive file and, once downloaded, the install folder.
    tag = check_name(
        tag or default_tag(manifest),
        "the tag",
        hint="pass --tag with a plain name such as v2026.11 (no '/', no leading dot)",
    )
    name = f"atlas-bundle-{tag}"
    out.mkdir(parents=True, exist_ok=True)
    archive = pack(bundle, out / f"{name}.tar.zst", top=name)
    checksum = out / f"{archive.name}.sha256"
    checksum.write_text(f"{sha256_file(archive)}  {archive.name}\n")
    notes = release_notes(manifest, tag, repo)
    if dry_run:
        return PublishReport(archive, checksum, tag, notes, published="")
    gh = shutil.which("gh")
    if use_gh is None:
        use_gh = gh is not None
    if use_gh:
        if gh is None:
            raise DistributionError("the gh CLI is not installed", hint="drop --gh or install gh")
        with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as fh:
            fh.write(notes)
        try:
            result = subprocess.run(
                [gh, "release", "create", tag, str(archive), str(checksum), "--repo", repo,
                 "--title", f"Atlas docs {tag}", "--notes-file", fh.name],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
        finally:
            os.unlink(fh.name)
        if result.returncode != 0:
            raise DistributionError(
                f"gh release create failed: {result.stderr.strip().splitlines()[-1:]}",
                hint="run `gh auth status`; the archive and checksum are in " + str(out),
            )
        return PublishReport(archive, checksum, tag, notes, "gh", result.stdout.strip())
    if not token:
        raise DistributionError(
            "publishing through the REST API needs a token",
            hint="set GITHUB_TOKEN (or install the gh CLI), or use --dry-run to only write files",
        )
    github = GitHub(api_url, token)
    release = github.create_release(repo, tag, f"Atlas docs {tag}", notes)
    github.upload_asset(release, archive.name, archive.read_bytes(), "application/zstd")
    github.upload_asset(release, checksum.name, checksum.read_bytes(), "text/plain")
    return PublishReport(archive, checksum, tag, notes, "api", release.html_url)


def backup(bundle: Path, backup_dir: Path) -> Path:
    _verified_manifest(bundle)
    return snapshot(bundle.resolve(), backup_dir)


def restore(snapshot_file: Path, target: Path, *, backup_dir: Path | None = None) -> Path:
    """Install a snapshot into `target`, verified, swapped atomically, the old one snapshotted.

    `target` is an install root (a `current` link is flipped) or a plain bundle folder (replaced by
    rename); the bundle it replaces is snapshotted first.
    """
    if not snapshot_file.is_file():
        raise DistributionError(
            f"no snapshot at {snapshot_file}", hint="list them with `atlas restore --list`"
        )
    sidecar = snapshot_file.with_name(snapshot_file.name + ".sha256")
    if sidecar.is_file():
        words = sidecar.read_bytes()[:1024].decode("ascii", errors="replace").split()
        expected = words[0].lower() if words else ""
        if sha256_file(snapshot_file) != expected:
            raise DistributionError(
                f"{snapshot_file.name}: SHA-256 does not match {sidecar.name}",
                hint="the snapshot is damaged; restore an older one (`atlas restore --list`)",
            )
    plain = (target / "manifest.json").is_file() and not (target / CURRENT).exists()
    root = target.parent if plain else target
    root.mkdir(parents=True, exist_ok=True)
    with install_lock(root):
        incoming = root / f".restore-{os.getpid()}"
        shutil.rmtree(incoming, ignore_errors=True)
        try:
            bundle_root = unpack(snapshot_file, incoming)
            _verified_manifest(bundle_root)
            if plain:
                snapshot(target, backup_dir or root / BACKUPS)
                aside = root / f".{target.name}.replaced-{os.getpid()}"
                os.rename(target, aside)
                os.rename(bundle_root, target)
                shutil.rmtree(aside, ignore_errors=True)
                return target
            previous = current_target(target)
            if previous is not None:
                snapshot(previous, backup_dir or target / BACKUPS)
            final = release_dir(target, snapshot_file.name.removesuffix(".tar.zst"))
            (target / RELEASES).mkdir(parents=True, exist_ok=True)
            os.rename(bundle_root, final)
            flip_current(target, final)
            return final
        finally:
            shutil.rmtree(incoming, ignore_errors=True)
