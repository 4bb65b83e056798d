"""Reading code with tree-sitter, for every package that does: one version of a document's text
with its offset tables (`Document`), grammars loaded on first use, parses bounded in time and
size, one syntax tree per open document kept up to date (`SyntaxTrees`), and the small tree walks
the readers share. The code chunker and the API call readers both stand on it.

Importing it imports no grammar and not `tree_sitter`; they load with the first parse.
"""

from __future__ import annotations

from atlas_core.syntax.document import Document, line_starts
from atlas_core.syntax.trees import (
    MAX_LINE_BYTES,
    MAX_PARSE_BYTES,
    PARSE_BUDGET_S,
    SyntaxTrees,
    ancestors,
    field,
    has_grammar,
    is_field,
    line_is_blanked,
    load_language,
    occurrences,
    parse_once,
    parse_source,
    parse_within,
)

__all__ = [
    "MAX_LINE_BYTES",
    "MAX_PARSE_BYTES",
    "PARSE_BUDGET_S",
    "Document",
    "SyntaxTrees",
    "ancestors",
    "field",
    "has_grammar",
    "is_field",
    "line_is_blanked",
    "line_starts",
    "load_language",
    "occurrences",
    "parse_once",
    "parse_source",
    "parse_within",
]
