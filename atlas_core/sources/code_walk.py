"""Walking a code repository for the `code` source: which files are worth indexing, and why not.

Like every source it never follows a link and skips names that are not UTF-8 (see `files`). On top
of that it leaves out what a repository holds but nobody asks about:

- what git ignores: every `.gitignore` on the way down, each read relative to its own folder,
  with git's own rules (later patterns win, `!` re-includes, a re-include cannot reach into an
  ignored folder), and a `.atlasignore` in the same syntax for what is committed but not wanted;
- vendored and generated folders (`node_modules`, `vendor`, `.venv`, `dist`, `build`, ...);
- hidden folders (but `.github/`, `.gitlab/`, `.circleci/`) and hidden files, and files whose
  names say they hold credentials (`credentials`: `.env`, keys, `.netrc`, Terraform state, ...);
- lock files, minified bundles and source maps;
- generated code nobody searches by hand (`generated_reason`): protocol buffer and gRPC stubs by
  name (``*_pb2.py``, ``*.pb.go``, ...), and generated API models: a file that opens with a code
  generator's header (`looks_generated`) in a ``models``/``model`` folder or named ``model_*``.
  A generated client's operations (``api/``) stay in: they are what a team looks up. A ``!``
  line in ``.atlasignore`` (or ``.gitignore``) that names such a file takes it back in;
- binary files (a NUL byte in the first 8 KiB) and files over `max_bytes`.

Each skipped file is counted under its reason, so the build summary can say how many were left
out and why; the first few of each are named.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from atlas_core.errors import SourceError
from atlas_core.recognize import looks_generated
from atlas_core.safeio import display_path, is_utf8_name, unusable_name
from atlas_core.sources.credentials import CREDENTIALS_NAME, hidden_folder_reason, looks_secret
from atlas_core.sources.ignore_rules import (
    IGNORE_FILES,
    MAX_IGNORE_BYTES,
    MAX_IGNORE_LINES,
    IgnoreRules,
    TooManyPatterns,
)

MAX_BYTES = 1_000_000  # per file; larger sources are generated or data
# Files one index takes. A checkout past it is most likely a home folder or a monorepo whose
# every file would take hours to embed on a laptop: refused before anything is read.
MAX_FILES = 20_000
_SNIFF = 8192  # bytes read to tell text from binary
# A repository is untrusted input: a name or path past these cannot be written into a bundle's
# mirror (or read back) on every system, and a tree deeper than this is generated or hostile.
MAX_NAME_BYTES = 255
MAX_PATH_BYTES = 1024
MAX_DEPTH = 64
_MINIFIED_LINE = 1000  # a first-screen line this long in JS/CSS means a bundle, not source

VCS_FOLDERS = frozenset({".git", ".hg", ".svn"})  # never content, so not counted as skipped
_VENDORED_TEXT = """
    .git .hg .svn node_modules bower_components jspm_packages vendor third_party third-party
    .venv venv .tox .nox .mypy_cache .pytest_cache .ruff_cache __pycache__ site-packages
    dist build out target .gradle .next .nuxt .cache coverage htmlcov .terraform .idea .vscode
"""
VENDORED = frozenset(_VENDORED_TEXT.split())
_LOCK_TEXT = """
    package-lock.json npm-shrinkwrap.json yarn.lock pnpm-lock.yaml bun.lockb poetry.lock uv.lock
    Pipfile.lock pdm.lock Cargo.lock Gemfile.lock composer.lock go.sum gradle.lockfile
    packages.lock.json mix.lock
