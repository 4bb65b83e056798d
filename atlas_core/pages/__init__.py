"""The pages a bundle serves, read the one way every host reads them: an untrusted path checked
into a file of the docs mirror (`paths`), a page read under one size cap with its headings kept
(`reader`), the mirrors with their publications, titles and sections (`mirror`), and a literal or
regex search over their lines (`grep`), placed in their sections (`lines`).

No protocol here: the MCP file tools, the language server's hover and `atlas` commands all call
these and only render what they return. Names load on first use, so a host that needs one of them
does not pay for the text search's subprocess machinery.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas_core import lazy_exports

if TYPE_CHECKING:
    from atlas_core.pages.grep import (
        ENV_RIPGREP,
        SearchTimeout,
        TextMatch,
        TextSearchResult,
        find_ripgrep,
        iter_doc_files,
        search_text,
    )
    from atlas_core.pages.lines import LineMatch, LineSearch, files_in_scope, search_lines
    from atlas_core.pages.mirror import DocMeta, Mirror, MirrorSet, ServedDocs
    from atlas_core.pages.paths import (
        RESOURCE_PREFIX,
        PathRejected,
        normalize_relpath,
        resolve_file,
    )
    from atlas_core.pages.reader import (
        MAX_PAGE_BYTES,
        Outlines,
        open_regular,
        read_lines,
        read_page,
    )

__all__ = [
    "ENV_RIPGREP",
    "MAX_PAGE_BYTES",
    "RESOURCE_PREFIX",
    "DocMeta",
    "LineMatch",
    "LineSearch",
    "Mirror",
    "MirrorSet",
    "Outlines",
    "PathRejected",
    "SearchTimeout",
    "ServedDocs",
    "TextMatch",
    "TextSearchResult",
    "files_in_scope",
    "find_ripgrep",
    "iter_doc_files",
    "normalize_relpath",
    "open_regular",
    "read_lines",
    "read_page",
    "resolve_file",
    "search_lines",
    "search_text",
]

_EXPORTS = {
    "ENV_RIPGREP": "grep",
    "SearchTimeout": "grep",
    "TextMatch": "grep",
    "TextSearchResult": "grep",
    "find_ripgrep": "grep",
    "iter_doc_files": "grep",
    "search_text": "grep",
    "LineMatch": "lines",
    "LineSearch": "lines",
    "files_in_scope": "lines",
    "search_lines": "lines",
    "DocMeta": "mirror",
    "Mirror": "mirror",
    "MirrorSet": "mirror",
    "ServedDocs": "mirror",
    "RESOURCE_PREFIX": "paths",
    "PathRejected": "paths",
    "normalize_relpath": "paths",
    "resolve_file": "paths",
    "MAX_PAGE_BYTES": "reader",
    "Outlines": "reader",
    "open_regular": "reader",
    "read_lines": "reader",
    "read_page": "reader",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
