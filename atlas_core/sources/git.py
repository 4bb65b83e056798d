"""`git` source: the markdown of a repository at one pinned commit.

The spec is ``PATH_OR_URL[#REF[:SUBDIR]]``; ``PATH_OR_URL@REF`` also works when the part after the
last ``@`` cannot be a host (``git@host:org/repo`` stays a URL). Files are read from git objects
(`git ls-tree` + `git cat-file --batch`), so a local repository's working tree, index and HEAD are
never touched; a URL is cloned bare into a temporary directory that is removed afterwards. The
resolved commit SHA goes into the source description and so into the bundle manifest.
"""

from __future__ import annotations

import logging
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from atlas_core.errors import SourceError
from atlas_core.markdown import decode_utf8, is_markdown, markdown_document
from atlas_core.safeio import display_path, warn_skipped
from atlas_core.sources.local import publication_for
from atlas_core.types import Document

log = logging.getLogger(__name__)

GIT_TIMEOUT_S = 600
_SCHEME_HOST_RE = re.compile(r"^[a-z][a-z0-9+.-]*://[^/]*$", re.IGNORECASE)
_GITHUB_RE = re.compile(r"^(?:https://|git@|ssh://git@)github\.com[:/]([^/]+/[^/]+?)(?:\.git)?/?$")


@dataclass(frozen=True, slots=True)
class GitSpec:
    location: str  # a local path or a URL
    ref: str  # "" for HEAD
    subdir: str  # "" for the whole repository


def parse_git_spec(value: str) -> GitSpec:
    location, ref = value, ""
    if "#" in value:
        location, _, ref = value.rpartition("#")
    elif "@" in value:
        left, _, right = value.rpartition("@")
        # "@REF" unless the @ belongs to a user name: "ssh://user@host/..." or "user@host:path".
        user_at_host = bool(_SCHEME_HOST_RE.match(left)) or (
            ":" in right and "/" not in left and not Path(left).expanduser().exists()
        )
        if left and right and not user_at_host:
            location, ref = left, right
    subdir = ""
    if ":" in ref:
        # Ref names cannot contain ":", so REF:SUBDIR is unambiguous (git's own <rev>:<path>).
        ref, _, subdir = ref.partition(":")
    subdir = str(PurePosixPath(subdir.strip("/"))) if subdir.strip("/") else ""
    if not location.strip():
        raise SourceError(
            f"git source {value!r}: no repository given",
            hint="use git=PATH_OR_URL#REF, e.g. git=../docs-repo#v2.1",
        )
    return GitSpec(location.strip(), ref.strip(), subdir)


def _git(args: list[str], *, cwd: Path | None = None, what: str) -> str:
    return _git_bytes(args, cwd=cwd, what=what).decode("utf-8", "replace")


def _git_bytes(args: list[str], *, cwd: Path | None = None, what: str) -> bytes:
    """git's stdout as bytes: file names in a tree need not be UTF-8."""
    try:
        result = subprocess.run(
            ["git", *args],
            cwd=cwd,
            capture_output=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
            env=_git_env(),
        )
    except FileNotFoundError:
        raise SourceError(
            "git source: the `git` program is not installed",
            hint="install git, or export the repository's markdown and use local= instead",
        ) from None
    except subprocess.TimeoutExpired:
        raise SourceError(f"git source {what}: git timed out", hint="check the URL") from None
    if result.returncode != 0:
        detail = (result.stderr or result.stdout).decode("utf-8", "replace").strip().splitlines()
        raise SourceError(
            f"git source {what}: {detail[-1] if detail else 'git failed'}",
            hint="check the repository path or URL and the ref (branch, tag or commit)",
            path=what,
        )
    return result.stdout


def _git_env() -> dict[str, str]:
    import os

    env = dict(os.environ)
    # Never prompt for credentials in a build; fail instead.
    env["GIT_TERMINAL_PROMPT"] = "0"
    env.setdefault("GIT_ASKPASS", "echo")
    return env


def _is_local(location: str) -> bool:
    return "://" not in location and not re.match(r"^[\w.-]+@[\w.-]+:", location)


@contextmanager
def _repository(spec: GitSpec) -> Iterator[Path]:
    """A git directory to read objects from: the local repository itself, or a bare clone."""
    if _is_local(spec.location):
        path = Path(spec.location).expanduser()
        if not path.exists():
            raise SourceError(
                f"git source {spec.location}: no such repository",
                hint="pass git=PATH with a local clone, or a URL",
                path=spec.location,
            )
        _git(["rev-parse", "--git-dir"], cwd=path, what=spec.location)
        yield path
        return
    tmp = Path(tempfile.mkdtemp(prefix="atlas-git-"))
    try:
        _git(
            ["clone", "--quiet", "--bare", spec.location, str(tmp / "repo.git")], what=spec.location
        )
        yield tmp / "repo.git"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _read_blobs(repo: Path, shas: list[str], what: str) -> list[bytes]:
    """Blob contents in order, through one `git cat-file --batch` process."""
    if not shas:
        return []
    proc = subprocess.run(
        ["git", "cat-file", "--batch"],
        cwd=repo,
        input=("\n".join(shas) + "\n").encode(),
        capture_output=True,
        timeout=GIT_TIMEOUT_S,
        check=False,
        env=_git_env(),
    )
    if proc.returncode != 0:
        raise SourceError(f"git source {what}: cannot read blobs", hint="run `git fsck` there")
    data = proc.stdout
    out: list[bytes] = []
    pos = 0
    for sha in shas:
        newline = data.index(b"\n", pos)
        header = data[pos:newline].split()
        if len(header) != 3 or header[1] != b"blob":
            raise SourceError(f"git source {what}: object {sha} is not a blob", hint="git fsck")
        size = int(header[2])
        out.append(data[newline + 1 : newline + 1 + size])
        pos = newline + 1 + size + 1
    return out


