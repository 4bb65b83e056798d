"""git's ignore rules (`.gitignore`, and `.atlasignore` in the same syntax), matched in linear time.

A repository is not trusted input: a cloned one can carry a `.gitignore` line such as
`*a*a*a*a*a*a*a*a*a*a*b`, which a backtracking regular expression takes minutes to try on one long
name. Here no pattern is ever run as a regular expression with more than one star. A glob for one
path component is cut at its stars into fixed-length pieces; the first piece must match at the
start, the last at the end, and each middle one is taken at its leftmost place after the one before
(for fixed-length pieces, leftmost is never worse), so a component costs O(len(name) * len(glob))
at most. A `**` component stands for any number of path components and is matched the same way one
level up: the classic wildcard match with backtracking to the last star only.

The semantics are git's (`git check-ignore` agrees on every case the tests hold): a line's trailing
spaces are dropped unless escaped, `#` starts a comment, `!` re-includes, a trailing `/` matches
folders only, a pattern without a `/` matches a name at any depth, one with a `/` is anchored to its
file's folder, `*` `?` `[...]` never match a `/`, `**` matches across folders only as a whole
component, `\\` escapes, later lines win and a deeper file wins over a shallower one. Matching is on
UTF-8 bytes, as git's is (`?` is one byte). That a re-include cannot reach into an ignored folder
is the walker's part: it never enters one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

IGNORE_FILES = (".gitignore", ".atlasignore")
# An ignore file is tried against every name below its folder: a bigger one is a hostile or
# generated file, not a list anyone keeps by hand (large real ones hold a few hundred lines).
MAX_IGNORE_BYTES = 1 << 20
MAX_IGNORE_LINES = 5_000

# POSIX classes inside brackets (`[[:digit:]]`), by the bytes they hold (ASCII, as git's are).
_POSIX_CLASSES: dict[str, frozenset[int]] = {
    "alnum": frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"),
    "alpha": frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"),
    "blank": frozenset(b" \t"),
    "cntrl": frozenset([*range(32), 127]),
    "digit": frozenset(b"0123456789"),
    "graph": frozenset(range(33, 127)),
    "lower": frozenset(b"abcdefghijklmnopqrstuvwxyz"),
    "print": frozenset(range(32, 127)),
    "punct": frozenset(b"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
    "space": frozenset(b" \t\n\v\f\r"),
    "upper": frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
    "xdigit": frozenset(b"0123456789ABCDEFabcdef"),
}
_SLASH = ord("/")


class _Malformed(ValueError):
    """A bracket that is never closed or names no POSIX class: git's pattern then matches nothing."""


# Tokens of a pattern: a byte value (literal), "?" (any one byte), a frozenset (a bracket's
# bytes), "/" (a folder separator) or an int-free marker for a run of stars.
_STAR = "*"
_STARSTAR = "**"
_ANY = "?"
_SEP = "/"
_Token = int | str | frozenset[int]


def _tokens(pattern: bytes) -> list[_Token]:
    out: list[_Token] = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == ord("\\"):
            if i + 1 == n:  # a trailing backslash escapes nothing: git never matches the line
                raise _Malformed("trailing backslash")
            out.append(_SEP if pattern[i + 1] == _SLASH else pattern[i + 1])
            i += 2
        elif ch == ord("*"):
            j = i
            while j < n and pattern[j] == ord("*"):
                j += 1
            out.append(_STARSTAR if j - i > 1 else _STAR)
            i = j
        elif ch == ord("?"):
            out.append(_ANY)
            i += 1
        elif ch == ord("["):
            members, i = _bracket(pattern, i + 1)
            out.append(members)
        elif ch == _SLASH:
            out.append(_SEP)
            i += 1
        else:
            out.append(ch)
            i += 1
    return out


