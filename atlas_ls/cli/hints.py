"""What the CLI says about where its answers come from and how to get the real docs.

The demo wording itself is `atlas_core.demo`'s (hover, MCP, the servers and doctor say the same);
this adds the offline routes, for a machine that cannot reach the release server.
"""

from __future__ import annotations

import sys

OFFLINE_ROUTE = (
    "offline: copy a release archive here by hand and run `atlas install ARCHIVE`, or build "
    "the bundle from a docs mirror and the OpenAPI specs with `atlas build --source "
    "mirror=DOCS_DIR --source openapi=SPEC.json ... --output DIR`, then `atlas install DIR`"
)


def demo_line() -> str:
    """The line that ends every CLI answer from the embedded demo bundle."""
    from atlas_core.demo import DEMO_NOTE, REAL_DOCS_HINT

    return f"note: these answers come from {DEMO_NOTE}; {REAL_DOCS_HINT} ({OFFLINE_ROUTE})"


def note_demo(demo: bool) -> None:
    """End an answer with `demo_line` when it came from the demo (on stderr: a --json answer on
    stdout stays one JSON value)."""
    if demo:
        print(demo_line(), file=sys.stderr)
