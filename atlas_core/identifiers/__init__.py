"""Identifiers: what the docs define (endpoints, operations, types, JSON keys, commands, headings)
and where, from extraction at build time to resolution at run time.

- build time: `write_identifier_table` (and `extract`) over the corpus's documents, and the
  mention index of every code-shaped name each page writes (`mentions.write_mention_index`,
  scanned by `mention_scan`);
- on disk: the formats of ``bundle_spec/SPEC.md`` ("identifiers/", `table`; "mentions/",
  `mentions`);
- run time: `IdentifierIndex` (lookup, symbols, endpoint completion, deprecations), which ranks
  table rows and pages of mentions in one list (`ranking`);
- spelling: `compact`, `split_words`, `path_key`, `strip_path`, `name_variants`.

Names load on first use, so the language server's cold start reads only the index it needs. The
synthetic table generator used by the benchmarks stays out of this face
(`atlas_core.identifiers.synthetic`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas_core import lazy_exports

if TYPE_CHECKING:
    from atlas_core.identifiers.build import extract, extract_ranked, write_identifier_table
    from atlas_core.identifiers.call_target import CallTarget, pick_definition, resolve_call
    from atlas_core.identifiers.index import IdentifierIndex, record_params
    from atlas_core.identifiers.normalize import (
        HTTP_METHODS,
        compact,
        is_param_segment,
        looks_like_path,
        name_variants,
        path_key,
        split_words,
        strip_path,
    )
    from atlas_core.identifiers.subjects import group_pages, one_per_subject, subject_keys
    from atlas_core.identifiers.table import META_FILE, TABLE_DIR, RowMemo, read_npy
    from atlas_core.identifiers.verify import mention_problems, table_problems

_EXPORTS = {
    "extract": "build",
    "extract_ranked": "build",
    "write_identifier_table": "build",
    "IdentifierIndex": "index",
    "compact": "normalize",
    "looks_like_path": "normalize",
    "name_variants": "normalize",
    "path_key": "normalize",
    "split_words": "normalize",
    "strip_path": "normalize",
    "is_param_segment": "normalize",
    "META_FILE": "table",
    "TABLE_DIR": "table",
    "read_npy": "table",
    "table_problems": "verify",
    "mention_problems": "verify",
    "record_params": "index",
    "RowMemo": "table",
    "subject_keys": "subjects",
    "CallTarget": "call_target",
    "pick_definition": "call_target",
    "resolve_call": "call_target",
    "group_pages": "subjects",
    "one_per_subject": "subjects",
    "HTTP_METHODS": "normalize",
}
__all__ = [
    "HTTP_METHODS",
    "META_FILE",
    "TABLE_DIR",
    "CallTarget",
    "IdentifierIndex",
    "RowMemo",
    "compact",
    "extract",
    "extract_ranked",
    "group_pages",
    "is_param_segment",
    "looks_like_path",
    "mention_problems",
    "name_variants",
    "one_per_subject",
    "path_key",
    "pick_definition",
    "read_npy",
    "record_params",
    "resolve_call",
    "split_words",
    "strip_path",
    "subject_keys",
    "table_problems",
    "write_identifier_table",
]
__getattr__ = lazy_exports(__name__, _EXPORTS)
