"""Changes: what differs between two bundles (pages, endpoints, operations, parameters, schemas,
properties, deprecations), and the bundle an installed one replaced.

- `diff_bundles(old, new)` compares two bundle folders from their manifests and identifier
  tables (no vectors, no model), into a `BundleDiff`;
- `previous_bundle(path)` finds the bundle an installed release replaced, and
  `changes_since_previous(path)` compares the two;
- `source_disagreements(path)`: where the bundle's docs pages and spec files define an operation
  differently, and which the checks follow (`disagreement_line` writes one);
  `resolve_bundle_arg` turns `current`, `previous` or a release name into a folder;
- `diff_text`, `diff_json`, `summary_json` render a diff for the CLI and for agents.
"""

from __future__ import annotations

from atlas_core.changes.compare import BundleDiff, Change, diff_bundles
from atlas_core.changes.previous import (
    changes_since_previous,
    previous_bundle,
    resolve_bundle_arg,
)
from atlas_core.changes.render import diff_json, diff_text, summary_json
from atlas_core.changes.sources import disagreement_line, source_disagreements

__all__ = [
    "BundleDiff",
    "Change",
    "changes_since_previous",
    "diff_bundles",
    "diff_json",
    "diff_text",
    "disagreement_line",
    "previous_bundle",
    "resolve_bundle_arg",
    "source_disagreements",
    "summary_json",
]
