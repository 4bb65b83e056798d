"""Chunking a source file by definition: one piece per function, method, class head, type or
top-level key, top-level code between them packed into "module" pieces, every piece within the
embedding budget that `fits` states.

How it works, for every language alike: the nodes of one level (the file's top-level nodes, a
class body, a function) are laid over whole lines ("tiled": each line goes to exactly one node,
blank lines to the node before them, a comment or decorator directly above a definition to the
definition). Definitions among them become pieces of their own; the rest is packed greedily into
pieces of the enclosing definition (or of the module). A node too long for one piece is replaced
by its children, tiled the same way, so a long function is split at its statements and a long
statement at its blocks (the head line of a block, `for row in rows:`, staying with the block's
first lines); a node with no children is cut into lines, a line into characters.
"""

from __future__ import annotations

import logging
from bisect import bisect_right
from dataclasses import dataclass
from typing import TYPE_CHECKING

from atlas_core.code.definitions import (
    COMMENTS,
    MEMBER_GROUPS,
    Definition,
    Scope,
    definition,
    opened_body,
    top_level_nodes,
)
from atlas_core.code.grammars import ParseFailed, error_share, grammar, parse
from atlas_core.code.pieces import CodeChunking, CodePiece, Fits, Lines, cut_line, with_header
from atlas_core.code.windows import line_windows
from atlas_core.syntax import Document

if TYPE_CHECKING:
    from tree_sitter import Node

log = logging.getLogger(__name__)

# A parse whose ERROR nodes cover more of the file than this is not trusted to find definitions.
MAX_ERROR_SHARE = 0.3
# A split definition's later parts carry at most this many signature lines as their header.
MAX_HEADER_LINES = 8
_MODULE_SCOPE = Scope()
# How many atoms one look-ahead may take into a piece at once.
_MAX_TAKE = 256
# Text made of these characters alone (a class's closing brace) joins the piece before it.
_CLOSERS = frozenset("})];, \t")
_OPENERS = frozenset("{[(- \t\ufeff")  # a byte-order mark can lead a file's first bracket


def chunk_code(text: str, language: str, *, fits: Fits) -> CodeChunking:
    """`text` (a whole file in `language`, as `language_of` names it) cut into pieces that each
    satisfy `fits`. Never raises: without a grammar, when tree-sitter fails, or when most of the
    file does not parse, the pieces are line windows and `fallback` says why."""
    if not text.strip():
        return CodeChunking([])
    lang = grammar(language)
    if lang is None:
        return CodeChunking(line_windows(text, fits=fits), f"no grammar for {language}")
    document = Document(text)
    try:
        tree = parse(document, language, lang)
    except (ParseFailed, ValueError, RuntimeError) as exc:
        reason = f"tree-sitter failed: {exc}"
        return CodeChunking(line_windows(text, fits=fits), reason)
    share = error_share(tree.root_node, len(document.data))
    if share > MAX_ERROR_SHARE:
        reason = f"parse errors over {MAX_ERROR_SHARE:.0%} of the file"
        return CodeChunking(line_windows(text, fits=fits), reason)
    try:
        pieces = _Chunker(text, document, language, fits).chunk(tree.root_node)
        return CodeChunking(pieces, parsed=(document, tree))
    except Exception as exc:  # a bug here must not lose the file: log it, index it in windows
        log.exception("chunking a %s file by definition failed", language)
        return CodeChunking(line_windows(text, fits=fits), f"chunker failed: {exc}")


@dataclass(slots=True)
class _Atom:
    """Lines `start`..`end` (0-based, inclusive) of one level, and the node they hold (None for
    plain lines)."""

    start: int
    end: int
    node: Node | None = None
    definition: Definition | None = None
    # The first line of the compound statement this atom is the block of (-1: none): a part
    # that would end on `for row in rows:` leaves that line to the part holding the loop's body.
    head: int = -1


