"""`atlas smoke`: the command; the steps it runs are in `atlas_ls.cli.smoke`, imported only when
it runs so `atlas --help` does not pay for them."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    smoke = sub.add_parser(
        "smoke", help="one real request per search mode, lookup, symbols, LSP and MCP server"
    )
    smoke.add_argument("--bundle", action="append", default=None, help="bundle to test")
    smoke.set_defaults(func=run_smoke)


def run_smoke(args: argparse.Namespace) -> int:
    from atlas_core.serving import resolve_bundle_paths
    from atlas_ls.cli.smoke import Step, run_smoke

    paths = [Path(p) for p in resolve_bundle_paths(args.bundle, args.settings)]
    tested = _describe(paths)
    print(f"atlas smoke: testing {tested}", flush=True)

    def emit(step: Step) -> None:
        print(f"{'PASS' if step.passed else 'FAIL'} {step.name} ({step.ms:.0f} ms): {step.detail}",
              flush=True)  # fmt: skip

    steps = run_smoke(paths, emit, prefer=args.settings.embed_backend)
    failed = [s for s in steps if not s.passed]
    print(f"{len(steps) - len(failed)} passed, {len(failed)} failed on {tested}")
    return 1 if failed else 0


def _describe(paths: list[Path]) -> str:
    """The bundles under test by name and path, saying so when one is the embedded demo."""
    from atlas_core.bundle import Bundle
    from atlas_core.demo import DEMO_NOTE, REAL_DOCS_HINT
    from atlas_core.errors import AtlasError

    described = []
    for path in paths:
        try:
            bundle = Bundle.open(path)
        except AtlasError:  # the "open bundle" step reports why
            described.append(f"the bundle at {path}")
            continue
        text = f"bundle {bundle.name} at {path}"
        if bundle.is_demo:
            text += f" ({DEMO_NOTE}; {REAL_DOCS_HINT})"
        described.append(text)
    return ", ".join(described)
