"""`code` source: a repository's source files, for a project index beside the vendor docs.

The spec is ``code=PATH`` (the working tree as git sees it, see `code_walk`) or
``code=PATH_OR_URL#REF[:SUBDIR]`` (the files of one commit, exported with ``git archive``; the
working tree is never touched). Source files become documents whose text is the file as it is
(LF line ends) with every secret value replaced by a marker, or no document at all when the file
is a credential store (`credentials.scan_file`); the build chunks them by definition
(`atlas_core.code`). Markdown files of the
repository go through the markdown pipeline like a `local` source's.

Whatever cannot be read is skipped and counted by reason, never a reason to fail the build: a file
that vanished or changed into something else since the listing, an unreadable one, text that is
not UTF-8. The source description (and so the manifest and the build summary) says how many files
each reason left out and how many values of each kind were redacted, and names the first few.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import Any

from atlas_core.errors import SourceError
from atlas_core.markdown import markdown_document
from atlas_core.safeio import display_path, read_regular_file
from atlas_core.sources.code_walk import MAX_FILES, CodeListing, walk_repository
from atlas_core.sources.credentials import FileVerdict, scan_file
from atlas_core.types import Document

log = logging.getLogger(__name__)

SOURCE = "code"
NAMED_PER_REASON = 5  # skipped files named per reason in the description
_ARCHIVE_TIMEOUT_S = 600


def load_code(value: str, *, max_files: int | None = None) -> tuple[list[Document], dict[str, Any]]:
    """The documents of a `code` source and its description (see the module docstring); a
    SourceError, before any file is read, when more than `max_files` (default `MAX_FILES`)
    files are to be indexed."""
    max_files = MAX_FILES if max_files is None else max_files
    if "#" in value:
        return _load_commit(value, max_files)
    root = Path(value).expanduser()
    documents, description = _load_tree(root, project_name(root), max_files)
    description["path"] = display_path(root.resolve())
    return documents, description


def project_name(root: Path) -> str:
    """The name a project's bundle and its results carry: the repository folder's name."""
    return root.expanduser().resolve().name or "project"


def _load_tree(root: Path, name: str, max_files: int) -> tuple[list[Document], dict[str, Any]]:
    listing = walk_repository(root, max_files=max_files)
    documents: list[Document] = []
    for file in listing.files:
        doc = _document(file.path, file.rel, file.language, name, listing)
        if doc is not None:
            documents.append(doc)
    skipped = listing.counts()
    if listing.redacted:
        log.warning(
            "code source %s: redacted %d secret value(s) in %d file(s); "
            "atlas index --explain PATH shows where",
            display_path(root),
            sum(len(paths) for paths in listing.redacted.values()),
            len({p for paths in listing.redacted.values() for p in paths}),
        )
    if skipped:
        total = sum(skipped.values())
        log.warning(
            "code source %s: skipped %d file(s): %s",
            display_path(root),
            total,
            ", ".join(f"{n} {reason}" for reason, n in skipped.items()),
        )
    description: dict[str, Any] = {
        "kind": SOURCE,
        "name": name,
        "documents": len(documents),
        "languages": _languages(documents),
        "skipped": skipped,
        "skipped_files": {
            reason: entries[:NAMED_PER_REASON] for reason, entries in listing.skipped.items()
        },
        # Always present: a project bundle without it was built before files were scanned.
        "redacted": {kind: len(paths) for kind, paths in sorted(listing.redacted.items())},
        "redacted_files": {
            kind: sorted(set(paths))[:NAMED_PER_REASON]
            for kind, paths in sorted(listing.redacted.items())
        },
    }
    return documents, description


def read_code_file(path: Path, rel: str, language: str) -> FileVerdict:
    """A listed file's text (UTF-8, LF line ends) after the credentials gate, or why it is
    skipped (`FileVerdict.skip`): changed since the listing, binary, not UTF-8, a credential
    store."""
    try:
        data = read_regular_file(path, rel)
    except SourceError as exc:  # vanished, became a link or a FIFO since the listing
        why = exc.message.split(": ", 1)[-1]
        return FileVerdict("", skip=f"changed or vanished while indexing ({why})")
    if b"\0" in data:
        return FileVerdict("", skip="binary")
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        return FileVerdict("", skip="not UTF-8 text")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    # Before the text goes anywhere (chunks, mirror, identifier, mention and keyword indexes).
    return scan_file(text, language)


def _document(
    path: Path, rel: str, language: str, name: str, listing: CodeListing
) -> Document | None:
    verdict = read_code_file(path, rel, language)
    if verdict.skip is not None:
        listing.skip(verdict.skip, rel)
        return None
    for redaction in verdict.redactions:
        listing.redact(redaction.kind, rel)
    text = verdict.text
    if language == "markdown":
        return markdown_document(
            rel,
            text,
            source=SOURCE,
            publication=name,
            clean_gitbook=False,
            display_name=rel,
            extra={"language": language},
        )
    if not text.strip():
        listing.skip("empty", rel)
        return None
    return Document(
        path=rel,
        publication=name,
        title=rel,
        url="",
        text=text,
        source=SOURCE,
        metadata={"language": language},
    )


def _languages(documents: list[Document]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for doc in documents:
        language = str(doc.metadata.get("language", "text"))
        counts[language] = counts.get(language, 0) + 1
    return dict(sorted(counts.items()))


def _load_commit(value: str, max_files: int) -> tuple[list[Document], dict[str, Any]]:
    from atlas_core.sources.git import _git, _is_local, _repository, parse_git_spec

    spec = parse_git_spec(value)
    what = f"{spec.location}#{spec.ref or 'HEAD'}"
    base = Path(spec.location).expanduser().resolve().name if _is_local(spec.location) else ""
    name = PurePosixPath(spec.subdir).name if spec.subdir else base
    name = name or spec.location.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git")
    with _repository(spec) as repo, _exported(repo, spec.ref or "HEAD", what) as tree:
        commit = _git(["rev-parse", f"{spec.ref or 'HEAD'}^{{commit}}"], cwd=repo, what=what)
        root = tree / spec.subdir if spec.subdir else tree
        if not root.is_dir():
            raise SourceError(
                f"code source {what}: no folder {spec.subdir!r} at that commit",
                hint="check the subfolder after the ref (code=REPO#REF:SUBDIR)",
                path=spec.location,
            )
        documents, description = _load_tree(root, name, max_files)
    description.update(
        {
            ("path" if _is_local(spec.location) else "url"): (
                display_path(Path(spec.location).expanduser().resolve())
                if _is_local(spec.location)
                else spec.location
            ),
            "ref": spec.ref or "HEAD",
            "commit": commit.strip(),
        }
    )
    if spec.subdir:
        description["subdir"] = spec.subdir
    return documents, description


@contextmanager
def _exported(repo: Path, ref: str, what: str) -> Iterator[Path]:
    """The tracked files of `ref` in a temporary folder (``git archive``, extracted with the
    tar data filter: no links out, no absolute or ``..`` paths, no device files)."""
    tmp = Path(tempfile.mkdtemp(prefix="atlas-code-"))
    try:
        archive = tmp / "tree.tar"
        with archive.open("wb") as out:
            proc = subprocess.run(
                ["git", "archive", "--format=tar", f"{ref}^{{commit}}"],
                cwd=repo,
                stdout=out,
                stderr=subprocess.PIPE,
                timeout=_ARCHIVE_TIMEOUT_S,
                check=False,
            )
        if proc.returncode != 0:
            reason = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            raise SourceError(
                f"code source {what}: cannot export that commit ({reason[-1] if reason else '?'})",
                hint="name an existing branch, tag or commit after # (code=REPO#REF)",
            )
        tree = tmp / "tree"
        tree.mkdir()
        with tarfile.open(archive) as tar:
            tar.extractall(tree, filter="data")
        archive.unlink()
        yield tree
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
