"""Recognising Collibra identifiers in text: where the cursor is (`Context`), what is there
(`Recognition`), the built-in recognisers and the ``atlas.recognizers`` entry-point plugins
(`RecognizerSet`), the string and path scanning they share (`text_scan`), and whether an occurrence
is code rather than prose (`is_code_occurrence`). No protocol library: the language server, the
CLI and `atlas doctor` all use it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas_core import lazy_exports

if TYPE_CHECKING:
    from atlas_core.recognize.calls import CallReader
    from atlas_core.recognize.calls.markdown import code_block_spans
    from atlas_core.recognize.calls.scan import Located, scan_calls
    from atlas_core.recognize.calls.site import (
        BODY,
        ENDPOINT,
        HEADER,
        HTTP,
        OPERATION,
        PATH,
        QUERY,
        SDK,
        UNKNOWN,
        CallSite,
    )
    from atlas_core.recognize.calls.windows import probe_window
    from atlas_core.recognize.generated import looks_generated
    from atlas_core.recognize.registry import MAX_LINE_WINDOW
    from atlas_core.recognize.text_scan import string_at, string_spans
    from atlas_core.recognize.typed import (
        ARGUMENT,
        KEY,
        TYPED_LANGUAGES,
        VALUE,
        TypedCall,
        Typing,
        closers,
        is_call_site,
        is_key_site,
        open_brackets,
        open_paren,
        typing_at,
        without_key,
    )

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
    "ARGUMENT",
    "BODY",
    "BUILTIN_RECOGNIZERS",
    "ENDPOINT",
    "ENTRY_POINT_GROUP",
    "HEADER",
    "HTTP",
    "KEY",
    "MAX_LINE_WINDOW",
    "OPERATION",
    "PATH",
    "QUERY",
    "SDK",
    "TYPED_LANGUAGES",
    "UNKNOWN",
    "VALUE",
    "CallReader",
    "CallSite",
    "Context",
    "Located",
    "PluginStatus",
    "Recognition",
    "Recognizer",
    "RecognizerSet",
    "TypedCall",
    "Typing",
    "closers",
    "code_block_spans",
    "context_at",
    "is_call_site",
    "is_code_occurrence",
    "is_key_site",
    "load_plugins",
    "looks_generated",
    "normalize_language",
    "open_brackets",
    "open_paren",
    "probe_window",
    "scan_calls",
    "string_at",
    "string_spans",
    "typing_at",
    "without_key",
]

# Loaded on first use, so importing the face stays as cheap as it was.
_EXPORTS = {
    "Located": "calls.scan",
    "BODY": "calls.site",
    "ENDPOINT": "calls.site",
    "OPERATION": "calls.site",
    "QUERY": "calls.site",
    "SDK": "calls.site",
    "UNKNOWN": "calls.site",
    "CallSite": "calls.site",
    "scan_calls": "calls.scan",
    "code_block_spans": "calls.markdown",
    "HEADER": "calls.site",
    "PATH": "calls.site",
    "CallReader": "calls",
    "MAX_LINE_WINDOW": "registry",
    "string_at": "text_scan",
    "HTTP": "calls.site",
    "probe_window": "calls.windows",
    "looks_generated": "generated",
    "string_spans": "text_scan",
    # Where the cursor is in a call being typed: only completion and signature help read it.
    **dict.fromkeys(
        (
            "ARGUMENT",
            "KEY",
            "TYPED_LANGUAGES",
            "VALUE",
            "TypedCall",
            "Typing",
            "closers",
            "is_call_site",
            "is_key_site",
            "open_brackets",
            "open_paren",
            "typing_at",
            "without_key",
        ),
        "typed",
    ),
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
