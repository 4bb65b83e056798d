"""Chunks and identifier entries of a `code` source's files.

Each file is cut by definition (`atlas_core.code.chunk_code`: a function, a method, a class with its
docstring and signature, top-level code between them) or, for the evaluation's baseline, in plain
character windows (`fixed_windows`). A chunk keeps the file, the line range, the language, the
definition's name, kind and enclosing definition, and the API calls it makes: the call reader's
endpoint sites (method and URL as written, unknown parts ``{}``), which the engine resolves against
the docs when it serves both (the "used in your project" cross-links).

What is embedded and indexed (`embed_text`) is the file's path, the definition's kind and dotted
name, the signature of a long definition's first part for its later parts, then the code.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from atlas_core.markdown import chunk_id_for
from atlas_core.types import Chunk, Document, IdentifierEntry

if TYPE_CHECKING:
    from tree_sitter import Tree

    from atlas_core.code import CodePiece
    from atlas_core.syntax import Document as SiteDocument

log = logging.getLogger(__name__)

CHUNKINGS = ("definition", "window")
WINDOW_CHARS, WINDOW_OVERLAP = 6000, 800  # the usual codebase-RAG default, for comparison
PREFIX_TOKENS = 24  # room kept in the budget for the path and name line of `embed_text`
# A definition chunk's token budget, in model windows: the model reads the first window (the
# signature and docs first), the keyword index all of it. On the code-search set (click 8.1.8,
# hybrid MRR@10 with the class's first sentence given to each method): 1.0 0.546, 1.5 0.571,
# 2.0 0.562, 3.0 0.554; the fixed-window baseline 0.518.
BUDGET_FACTOR = 1.5
# Definition kinds that become identifier entries (workspace symbols), by their entry kind.
ENTRY_KINDS = {
    "function": "function",
    "method": "method",
    "class": "class",
    "interface": "class",
    "enum": "class",
    "type": "class",
}
CALL_SEP = "\t"
CLASS_KINDS = frozenset({"class", "interface", "enum", "type"})
SUMMARY_CHARS = 160  # of a class's docs, given to each of its methods
_DOCS = re.compile(
    r'''"""\s*(.+?)(?:"""|\n\s*\n)|\'\'\'\s*(.+?)(?:\'\'\'|\n\s*\n)|/\*\*\s*(.+?)(?:\*/|\n\s*\*\s*\n)''',
    re.DOTALL,
)
_COMMENT = re.compile(r"^\s*(?:#|//|\*|--)\s?(.*)$")
# A line that only names a string: `const BASE = 'https://...';`, `BASE = "..."`, `def base = ".."`.
_CONSTANT = re.compile(
    r"""^\s*(?:export\s+)?(?:(?:const|let|var|final|static|private|public|def|val|String)\s+)*"""
    r"""[\w.$]+\s*(?::\s*[\w<>\[\]]+\s*)?=\s*(["'`])[^"'`]*\1\s*;?\s*$"""
)


def chunk_code_documents(
    documents: Sequence[Document],
    *,
    count_tokens: Callable[[str], int],
    max_tokens: int,
    chunking: str = "definition",
    cache: dict[str, tuple[str, list[Chunk], str]] | None = None,
) -> tuple[list[Chunk], dict[str, str]]:
    """The chunks of every source-code document, in document order, and the files that fell
    back to line windows with the reason (a grammar that failed, no grammar for the language).
    `cache` (file -> (its text, its chunks, why windows)) is read and rewritten: a file whose text is what it
    holds is not chunked again."""
    from atlas_core.code import chunk_code, fixed_windows

    budget = max(32, int(max_tokens * BUDGET_FACTOR) - PREFIX_TOKENS)

    # Tokens of each line of the file being cut, counted once: the chunker asks about the same
    # lines many times over (growing spans, whole classes), which tokenized each span whole was
    # nine tenths of the chunking time. The tokenizers split at whitespace, so a text's tokens
    # are its lines' tokens added up (the document prefix and special tokens counted once).
    base = count_tokens("")
    line_tokens: dict[str, int] = {}

    def fits(text: str) -> bool:
        total = base
        for line in text.split("\n"):
            tokens = line_tokens.get(line)
            if tokens is None:
                tokens = line_tokens[line] = count_tokens(line) - base
            total += tokens
            if total > budget:
                return False
        return True

    chunks: list[Chunk] = []
    fallbacks: dict[str, str] = {}
    kept: dict[str, tuple[str, list[Chunk], str]] = {}
    for doc in documents:
        key = f"{chunking}\0{budget}\0{doc.path}"
        cached = cache.get(key) if cache is not None else None
        if cached is not None and cached[0] == doc.text:
            kept[key] = cached
            chunks.extend(cached[1])
            if cached[2]:
                fallbacks[doc.path] = cached[2]
            continue
        start = len(chunks)
        line_tokens.clear()  # one file's lines at a time
        language = doc.language
        parsed = None
        if chunking == "window":
            pieces = fixed_windows(doc.text, size=WINDOW_CHARS, overlap=WINDOW_OVERLAP)
        else:
            try:
                result = chunk_code(doc.text, language, fits=fits)
            except Exception as exc:  # a chunker bug must cost one file, never the build
                log.warning("%s: chunking failed, indexed as line windows", doc.path, exc_info=True)
                from atlas_core.code import line_windows

                pieces = line_windows(doc.text, fits=fits)
                fallbacks[doc.path] = f"chunker failed ({type(exc).__name__})"
            else:
                pieces, parsed = result.pieces, result.parsed
                if result.fallback and language != "text":
                    fallbacks[doc.path] = result.fallback
        calls = _calls_by_line(doc, parsed)
        ids: set[str] = set()
        summaries: dict[str, str] = {}  # class (dotted name) -> the first sentence of its docs
        for piece in pieces:
            if piece.kind in CLASS_KINDS and piece.part <= 1:
                summaries[qualified_name(piece.parent, piece.symbol)] = summary_of(piece.text)
            context = summaries.get(piece.parent, "")
            chunk = _chunk(doc, language, piece, count_tokens, calls, context)
            if chunk.chunk_id in ids:  # the same code twice in one file: tell them apart by line
                name = qualified_name(chunk.parent, chunk.symbol) or chunk.symbol_kind
                at = f"{name}@{chunk.line_start}"
                chunk = replace(chunk, chunk_id=chunk_id_for(doc.path, at, chunk.text))
            ids.add(chunk.chunk_id)
            chunks.append(chunk)
        kept[key] = (doc.text, chunks[start:], fallbacks.get(doc.path, ""))
    if cache is not None:
        cache.clear()
        cache.update(kept)
    if fallbacks:
        log.warning(
            "%d source file(s) indexed as line windows: %s",
            len(fallbacks),
            ", ".join(f"{path} ({why})" for path, why in list(fallbacks.items())[:5]),
        )
    return chunks, fallbacks


def _chunk(
    doc: Document,
    language: str,
    piece: CodePiece,
    count_tokens: Callable[[str], int],
    calls: list[tuple[int, str]],
    context: str = "",
) -> Chunk:
    name = qualified_name(piece.parent, piece.symbol)
    heading = name or (f"lines {piece.line_start}-{piece.line_end}")
    described = f"{piece.kind} {name}".strip() if piece.kind != "window" else ""
    # A method says little about what its class is for: its class's first sentence goes first.
    within = f"in {piece.parent}: {context}" if context else ""
    embed_text = "\n".join(
        part
        for part in (f"{doc.path} {described}".strip(), within, piece.header, piece.text)
        if part
    )
    return Chunk(
        # Not the heading: "lines A-B" would change the id of code an edit above merely moved.
        chunk_id=chunk_id_for(doc.path, name or piece.kind, piece.text),
        file=doc.path,
        publication=doc.publication,
        title=doc.title,
        heading=heading,
        anchor="",
        url="",
        line_start=piece.line_start,
        line_end=piece.line_end,
        text=piece.text,
        embed_text=embed_text,
        is_code=True,
        token_count=count_tokens(embed_text),
        language=language,
        symbol=piece.symbol,
        symbol_kind=piece.kind,
        parent=piece.parent,
        calls=tuple(entry for line, entry in calls if piece.line_start <= line <= piece.line_end),
    )


def qualified_name(parent: str, symbol: str) -> str:
    """``Session.send``: the enclosing definitions and the name, dotted."""
    return ".".join(part for part in (parent, symbol) if part)


def _calls_by_line(
    doc: Document, parsed: tuple[SiteDocument, Tree] | None = None
) -> list[tuple[int, str]]:
    """(1-based line, "LINE<TAB>METHOD<TAB>URL") of every HTTP call the call reader sees.
    `parsed` is the chunker's parse of the file: the call readers reuse it for the languages
    they read with the same grammar."""
    from atlas_core.recognize import ENDPOINT, scan_calls
    from atlas_core.syntax import has_grammar

    shared = parsed if parsed is not None and has_grammar(doc.language) else None
    try:
        found = scan_calls(doc.text, doc.language, parsed=shared)
    except Exception:  # the cross-links are extra: a reader failure costs them for this file
        log.warning("%s: reading its API calls failed", doc.path, exc_info=True)
        return []
    lines = doc.text.split("\n")
    calls = []
    for located in found:
        site = located.site
        if site.role != ENDPOINT or site.loose or not site.url:
            continue
        if 0 <= located.line < len(lines) and _CONSTANT.match(lines[located.line]):
            continue  # the base URL's own line (`const BASE = '...'`), not a call of it
        line = located.line + 1
        calls.append((line, CALL_SEP.join((str(line), site.method.upper(), site.url))))
    return calls


def summary_of(text: str) -> str:
    """The first sentence of a definition's docs: its docstring, Javadoc or leading comments."""
    found = _DOCS.search(text)
    if found is not None:
        words = next(group for group in found.groups() if group)
    else:
        comments = []
        for line in text.split("\n"):
            match = _COMMENT.match(line)
            if match is None:
                break
            comments.append(match.group(1))
        words = " ".join(comments)
    words = " ".join(re.sub(r"^\s*\*\s?", "", line) for line in words.split("\n")).strip()
    sentence = re.split(r"(?<=[.!?])\s", words, maxsplit=1)[0]
    return sentence[:SUMMARY_CHARS].strip()


def parse_call(entry: str) -> tuple[int, str, str] | None:
    """(line, method, url) of a `Chunk.calls` entry; None for one this reader cannot read."""
    parts = entry.split(CALL_SEP)
    if len(parts) != 3 or not parts[0].isdigit():
        return None
    return int(parts[0]), parts[1], parts[2]


def code_identifiers(document: Document, chunks: Sequence[Chunk]) -> Document:
    """`document` with an identifier entry per definition its chunks hold (first part only)."""
    entries = []
    previous = ""
    for chunk in chunks:
        kind = ENTRY_KINDS.get(chunk.symbol_kind)
        name = qualified_name(chunk.parent, chunk.symbol)
        # The later parts of a long definition follow its first part under the same name.
        is_part = name == previous
        previous = name
        if kind is None or not chunk.symbol or is_part:
            continue
        entries.append(
            IdentifierEntry(
                name=name,
                kind=kind,
                file=chunk.file,
                line=chunk.line_start,
                summary=_signature(chunk.text),
                publication=chunk.publication,
            )
        )
    return replace(document, identifiers=tuple(entries))


def _signature(text: str) -> str:
    """The definition's first line that is not a decorator, annotation or comment."""
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped and not stripped.startswith(("@", "#", "//", "/*", "*")):
            return stripped[:200]
    return ""
