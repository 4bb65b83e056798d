"""`atlas diff OLD NEW`: what changed between two bundles."""

from __future__ import annotations

import argparse
import json
import sys


def register(sub: argparse._SubParsersAction) -> None:
    diff = sub.add_parser(
        "diff",
        help="list pages, endpoints, parameters, schemas and deprecations added, removed, changed",
        description="Compare two bundles from their manifests and identifier tables. OLD and NEW "
        "are bundle folders, `current` (the bundle commands open by default), `previous` (the one "
        "the installed bundle replaced) or the name of an installed release.",
    )
    diff.add_argument("old", metavar="OLD", help="the earlier bundle")
    diff.add_argument("new", metavar="NEW", help="the later bundle")
    diff.add_argument("--json", action="store_true", help="one JSON object with stable keys")
    diff.add_argument(
        "--limit", type=int, default=50, help="changes listed per kind in the text (0: all; 50)"
    )
    diff.set_defaults(func=run_diff)


def run_diff(args: argparse.Namespace) -> int:
    from atlas_core.changes import diff_bundles, diff_json, diff_text, resolve_bundle_arg

    settings = args.settings
    diff = diff_bundles(
        resolve_bundle_arg(args.old, settings), resolve_bundle_arg(args.new, settings)
    )
    if args.json:
        json.dump(diff_json(diff), sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        print(diff_text(diff, limit=args.limit))
    return 0