def _bracket(pattern: bytes, i: int) -> tuple[frozenset[int], int]:
    """The bytes a `[...]` starting just after `[` at `i` matches, and where the pattern goes on
    (git's wildmatch: `!` or `^` negates, a first `]` is a member, `a-z` ranges, `\\` escapes,
    `[:name:]` classes)."""
    n = len(pattern)
    negated = i < n and pattern[i] in b"!^"
    if negated:
        i += 1
    members: set[int] = set()
    first = True
    prev: int | None = None
    while True:
        if i >= n:
            raise _Malformed("unclosed [")
        ch = pattern[i]
        if ch == ord("]") and not first:
            i += 1
            break
        first = False
        if ch == ord("\\"):
            i += 1
            if i >= n:
                raise _Malformed("unclosed [")
            ch = pattern[i]
            members.add(ch)
            prev = ch
            i += 1
        elif ch == ord("-") and prev is not None and i + 1 < n and pattern[i + 1] != ord("]"):
            i += 1
            high = pattern[i]
            if high == ord("\\"):
                i += 1
                if i >= n:
                    raise _Malformed("unclosed [")
                high = pattern[i]
            members.update(range(prev, high + 1))
            prev = None  # a range ends what a `-` can extend
            i += 1
        elif ch == ord("[") and i + 1 < n and pattern[i + 1] == ord(":"):
            end = pattern.find(b"]", i + 2)
            if end < 0 or pattern[end - 1] != ord(":") or end - 1 < i + 2:
                members.add(ch)  # no `:]` ahead: a plain `[`
                prev = ch
                i += 1
                continue
            name = pattern[i + 2 : end - 1].decode("ascii", "replace")
            if name not in _POSIX_CLASSES:
                raise _Malformed(f"unknown class [:{name}:]")
            members.update(_POSIX_CLASSES[name])
            prev = None
            i = end + 1
        else:
            members.add(ch)
            prev = ch
            i += 1
    chosen = frozenset(range(256)) - members if negated else frozenset(members)
    return chosen - {_SLASH}, i


@dataclass(frozen=True, slots=True)
class _Piece:
    """A run of a glob without stars: fixed length, literal bytes or a star-free regex."""

    size: int
    literal: bytes | None
    regex: re.Pattern[bytes] | None

    def at(self, name: bytes, pos: int) -> bool:
        if self.literal is not None:
            return name.startswith(self.literal, pos)
        assert self.regex is not None
        return self.regex.match(name, pos) is not None

    def find(self, name: bytes, start: int, end: int) -> int:
        if self.literal is not None:
            return name.find(self.literal, start, end)
        assert self.regex is not None
        found = self.regex.search(name, start, end)
        return -1 if found is None else found.start()


def _piece(tokens: Sequence[_Token]) -> _Piece:
    if all(isinstance(t, int) for t in tokens):
        return _Piece(len(tokens), bytes(t for t in tokens if isinstance(t, int)), None)
    parts: list[bytes] = []
    for token in tokens:
        if isinstance(token, int):
            parts.append(re.escape(bytes([token])))
        elif token == _ANY:
            parts.append(b"[^/]")
        elif isinstance(token, frozenset):
            members = b"".join(re.escape(bytes([b])) for b in sorted(token))
            parts.append(b"[" + members + b"]" if members else b"(?!)")
    # DOTALL: a name may hold a newline; there is no `*` or `+` here, so nothing can backtrack.
    return _Piece(len(tokens), None, re.compile(b"".join(parts), re.DOTALL))


@dataclass(frozen=True, slots=True)
class _Glob:
    """A glob for one path component: the pieces between its stars."""

    pieces: tuple[_Piece, ...]

    def match(self, name: bytes) -> bool:
        first, last = self.pieces[0], self.pieces[-1]
        if len(self.pieces) == 1:
            return len(name) == first.size and first.at(name, 0)
        end = len(name) - last.size
        if end < first.size or not first.at(name, 0) or not last.at(name, end):
            return False
        pos = first.size
        for piece in self.pieces[1:-1]:
            found = piece.find(name, pos, end)
            if found < 0:
                return False
            pos = found + piece.size
        return True


def _glob(tokens: Sequence[_Token]) -> _Glob:
    pieces: list[_Piece] = []
    run: list[_Token] = []
    for token in tokens:
        if token in (_STAR, _STARSTAR):  # inside a component `**` is one `*`
            pieces.append(_piece(run))
            run = []
        else:
            run.append(token)
    pieces.append(_piece(run))
    return _Glob(tuple(pieces))


_ANY_NAME = _glob([_STAR])
_NO_NAME = _Glob((_Piece(-1, b"", None),))  # past the last segment: matches no component
_Segment = _Glob | None  # None: `**`, any number of components (zero included)


