"""`atlas doctor` and `atlas smoke`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    doctor = sub.add_parser(
        "doctor", help="check the platform, embedding backends, bundle, ripgrep and recognisers"
    )
    doctor.add_argument("--bundle", action="append", default=None, help="bundle to check")
    doctor.add_argument("--json", action="store_true", help="one JSON object")
    doctor.add_argument("--refresh", action="store_true", help="probe backends again (no cache)")
    doctor.add_argument("--full", action="store_true", help="also check every file's SHA-256")
    doctor.set_defaults(func=run_doctor)

    smoke = sub.add_parser(
        "smoke", help="one real request per search mode, lookup, symbols, LSP and MCP server"
    )
    smoke.add_argument("--bundle", action="append", default=None, help="bundle to test")
    smoke.set_defaults(func=run_smoke)


def run_doctor(args: argparse.Namespace) -> int:
    from atlas_core.doctor import as_json, diagnose, render

    report = diagnose(args.bundle, refresh=args.refresh, full=args.full)
    print(json.dumps(as_json(report), indent=2) if args.json else render(report))
    return 1 if report.failed else 0


def run_smoke(args: argparse.Namespace) -> int:
    from atlas_core.bundle_locator import resolve_bundle_paths
    from atlas_core.smoke import Step, run_smoke

    paths = [Path(p) for p in resolve_bundle_paths(args.bundle)]

    def emit(step: Step) -> None:
        print(f"{'PASS' if step.passed else 'FAIL'} {step.name} ({step.ms:.0f} ms): {step.detail}",
              flush=True)  # fmt: skip

    steps = run_smoke(paths, emit)
    failed = [s for s in steps if not s.passed]
    print(f"{len(steps) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0