def _web_url(location: str, commit: str) -> str:
    m = _GITHUB_RE.match(location)
    return f"https://github.com/{m.group(1)}/blob/{commit}" if m else ""


def load_git(value: str, *, clean_gitbook: bool) -> tuple[list[Document], dict[str, Any]]:
    spec = parse_git_spec(value)
    what = spec.location + (f"#{spec.ref}" if spec.ref else "")
    name = re.sub(r"\.git$", "", spec.location.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1])
    if _is_local(spec.location):
        name = display_path(Path(spec.location).expanduser().resolve().name)
    if spec.subdir:
        name = PurePosixPath(spec.subdir).name
    with _repository(spec) as repo:
        try:
            commit = _git(
                ["rev-parse", "--verify", "--quiet", f"{spec.ref or 'HEAD'}^{{commit}}"],
                cwd=repo,
                what=what,
            ).strip()
        except SourceError:
            raise SourceError(
                f"git source {what}: no commit named {spec.ref or 'HEAD'!r} in the repository",
                hint="name an existing branch, tag or commit after # (git=REPO#REF)",
                path=spec.location,
            ) from None
        listing = _git_bytes(
            ["ls-tree", "-r", "-z", "--full-tree", commit, *([spec.subdir] if spec.subdir else [])],
            cwd=repo,
            what=what,
        )
        entries, skipped_links, skipped_names = _markdown_entries(listing)
        warn_skipped(f"git source {what}", skipped_links, skipped_names)
        blobs = _read_blobs(repo, [sha for _, sha in entries], what)

    base_url = _web_url(spec.location, commit)
    documents: list[Document] = []
    for (path, _sha), data in zip(entries, blobs, strict=True):
        rel = path[len(spec.subdir) + 1 :] if spec.subdir else path
        display = f"{what}:{path}"
        documents.append(
            markdown_document(
                rel,
                decode_utf8(data, display),
                source="git",
                publication=publication_for(rel, name),
                clean_gitbook=clean_gitbook,
                display_name=display,
                url=f"{base_url}/{path}" if base_url else "",
                extra={"commit": commit},
            )
        )
    if not documents:
        where = f" under {spec.subdir}/" if spec.subdir else ""
        raise SourceError(
            f"git source {what}: no markdown files{where} at commit {commit[:12]}",
            hint="check the ref and the subfolder (git=REPO#REF:SUBDIR)",
            path=spec.location,
        )
    description: dict[str, Any] = {
        "kind": "git",
        ("path" if _is_local(spec.location) else "url"): (
            display_path(Path(spec.location).expanduser().resolve())
            if _is_local(spec.location)
            else spec.location
        ),
        "ref": spec.ref or "HEAD",
        "commit": commit,
        "documents": len(documents),
        "clean_gitbook": clean_gitbook,
    }
    if spec.subdir:
        description["subdir"] = spec.subdir
    description["skipped_links"] = len(skipped_links)
    description["skipped_names"] = len(skipped_names)
    return documents, description


def _markdown_entries(listing: bytes) -> tuple[list[tuple[str, str]], list[str], list[str]]:
    """(path, blob sha) of the markdown files in `git ls-tree -r -z` output, sorted, and the
    committed symbolic links and non-UTF-8 names that were skipped."""
    entries: list[tuple[str, str]] = []
    skipped_links: list[str] = []
    skipped_names: list[str] = []
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, _, raw_path = record.partition(b"\t")
        mode, kind, sha = meta.decode("ascii").split()
        if kind != "blob":
            continue  # a submodule holds no markdown of this repository
        try:
            path = raw_path.decode("utf-8")
        except UnicodeDecodeError:
            path = ""
        display = raw_path.decode("utf-8", "backslashreplace")
        if mode == "120000":
            # A committed link may point anywhere once checked out (/etc/passwd, ../../x); like
            # the folder sources, never follow one (see safeio/files.py).
            skipped_links.append(display)
        elif is_markdown(display):
            if path:
                entries.append((path, sha))
            else:
                skipped_names.append(display)
    entries.sort()
    return entries, sorted(skipped_links), sorted(skipped_names)