def _match_components(segments: Sequence[_Segment], parts: Sequence[bytes]) -> bool:
    """Wildcard match over path components with backtracking to the last `**` only:
    O(len(parts) * len(segments)) component matches at most."""
    s = p = 0
    star_s = star_p = -1
    while p < len(parts):
        segment = segments[s] if s < len(segments) else _NO_NAME
        if segment is None:
            star_s, star_p = s, p
            s += 1
        elif segment.match(parts[p]):
            s += 1
            p += 1
        elif star_s >= 0:
            star_p += 1
            s, p = star_s + 1, star_p
        else:
            return False
    return all(segment is None for segment in segments[s:])


@dataclass(frozen=True, slots=True)
class Pattern:
    """One line of an ignore file."""

    text: str  # the line as written, for messages
    line: int
    negated: bool
    dir_only: bool
    anywhere: bool  # no `/`: matched against the last component at any depth
    segments: tuple[_Segment, ...]
    lead: bytes | None = None  # see `_lead_then_starstar`

    def matches(self, parts: Sequence[bytes], is_dir: bool) -> bool:
        if self.dir_only and not is_dir:
            return False
        if self.anywhere:
            segment = self.segments[0]
            return segment is not None and segment.match(parts[-1])
        if self.lead is not None:
            return self._after_lead(b"/".join(parts))
        return _match_components(self.segments, parts)

    def _after_lead(self, path: bytes) -> bool:
        if not path.startswith(self.lead or b""):
            return False
        if not self.segments:  # the `**` ends the pattern: anything after the lead
            return True
        rest = path[len(self.lead or b"") :].split(b"/")
        # The `**/` matches nothing, or anything up to a `/` (the rest of this component too).
        return _match_components(self.segments, rest) or _match_components(
            (_ANY_NAME, None, *self.segments), rest
        )


def parse_line(raw: str, line: int) -> Pattern | None:
    """The pattern of one ignore-file line, or None for a blank line, a comment, or a line git
    never matches anything with (an unclosed `[`, a trailing backslash)."""
    text = raw[:-1] if raw.endswith("\r") else raw
    if not text or text.startswith("#"):
        return None
    data = _trim_trailing_spaces(text.encode("utf-8", "surrogateescape"))
    negated = data.startswith(b"!")
    if negated:
        data = data[1:]
    dir_only = data.endswith(b"/")
    if dir_only:
        data = data[:-1]
    if not data:
        return None
    anywhere = b"/" not in data
    if data.startswith(b"/"):
        data = data[1:]
    lead = None if anywhere else _lead_then_starstar(data)
    if lead is not None:
        data = data[len(lead) :].lstrip(b"*").removeprefix(b"\\").removeprefix(b"/")
    try:
        tokens = _tokens(data) if data or lead is None else []
    except _Malformed:
        return None
    if lead is not None and not tokens:
        return Pattern(text, line, negated, dir_only, anywhere, (), lead)
    segments: list[_Segment] = []
    run: list[_Token] = []
    for token in [*tokens, _SEP]:
        if token != _SEP:
            run.append(token)
        elif run == [_STARSTAR] and not anywhere:
            segments.append(None)
            run = []
        else:
            segments.append(_glob(run))
            run = []
    if not anywhere and segments[-1] is None:
        segments[-1:] = [_ANY_NAME, None]  # a trailing `/**` needs something inside the folder
    return Pattern(text, line, negated, dir_only, anywhere, tuple(segments), lead)


def _lead_then_starstar(data: bytes) -> bytes | None:
    """git matches an anchored pattern by comparing its text up to the first wildcard, then
    matching the rest as a pattern of its own, so a `**` right after that text counts as at the
    pattern's start: `a**/b` matches `a/b`, `ax/b` and `ax/y/b`. The text before such a `**`
    (followed by a `/` or the end), or None for every other pattern."""
    cut = len(data)
    for wildcard in b"*?[\\":
        found = data.find(bytes([wildcard]))
        if found >= 0:
            cut = min(cut, found)
    if cut == 0 or data[cut - 1] == _SLASH or not data.startswith(b"**", cut):
        return None
    after = data[cut:].lstrip(b"*")
    return data[:cut] if after in (b"", b"/") or after.startswith((b"/", b"\\/")) else None


def _trim_trailing_spaces(data: bytes) -> bytes:
    """git drops a line's trailing spaces (not tabs), except one escaped with a backslash."""
    last_space: int | None = None
    i = 0
    while i < len(data):
        if data[i] == ord(" "):
            if last_space is None:
                last_space = i
        elif data[i] == ord("\\"):
            i += 1
            if i >= len(data):
                return data
            last_space = None
        else:
            last_space = None
        i += 1
    return data if last_space is None else data[:last_space]


