"""`atlas index --explain PATH`: whether each file under PATH would be indexed, and if not, why.

The answer is the build's own: the same walk (`code_walk`) and the same read and credentials gate
(`code.read_code_file`), so what it says is what `atlas index` does. A redaction is told by line
and kind, never by value.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from atlas_core.errors import ConfigError
from atlas_core.safeio import display_path
from atlas_core.sources.code import read_code_file
from atlas_core.sources.code_walk import CodeListing, walk_repository
from atlas_core.sources.credentials import Redaction
from atlas_core.sources.ignore_rules import ignoring_line

IGNORED = "ignored (.gitignore"  # the walker's reason for what an ignore file leaves out


@dataclass(frozen=True, slots=True)
class Explanation:
    """One file's fate: indexed (perhaps with `redactions`), or `reason` it is left out."""

    rel: str
    indexed: bool
    reason: str = ""
    redactions: tuple[Redaction, ...] = ()

    def line(self) -> str:
        """`src/a.py: indexed`, `... indexed, 1 value redacted (line 3: github token)`,
        `.aws/credentials: not indexed: hidden folder (.aws/)`."""
        where = ", ".join(
            (f"lines {r.line}-{r.end_line}" if r.end_line != r.line else f"line {r.line}")
            + f": {r.kind}"
            for r in self.redactions
        )
        if self.indexed:
            if not self.redactions:
                return f"{self.rel}: indexed"
            return f"{self.rel}: indexed, {len(self.redactions)} value(s) redacted ({where})"
        return f"{self.rel}: not indexed: {self.reason}" + (f" ({where})" if where else "")

    def as_dict(self) -> dict[str, object]:
        return {
            "path": self.rel,
            "indexed": self.indexed,
            "reason": self.reason,
            "redacted": [
                {"kind": r.kind, "line": r.line, "end_line": r.end_line} for r in self.redactions
            ],
        }


def explain_indexing(root: Path, path: Path) -> list[Explanation]:
    """What `atlas index` does with the file `path`, or each file under the folder `path`, of
    the repository at `root`. A ConfigError when `path` is outside `root` or does not exist."""
    root = root.resolve()
    target = Path(path).expanduser().absolute()
    try:
        rel = target.resolve().relative_to(root).as_posix() if target.exists() else ""
    except ValueError:
        rel = None
    if rel is None or not target.exists():
        what = "is outside the repository" if rel is None else "does not exist"
        raise ConfigError(
            f"--explain {display_path(target)} {what} {display_path(root)}",
            hint="name a file or folder inside the repository being indexed",
            path=display_path(target),
        )
    rel = "" if rel == "." else rel
    listing = walk_repository(root, max_files=sys.maxsize)
    folder = target.is_dir() and not target.is_symlink()
    found = [_with_ignore_line(root, e) for e in _skipped_under(listing, rel, folder)]
    for file in listing.files:
        if file.rel == rel or (folder and (not rel or file.rel.startswith(rel + "/"))):
            verdict = read_code_file(file.path, file.rel, file.language)
            if verdict.skip is None and not verdict.text.strip() and file.language != "markdown":
                found.append(Explanation(file.rel, False, "empty"))
            elif verdict.skip is None:
                found.append(Explanation(file.rel, True, redactions=verdict.redactions))
            else:
                found.append(Explanation(file.rel, False, verdict.skip, verdict.redactions))
    if not found:  # inside a skipped folder, or a folder holding nothing to index
        inside = _inside_skipped(listing, rel)
        if inside is not None:
            folder_entry = inside.reason.rsplit("(", 1)[-1].rstrip(")")
            line = ignoring_line(root, folder_entry.rstrip("/"), is_dir=True)
            if line is not None and inside.reason.startswith(IGNORED):
                inside = Explanation(rel, False, f"ignored by {line} ({folder_entry})")
        found.append(inside or Explanation(rel or ".", False, "no files"))
    return sorted(found, key=lambda e: e.rel)


def _with_ignore_line(root: Path, found: Explanation) -> Explanation:
    """An ignored entry names the ignore file and line that leave it out."""
    if not found.reason.startswith(IGNORED):
        return found
    line = ignoring_line(root, found.rel.rstrip("/"), is_dir=found.rel.endswith("/"))
    return found if line is None else Explanation(found.rel, False, f"ignored by {line}")


def _skipped_under(listing: CodeListing, rel: str, folder: bool) -> list[Explanation]:
    found = []
    for reason, entries in listing.skipped.items():
        for entry in entries:
            name = entry.rstrip("/")
            if name == rel or (folder and (not rel or name.startswith(rel + "/"))):
                found.append(Explanation(entry, False, reason))
    return found


def _inside_skipped(listing: CodeListing, rel: str) -> Explanation | None:
    """The skipped folder `rel` lies in, as the reason it is not indexed."""
    for reason, entries in listing.skipped.items():
        for entry in entries:
            if entry.endswith("/") and rel.startswith(entry):
                return Explanation(rel, False, f"{reason} ({entry})")
    return None
