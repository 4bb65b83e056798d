"""The engine every front end uses: search, identifier lookup, symbols, API checks, chunks, info.

`Engine` (`facade`) is a thin face over parts, each owning one kind of question:

- `parts`: the opened bundles (`OpenBundle`), each loading an index on first use, and the set of
  them (`OpenBundles`), which tags every result with its bundle;
- `hybrid`: `HybridSearch`, keyword, vector or both per bundle, merged by score;
- `lookup`: identifier lookup, definitions, workspace symbols, endpoints, deprecations;
- `api_checks`: the API model, checking calls and requests, usages in a project's code;
- `served`: what a host asks about the bundles it serves (summaries, mirror pages, outlines);
- `resolution`: what a name under a cursor resolves to, ranked; `describe`: everything a host
  shows about a name (`Engine.describe`); `deprecations`: the deprecated terms in any text;
- `readiness`: the warm-up before a swap and the background preparation of vector search;
- `inputs`: the one cleaning of names and paths callers pass.

`Engine.open` reads only manifests, and each capability loads what it needs on first use: lookup
never imports the embedding stack, onnxruntime or scipy, nor the keyword and vector modules, and
nothing here imports anything heavy at import time.

Several bundles can be opened together (Collibra's docs beside a team's own): each is searched on
its own and the answers are merged by score, each tagged with its bundle's name.
"""

from __future__ import annotations

from atlas_core.engine.deprecations import (
    PROSE_LANGUAGES,
    DeprecationMatcher,
    TermFinding,
    find_terms,
    linked,
)
from atlas_core.engine.describe import DescribeContext, Description
from atlas_core.engine.facade import Engine
from atlas_core.engine.readiness import WARM_MODES
from atlas_core.engine.resolution import Resolution
from atlas_core.search import (
    MAX_LIMIT,
    MAX_QUERY_CHARS,
    MAX_TOP_K,
    SearchSettings,
    clamp_count,
    looks_like_identifier,
    make_snippet,
)

__all__ = [
    "MAX_LIMIT",
    "MAX_QUERY_CHARS",
    "MAX_TOP_K",
    "PROSE_LANGUAGES",
    "WARM_MODES",
    "DeprecationMatcher",
    "DescribeContext",
    "Description",
    "Engine",
    "Resolution",
    "SearchSettings",
    "TermFinding",
    "clamp_count",
    "find_terms",
    "linked",
    "looks_like_identifier",
    "make_snippet",
]