@dataclass(frozen=True, slots=True)
class IgnoreFile:
    """The patterns of one ignore file; `base` is its folder relative to the root ("" at the top)."""

    base: str
    patterns: tuple[Pattern, ...]
    name: str = ".gitignore"  # which of IGNORE_FILES, for `atlas index --explain`

    @classmethod
    def parse(cls, base: str, lines: Iterable[str], name: str = ".gitignore") -> IgnoreFile:
        found = (parse_line(raw, number) for number, raw in enumerate(lines, 1))
        return cls(base, tuple(p for p in found if p is not None), name)

    def verdict(self, rel: str, is_dir: bool) -> Pattern | None:
        """The last pattern of this file that matches `rel`, if any."""
        if self.base:
            if not rel.startswith(self.base + "/"):
                return None
            rel = rel[len(self.base) + 1 :]
        parts = rel.encode("utf-8", "surrogateescape").split(b"/")
        for pattern in reversed(self.patterns):
            if pattern.matches(parts, is_dir):
                return pattern
        return None


@dataclass(frozen=True, slots=True)
class IgnoreRules:
    """The ignore files met on the way down to a folder, shallowest first."""

    files: tuple[IgnoreFile, ...] = ()

    def child(self, folder: Path, rel: str) -> tuple[IgnoreRules, list[tuple[str, str]]]:
        """The rules inside `folder` (at `rel` from the root): these plus its own ignore files,
        and the ignore files that could not be read, as `(reason, file name)`. Raises
        TooManyPatterns for an ignore file too big to try against every name below it."""
        files = list(self.files)
        problems: list[tuple[str, str]] = []
        for name in IGNORE_FILES:
            path = folder / name
            try:
                if path.is_symlink() or not path.is_file():
                    continue
                with path.open("rb") as handle:
                    data = handle.read(MAX_IGNORE_BYTES + 1)
            except OSError as exc:  # an unreadable ignore file
                problems.append((f"unreadable {name} ({exc.strerror})", name))
                continue
            lines = data.decode("utf-8", "replace").split("\n")
            if len(data) > MAX_IGNORE_BYTES or len(lines) > MAX_IGNORE_LINES:
                raise TooManyPatterns(name)
            files.append(IgnoreFile.parse(rel, lines, name))
        return IgnoreRules(tuple(files)), problems

    def ignored(self, rel: str, is_dir: bool) -> bool:
        """git's answer for `rel`: the deepest ignore file with an opinion decides, and in it
        the last matching line."""
        decided = self.decided_by(rel, is_dir)
        return decided is not None and not decided[1].negated

    def decided_by(self, rel: str, is_dir: bool) -> tuple[IgnoreFile, Pattern] | None:
        """The ignore file and line that decide `rel`, if any does."""
        for ignore_file in reversed(self.files):
            pattern = ignore_file.verdict(rel, is_dir)
            if pattern is not None:
                return ignore_file, pattern
        return None


def ignoring_line(root: Path, rel: str, is_dir: bool) -> str | None:
    """Which ignore file and line leave `rel` (relative to `root`) out, as `src/.gitignore:3:
    *.log`, for `atlas index --explain`: the line that ignores `rel` or the first folder on
    the way to it; None when no ignore file does."""
    rules = IgnoreRules()
    parts = rel.split("/")
    for depth in range(len(parts)):
        folder = "/".join(parts[:depth])
        try:
            rules, _ = rules.child(root / folder if folder else root, folder)
        except TooManyPatterns:
            return None
        here = "/".join(parts[: depth + 1])
        decided = rules.decided_by(here, is_dir or depth < len(parts) - 1)
        if decided is not None and not decided[1].negated:
            ignore_file, pattern = decided
            base = ignore_file.base
            where = f"{base}/{ignore_file.name}" if base else ignore_file.name
            return f"{where}:{pattern.line}: {pattern.text}"
    return None


class TooManyPatterns(Exception):
    """An ignore file over MAX_IGNORE_BYTES or MAX_IGNORE_LINES: every name below its folder
    would be tried against every line. The walker leaves that folder out (what it ignores must
    stay out, so the file is not dropped instead)."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name
