"""Identifiers: what the docs define (endpoints, operations, types, JSON keys, commands, headings)
and where, grouped by when the code runs:

- `extract/`, build time: `write_identifier_table` (and `extract`) over the corpus's documents,
  and the mentions of every code-shaped name each page writes (`extract.mention_scan`);
- `store/`, on disk: the formats of ``bundle_spec/SPEC.md`` ("identifiers/": `store.table` writes,
  `store.table_reader` opens; "mentions/": `store.mentions`) and `atlas verify`'s checks of them;
- `lookup/`, run time: `IdentifierIndex` (lookup, definitions, symbols, endpoint completion),
  which ranks table rows and pages of mentions in one list (`lookup.ranking`), and the operation
  an API call in client code targets (`target_of_call`);
- `spelling`, used by all three: `compact`, `split_words`, `path_key`, `strip_path`,
  `name_variants`.

Names load on first use, so the language server's cold start reads only the index it needs. The
synthetic table generator the benchmarks use lives in `benchmarks.synthetic_identifiers`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas_core import lazy_exports

if TYPE_CHECKING:
    from atlas_core.identifiers.extract.documents import (
        extract,
        extract_ranked,
        write_identifier_table,
    )
    from atlas_core.identifiers.lookup.call_target import (
        CallTarget,
        pick_definition,
        target_of_call,
    )
    from atlas_core.identifiers.lookup.identifier_index import IdentifierIndex
    from atlas_core.identifiers.lookup.subjects import group_pages, one_per_subject, subject_keys
    from atlas_core.identifiers.spelling import (
        HTTP_METHODS,
        compact,
        is_param_segment,
        looks_like_path,
        name_variants,
        path_key,
        split_words,
        strip_path,
    )
    from atlas_core.identifiers.store.api_evidence import read_api_evidence
    from atlas_core.identifiers.store.table import META_FILE, TABLE_DIR, RowMemo, read_npy
    from atlas_core.identifiers.store.table_reader import record_params
    from atlas_core.identifiers.store.verify import mention_problems, table_problems

_EXPORTS = {
    "extract": "extract.documents",
    "extract_ranked": "extract.documents",
    "write_identifier_table": "extract.documents",
    "IdentifierIndex": "lookup.identifier_index",
    "compact": "spelling",
    "looks_like_path": "spelling",
    "name_variants": "spelling",
    "path_key": "spelling",
    "split_words": "spelling",
    "strip_path": "spelling",
    "is_param_segment": "spelling",
    "META_FILE": "store.table",
    "TABLE_DIR": "store.table",
    "read_npy": "store.table",
    "table_problems": "store.verify",
    "mention_problems": "store.verify",
    "record_params": "store.table_reader",
    "read_api_evidence": "store.api_evidence",
    "RowMemo": "store.table",
    "subject_keys": "lookup.subjects",
    "CallTarget": "lookup.call_target",
    "pick_definition": "lookup.call_target",
    "target_of_call": "lookup.call_target",
    "group_pages": "lookup.subjects",
    "one_per_subject": "lookup.subjects",
    "HTTP_METHODS": "spelling",
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
    "read_api_evidence",
    "read_npy",
    "record_params",
    "split_words",
    "strip_path",
    "subject_keys",
    "table_problems",
    "target_of_call",
    "write_identifier_table",
]
__getattr__ = lazy_exports(__name__, _EXPORTS)
