"""Recognising Collibra identifiers in text: where the cursor is (`Context`), what is there
(`Recognition`), the built-in recognisers and the ``atlas.recognizers`` entry-point plugins
(`RecognizerSet`), the string and path scanning they share (`text_scan`), and whether an occurrence
is code rather than prose (`is_code_occurrence`). No protocol library: the language server, the
CLI and `atlas doctor` all use it."""

from __future__ import annotations

from atlas_core.recognize.builtin import BUILTIN_RECOGNIZERS
from atlas_core.recognize.code_context import is_code_occurrence
from atlas_core.recognize.registry import (
    ENTRY_POINT_GROUP,
    Context,
    PluginStatus,
    Recognition,
    Recognizer,
    RecognizerSet,
    context_at,
    load_plugins,
)
from atlas_core.recognize.text_scan import normalize_language

__all__ = [
    "BUILTIN_RECOGNIZERS",
    "ENTRY_POINT_GROUP",
    "Context",
    "PluginStatus",
    "Recognition",
    "Recognizer",
    "RecognizerSet",
    "context_at",
    "is_code_occurrence",
    "load_plugins",
    "normalize_language",
]
