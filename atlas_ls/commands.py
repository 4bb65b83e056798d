"""`atlas smoke`: the host's command, registered into the `atlas` CLI through the
``atlas.commands`` entry point (the engine package never imports the servers it starts)."""

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
    from atlas_core.serving.locator import resolve_bundle_paths
    from atlas_ls.smoke import Step, run_smoke

    paths = [Path(p) for p in resolve_bundle_paths(args.bundle)]

    def emit(step: Step) -> None:
        print(f"{'PASS' if step.passed else 'FAIL'} {step.name} ({step.ms:.0f} ms): {step.detail}",
              flush=True)  # fmt: skip

    steps = run_smoke(paths, emit)
    failed = [s for s in steps if not s.passed]
    print(f"{len(steps) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0