@dataclass(slots=True, eq=False)
class _Owner:
    """What a run of pieces belongs to: a definition, or the module."""

    kind: str
    symbol: str = ""
    parent: str = ""
    definition: Definition | None = None
    header: str | None = None  # the signature, read when a second piece needs it
    pieces: int = 0
    scope: Scope = _MODULE_SCOPE


@dataclass(slots=True)
class _Span:
    start: int
    end: int
    owner: _Owner
    index: int  # among the owner's pieces
    text: str | None = None  # a stretch of one over-long line; None: lines start..end


class _Chunker:
    def __init__(self, text: str, document: Document, language: str, fits: Fits) -> None:
        self.lines = Lines(text)
        self.starts = document.byte_starts
        self.data = document.data
        self.language = language
        self.fits = fits
        self.spans: list[_Span] = []
        self._last_fit: tuple[object, bool] = (None, False)

    def chunk(self, root: Node) -> list[CodePiece]:
        module = _Owner("module")
        top = self._tile(
            0, len(self.lines) - 1, top_level_nodes(root, self.language), Scope(top=True)
        )
        self._pack(top, module, "")
        return [self._piece(span) for span in self.spans]

    # --- lines --------------------------------------------------------------------------------

    def _line(self, offset: int) -> int:
        return bisect_right(self.starts, offset) - 1

    def _lines_of(self, node: Node) -> tuple[int, int]:
        start = node.start_byte
        # A node ending with its newline (a Groovy import) ends on the line before.
        return self._line(start), self._line(max(node.end_byte - 1, start))

    def _tile(self, lo: int, hi: int, nodes: list[Node], scope: Scope) -> list[_Atom]:
        """Lines `lo`..`hi` given to `nodes` in order: a node starting on a line taken by the node
        before loses that line (a definition takes it instead, from a node that is not one), lines
        between nodes go to the node before, and comments directly above a definition join it."""
        atoms: list[_Atom] = []
        free = lo
        for node in nodes:
            start, end = self._lines_of(node)
            if end < free or start > hi:
                continue
            found = definition(node, self.language, scope, self.data) if node.is_named else None
            if start < free:
                before = atoms[-1] if atoms else None
                if found and before and before.definition is None and before.start < start:
                    before.end = start - 1
                else:
                    start, found = free, None
            elif start > free:
                if atoms:
                    atoms[-1].end = start - 1
                else:
                    start = free
            end = min(end, hi)
            atoms.append(_Atom(start, end, node, found))
            free = end + 1
        if free <= hi:
            if atoms:
                atoms[-1].end = hi
            else:
                atoms.append(_Atom(lo, hi))
        return self._attach_comments(atoms)

    def _attach_comments(self, atoms: list[_Atom]) -> list[_Atom]:
        kept: list[_Atom] = []
        for atom in atoms:
            if atom.definition is not None:
                while kept and self._leads_into(kept[-1], atom):
                    atom.start = kept.pop().start
            kept.append(atom)
        return kept

    def _leads_into(self, before: _Atom, definition: _Atom) -> bool:
        """Whether `before` belongs to the definition after it: a comment or decorator directly
        above it, or a lone opening bracket or document marker (a JSON file's `{`, YAML's
        `---`), which is no piece of its own."""
        if before.node is None:
            return False
        if before.node.type in COMMENTS:
            return self._lines_of(before.node)[1] >= definition.start - 1
        span = self.lines.trimmed(before.start, before.end)
        return span is not None and set(self.lines.text(*span)) <= _OPENERS

    def _expand(self, atom: _Atom, scope: Scope) -> list[_Atom]:
        """The parts of an atom too long for one piece: its node's children (descending while one
        child holds all its lines), else its single lines; [] for a single line."""
        node = atom.node
        while node is not None and node.child_count:
            parts = self._tile(atom.start, atom.end, node.children, scope)
            if len(parts) != 1 or parts[0].definition is not None or parts[0].node is None:
                if atom.head >= 0:  # the head above `atom` is the head above its first part too
                    parts[0].head = atom.head
                if len(parts) > 1 and _is_head(parts[0]):
                    parts[1].head = parts[0].start
                return parts
            node = parts[0].node
        if atom.start == atom.end:
            return []
        return [_Atom(line, line) for line in range(atom.start, atom.end + 1)]

    # --- packing ------------------------------------------------------------------------------

    def _pack(self, atoms: list[_Atom], owner: _Owner, chain: str) -> None:
        """Pieces of `owner` from `atoms` in order, greedily filled; definitions among them (and
        among the children of atoms split for length) become pieces of their own."""
        stack = atoms[::-1]
        current: list[int] = []  # [start, end] of the open piece
        while stack:
            atom = stack.pop()
            if atom.definition is not None:
                self._close(current, owner)
                current = []
                self._define(atom, chain)
                continue
            if atom.node is not None and atom.node.type in MEMBER_GROUPS and owner.scope.in_class:
                members = self._expand(atom, owner.scope) or [_Atom(atom.start, atom.end)]
                stack.extend(members[::-1])
                continue
            span = self.lines.trimmed(current[0] if current else atom.start, atom.end)
            if span is None:
                continue
            if self._fits(span, owner):
                current = [span[0], self._take_fitting(stack, span[0], atom.end, owner)]
                continue
            alone = self.lines.trimmed(atom.start, atom.end)
            fits_alone = (
                bool(current) and alone is not None and self._fits(alone, owner, opened=True)
            )
            # The open piece holds the head of `atom`'s statement (`for row in rows:`): a piece
            # should not end on it.
            after_head = bool(current) and 0 <= atom.head <= current[1]
            carry = after_head and current[0] < atom.head and fits_alone
            if carry and self._fits_to(atom.head, atom.end, owner, opened=True):
                self._close([current[0], atom.head - 1], owner)
                current = [atom.head, atom.start - 1]
                stack.append(atom)  # the head now opens the piece `atom` starts in
                continue
            parts = self._expand(atom, owner.scope) if after_head or not fits_alone else []
            if parts:
                stack.extend(parts[::-1])
                continue
            if fits_alone:
                self._close(current, owner)
                current = [atom.start, atom.end]
                continue
            # One line longer than the budget: cut it in characters.
            self._close(current, owner)
            current = []
            header = self._header(owner)
            line = self.lines.lines[atom.start]
            for stretch in cut_line(line, self.fits, header if owner.pieces else "", header):
                self._add(_Span(atom.start, atom.start, owner, owner.pieces, stretch))
        self._close(current, owner)

    def _take_fitting(self, stack: list[_Atom], start: int, end: int, owner: _Owner) -> int:
        """Take from the top of `stack` as many plain atoms as still fit in the piece from line
        `start` (which fits up to `end`); the new end. Doubling then bisecting the number taken
        gives the greedy answer with a few `fits` calls instead of one per atom."""
        plain = 0
        while plain < len(stack) and plain < _MAX_TAKE and _is_plain(stack[-1 - plain], owner):
            plain += 1
        good, bad, count = 0, plain + 1, 1
        while count <= plain:
            if self._fits_to(start, stack[-count].end, owner):
                good, count = count, count * 2
            else:
                bad = count
                break
        else:
            if good < plain and self._fits_to(start, stack[-plain].end, owner):
                good = plain
        while bad - good > 1:
            middle = (good + bad) // 2
            if self._fits_to(start, stack[-middle].end, owner):
                good = middle
            else:
                bad = middle
        if good:
            end = stack[-good].end
            del stack[len(stack) - good :]
        return end

    def _fits_to(self, start: int, end: int, owner: _Owner, *, opened: bool = False) -> bool:
        span = self.lines.trimmed(start, end)
        return span is None or self._fits(span, owner, opened=opened)

    def _fits(self, span: tuple[int, int], owner: _Owner, *, opened: bool = False) -> bool:
        """Whether lines `span` fit as the owner's next piece (`opened`: after the open one),
        with the owner's header above them unless they would be its first piece."""
        later = owner.pieces > 0 or opened
        key = (span, later, owner)  # the look-ahead's last answer is asked again next
        if self._last_fit[0] != key:
            text = self.lines.text(*span)
            fits = self.fits(with_header(self._header(owner), text) if later else text)
            self._last_fit = (key, fits)
        return self._last_fit[1]

    def _close(self, current: list[int], owner: _Owner) -> None:
        if not current:
            return
        span = self.lines.trimmed(current[0], current[1])
        if span is None:
            return
        text = self.lines.text(*span)
        if set(text) <= _CLOSERS and self._join_before(span[1]):
            return
        self._add(_Span(span[0], span[1], owner, owner.pieces))

    def _join_before(self, end: int) -> bool:
        """Extend the piece before to line `end` when it still fits: a lone `}` is no piece."""
        if not self.spans or self.spans[-1].text is not None:
            return False
        before = self.spans[-1]
        text = self.lines.text(before.start, end)
        header = self._header(before.owner) if before.index else ""
        if not self.fits(with_header(header, text)):
            return False
        before.end = end
        return True

    def _add(self, span: _Span) -> None:
        self.spans.append(span)
        span.owner.pieces += 1

    # --- definitions --------------------------------------------------------------------------

    def _define(self, atom: _Atom, chain: str) -> None:
        found = atom.definition
        assert found is not None and atom.node is not None
        parent = found.parent if found.parent is not None else chain
        scope = Scope(in_class=found.members_apart)
        owner = _Owner(found.kind, found.symbol, parent, found, scope=scope)
        inner = f"{parent}.{found.symbol}" if parent else found.symbol
        if not found.members_apart:
            span = self.lines.trimmed(atom.start, atom.end)
            if span is None:
                return
            if self.fits(self.lines.text(*span)):
                self._add(_Span(span[0], span[1], owner, 0))
                return
        if found.body is None:
            atoms = [_Atom(atom.start, atom.end, found.core)]
        else:
            nodes = opened_body(atom.node, found.body)
            atoms = self._tile(atom.start, atom.end, nodes, scope)
        self._pack(atoms, owner, inner)

    def _header(self, owner: _Owner) -> str:
        """The signature lines of the owner's definition: from its start to the line its body
        opens on ("" for the module, or when the signature would take over half the budget)."""
        if owner.header is not None:
            return owner.header
        found = owner.definition
        owner.header = ""
        if found is None:
            return ""
        start = self._line(found.core.start_byte)
        end = start
        before_body = found.body.prev_sibling if found.body is not None else None
        if before_body is not None:
            end = max(start, self._lines_of(before_body)[1])
        header = self.lines.text(start, min(end, start + MAX_HEADER_LINES - 1)).strip("\n")
        if header.strip() and self.fits(f"{header}\n{header}"):
            owner.header = header
        return owner.header

    def _piece(self, span: _Span) -> CodePiece:
        owner = span.owner
        text = span.text if span.text is not None else self.lines.text(span.start, span.end)
        split = owner.pieces > 1 and owner.definition is not None
        return CodePiece(
            text=text,
            line_start=span.start + 1,
            line_end=span.end + 1,
            symbol=owner.symbol,
            kind=owner.kind,
            parent=owner.parent,
            header=self._header(owner) if split and span.index else "",
            part=span.index + 1 if split else 0,
        )


# A statement's head is its keyword line(s): a head longer than this is a statement of its own.
_MAX_HEAD_LINES = 3


def _is_head(atom: _Atom) -> bool:
    """Whether `atom` opens a compound statement (`for ...:`, `if (...) {`, `try:`): a keyword,
    not a named node, leads it."""
    node = atom.node
    return node is not None and not node.is_named and atom.end - atom.start < _MAX_HEAD_LINES


def _is_plain(atom: _Atom, owner: _Owner) -> bool:
    """Whether `atom` is packed as it is (no definition, no member group to open)."""
    if atom.definition is not None:
        return False
    return atom.node is None or not (owner.scope.in_class and atom.node.type in MEMBER_GROUPS)