"""
LOCK_FILES = frozenset(_LOCK_TEXT.split())
_GENERATED_SUFFIXES = (".min.js", ".min.css", ".map", ".bundle.js", ".pyc", ".class", ".o")
# Generated code left out by default (see the module docstring); a `!` ignore line re-includes it.
GENERATED_STUBS = "generated protocol buffer or gRPC stub (a ! line in .atlasignore takes it in)"
GENERATED_MODEL = "generated API model (a ! line in .atlasignore takes it in)"
_STUB_NAMES = re.compile(r"(?:_pb2(?:_grpc)?\.pyi?|\.pb\.go|\.pb\.(?:cc|h)|_pb\.(?:js|d\.ts))$")
GENERATED_REASONS = (GENERATED_STUBS, GENERATED_MODEL)
MODEL_FOLDERS = frozenset({"models", "model"})
# Files that hold credentials, not code, are never read: see `credentials` (names, hidden folders
# and the content gate that `code` applies when it reads a file).

LANGUAGES = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".java": "java",
    ".groovy": "groovy",
    ".gradle": "groovy",
    ".go": "go",
    ".sh": "shell",
    ".bash": "shell",
    ".zsh": "shell",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".json": "json",
    ".md": "markdown",
    ".markdown": "markdown",
}


def language_of(path: str) -> str:
    """The language a file is chunked as, from its name; "text" for anything else."""
    return LANGUAGES.get(PurePosixPath(path).suffix.lower(), "text")


@dataclass(frozen=True, slots=True)
class CodeFile:
    path: Path
    rel: str  # POSIX path relative to the repository root
    language: str
    size: int


@dataclass(slots=True)
class CodeListing:
    """The files to index and what was skipped, by reason (display paths, sorted)."""

    files: list[CodeFile] = field(default_factory=list)
    skipped: dict[str, list[str]] = field(default_factory=dict)
    # Secret values replaced in files that were kept: kind -> a path per value.
    redacted: dict[str, list[str]] = field(default_factory=dict)

    def skip(self, reason: str, rel: str) -> None:
        self.skipped.setdefault(reason, []).append(rel)

    def redact(self, kind: str, rel: str) -> None:
        self.redacted.setdefault(kind, []).append(rel)

    def counts(self) -> dict[str, int]:
        """How many files each reason left out (for the manifest and the build summary)."""
        return {reason: len(entries) for reason, entries in sorted(self.skipped.items())}


def walk_repository(
    root: Path, *, max_bytes: int = MAX_BYTES, max_files: int = MAX_FILES
) -> CodeListing:
    """Every file of the repository at `root` worth indexing (sorted by path), and the rest by
    the reason it was skipped. SourceError when `root` is not a readable folder, or as soon as
    more than `max_files` files are worth indexing."""
    if not root.is_dir():
        raise SourceError(
            f"code source {display_path(root)}: not a folder",
            hint="pass --source code=PATH with the repository's folder",
            path=display_path(root),
        )
    listing = CodeListing()
    for path, rel, taken_back in _walk(root, listing):
        _consider(path, rel, listing, max_bytes, generated=not taken_back)
        if len(listing.files) > max_files:
            raise SourceError(
                f"code source {display_path(root)}: more than {max_files:,} files to index",
                hint="leave folders out with a .atlasignore (.gitignore syntax) at the "
                "repository root, index a subfolder, or raise the limit with --max-files",
                path=display_path(root),
            )
    listing.files.sort(key=lambda f: f.rel)
    for entries in listing.skipped.values():
        entries.sort()
    return listing


def _walk(root: Path, listing: CodeListing) -> Iterator[tuple[Path, str, bool]]:
    """(file, relative path, whether a `!` ignore line names it) of every file the rules keep."""
    top = _rules_in(root, "", IgnoreRules(), listing)
    # The last item: a `!` line took this folder back in (and so generated files in it).
    stack: list[tuple[Path, str, IgnoreRules, int, bool]] = (
        [] if top is None else [(root, "", top, 0, False)]
    )
    while stack:
        folder, base, rules, depth, taken = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            listing.skip(f"unreadable folder ({exc.strerror})", display_path(base or "."))
            continue
        for entry in entries:
            rel = f"{base}/{entry.name}" if base else entry.name
            shown = display_path(rel)
            if entry.is_symlink():
                listing.skip("symbolic link (never followed)", shown)
            elif not is_utf8_name(entry.name):
                listing.skip("name is not UTF-8", shown)
            elif odd := _odd_path(entry.name, rel, entry.is_dir(follow_symlinks=False)):
                listing.skip(odd, _printable(shown))
            elif entry.is_dir(follow_symlinks=False):
                if entry.name in VCS_FOLDERS:
                    continue
                if entry.name in VENDORED:
                    listing.skip("vendored or generated folder", shown + "/")
                elif hidden := hidden_folder_reason(entry.name):  # .aws, .ssh, .kube, ...
                    listing.skip(hidden, shown + "/")
                elif (decided := rules.decided_by(rel, is_dir=True)) and not decided[1].negated:
                    listing.skip("ignored (.gitignore or .atlasignore)", shown + "/")
                elif depth + 1 >= MAX_DEPTH:
                    listing.skip(f"deeper than {MAX_DEPTH} folders", shown + "/")
                else:
                    child = Path(entry.path)
                    inner = _rules_in(child, rel, rules, listing)
                    if inner is not None:
                        stack.append((child, rel, inner, depth + 1, taken or bool(decided)))
            elif entry.is_file(follow_symlinks=False):
                if entry.name in IGNORE_FILES:
                    continue
                decided = rules.decided_by(rel, is_dir=False)
                if decided is not None and not decided[1].negated:
                    listing.skip("ignored (.gitignore or .atlasignore)", shown)
                else:
                    yield Path(entry.path), rel, taken or decided is not None
            else:
                listing.skip("not a regular file", shown)


def _rules_in(
    folder: Path, rel: str, rules: IgnoreRules, listing: CodeListing
) -> IgnoreRules | None:
    """The ignore rules inside `folder`, or None when its ignore file is too big to apply (the
    folder is then left out: what the file ignores must not be indexed)."""
    try:
        inner, problems = rules.child(folder, rel)
    except TooManyPatterns as exc:
        listing.skip(
            f"{exc.name} over {MAX_IGNORE_LINES:,} lines or {MAX_IGNORE_BYTES >> 20} MiB",
            display_path(rel or ".") + "/",
        )
        return None
    for reason, name in problems:
        listing.skip(reason, display_path(f"{rel}/{name}" if rel else name))
    return inner


def _odd_path(name: str, rel: str, is_dir: bool) -> str | None:
    """Why a name or path cannot go into a bundle, or be read back from one on any system:
    the bundle's own rule (`unusable_name`, shared with the writer), then the lengths."""
    if why := unusable_name(name, is_file=not is_dir):
        return why
    if len(name.encode("utf-8")) > MAX_NAME_BYTES:
        return f"name longer than {MAX_NAME_BYTES} bytes"
    if len(rel.encode("utf-8")) > MAX_PATH_BYTES:
        return f"path longer than {MAX_PATH_BYTES:,} bytes"
    return None


