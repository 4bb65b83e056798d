"""Reading what Atlas did not write without trusting it: files opened once, without following a
link or blocking, and capped in size (`bounded_read`, `files`); JSON and YAML parsed with bounded
depth, aliases and numbers (`loads_bounded`, `load_yaml`, `parse_json`); and the file names and
relative paths a bundle may hold (`names`). Every layer above reads bundles, sources and configs
through these.

Names load on first use: the language server reads JSON here and must not import YAML.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas_core import lazy_exports

if TYPE_CHECKING:
    from atlas_core.safeio.bounded_parse import (
        LimitExceeded,
        TooLarge,
        load_yaml,
        parse_json,
    )
    from atlas_core.safeio.bounded_read import (
        MAX_JSON_BYTES,
        MAX_JSON_DEPTH,
        MAX_RECORD_DEPTH,
        deeper_than,
        loads_bounded,
        read_json,
        read_regular,
    )
    from atlas_core.safeio.files import (
        SKIP_DIRS,
        Listing,
        display_path,
        is_utf8_name,
        list_files,
        read_regular_file,
        warn_skipped,
    )
    from atlas_core.safeio.names import (
        PICKLE_SUFFIXES,
        has_pickle_suffix,
        safe_relpath,
        unusable_name,
    )

_EXPORTS = {
    "LimitExceeded": "bounded_parse",
    "TooLarge": "bounded_parse",
    "load_yaml": "bounded_parse",
    "parse_json": "bounded_parse",
    "MAX_JSON_BYTES": "bounded_read",
    "MAX_JSON_DEPTH": "bounded_read",
    "MAX_RECORD_DEPTH": "bounded_read",
    "deeper_than": "bounded_read",
    "loads_bounded": "bounded_read",
    "read_json": "bounded_read",
    "read_regular": "bounded_read",
    "SKIP_DIRS": "files",
    "Listing": "files",
    "display_path": "files",
    "is_utf8_name": "files",
    "list_files": "files",
    "read_regular_file": "files",
    "warn_skipped": "files",
    "PICKLE_SUFFIXES": "names",
    "has_pickle_suffix": "names",
    "safe_relpath": "names",
    "unusable_name": "names",
}
__all__ = [
    "MAX_JSON_BYTES",
    "MAX_JSON_DEPTH",
    "MAX_RECORD_DEPTH",
    "PICKLE_SUFFIXES",
    "SKIP_DIRS",
    "LimitExceeded",
    "Listing",
    "TooLarge",
    "deeper_than",
    "display_path",
    "has_pickle_suffix",
    "is_utf8_name",
    "list_files",
    "load_yaml",
    "loads_bounded",
    "parse_json",
    "read_json",
    "read_regular",
    "read_regular_file",
    "safe_relpath",
    "unusable_name",
    "warn_skipped",
]
__getattr__ = lazy_exports(__name__, _EXPORTS)
