"""Tree-sitter grammars for chunking source files, loaded on first use.

Every grammar comes from the call recognizer's loader
(`atlas_core.syntax.trees.load_language`, which also knows the grammars only the chunker
needs: TSX, Go, Bash, YAML, JSON), so a process holds one `Language` per grammar: loaded lazily,
once, and None when the package is missing or built for another tree-sitter. Parsers are not
thread-safe, so each thread keeps its own, one per language.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING

from atlas_core.syntax import Document, load_language, parse_source, parse_within

if TYPE_CHECKING:
    from tree_sitter import Language, Node, Parser, Tree

log = logging.getLogger(__name__)

# A parse that runs longer than this is given up and the file is read in line windows.
PARSE_BUDGET_S = 5.0

_parsers = threading.local()


class ParseFailed(Exception):
    """Tree-sitter could not parse a file (the message says why)."""


def grammar(language: str) -> Language | None:
    """The tree-sitter language for `language`, or None when there is no grammar for it."""
    return load_language(language)


def _parser(language: str, lang: Language) -> Parser:
    cache: dict[str, Parser] | None = getattr(_parsers, "by_language", None)
    if cache is None:
        cache = _parsers.by_language = {}
    parser = cache.get(language)
    if parser is None:
        from tree_sitter import Parser

        parser = cache[language] = Parser(lang)
    return parser


def parse(document: Document, language: str, lang: Language) -> Tree:
    """The syntax tree of `document`. Byte offsets in it are the document's UTF-8 offsets (lines
    too long to be code are blanked first, Groovy chains joined: both keep every offset)."""
    source = parse_source(document, language)
    parser = _parser(language, lang)
    try:
        return parse_within(parser, source, None, time.perf_counter() + PARSE_BUDGET_S)
    except ValueError as exc:  # the progress callback halted the parse
        parser.reset()
        raise ParseFailed(f"parsing ran over {PARSE_BUDGET_S:g} s") from exc


def error_share(root: Node, size: int) -> float:
    """The share of the file's `size` bytes that tree-sitter could only read as ERROR nodes."""
    if not root.has_error or size <= 0:
        return 0.0
    broken = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR":
            broken += node.end_byte - node.start_byte
        else:
            stack.extend(child for child in node.children if child.has_error)
    return broken / size