def _printable(text: str) -> str:
    """A skipped name as it can be printed: control characters escaped, never sent raw to a
    terminal."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


def generated_reason(rel: str, head: bytes) -> str | None:
    """Why the file at `rel`, opening with `head`, is generated code left out by default, or
    None: stubs by name, API models by a generator's header where models live."""
    folders, _, name = rel.rpartition("/")
    if _STUB_NAMES.search(name):
        return GENERATED_STUBS
    in_models = any(part in MODEL_FOLDERS for part in folders.split("/")) or name.startswith(
        "model_"
    )
    if in_models and looks_generated(head.decode("utf-8", "replace")):
        return GENERATED_MODEL
    return None


def _consider(
    path: Path, rel: str, listing: CodeListing, max_bytes: int, *, generated: bool = True
) -> None:
    """Keep the file at `rel` or skip it with the reason; `generated`: leave generated code out
    (False for a file a `!` ignore line takes back in)."""
    name = path.name
    if name in LOCK_FILES:
        listing.skip("lock file", rel)
        return
    if looks_secret(name):
        listing.skip(CREDENTIALS_NAME, rel)
        return
    if name.startswith("."):  # tool settings (.eslintrc.js, .prettierrc); bundles hold no dot-files
        listing.skip("hidden file", rel)
        return
    if name.lower().endswith(_GENERATED_SUFFIXES):
        listing.skip("minified, compiled or source map", rel)
        return
    try:
        size = path.stat().st_size
        with path.open("rb") as handle:
            head = handle.read(_SNIFF)
    except OSError as exc:  # vanished or unreadable since it was listed
        listing.skip(f"unreadable ({exc.strerror})", rel)
        return
    if size > max_bytes:
        listing.skip(f"larger than {max_bytes:,} bytes", rel)
        return
    if b"\0" in head:
        listing.skip("binary", rel)
        return
    language = language_of(rel)
    bundled = language in ("javascript", "typescript", "tsx") or name.endswith(".css")
    if bundled and any(len(line) > _MINIFIED_LINE for line in head.splitlines()[:-1]):
        listing.skip("minified, compiled or source map", rel)
        return
    if generated and (why := generated_reason(rel, head)):
        listing.skip(why, rel)
        return
    listing.files.append(CodeFile(path, rel, language, size))
