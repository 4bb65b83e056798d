"""`atlas doctor` (`atlas smoke` drives the servers, so the host package registers it)."""

from __future__ import annotations

import argparse
import json


def register(sub: argparse._SubParsersAction) -> None:
    doctor = sub.add_parser(
        "doctor", help="check the platform, embedding backends, bundle, ripgrep and recognisers"
    )
    doctor.add_argument("--bundle", action="append", default=None, help="bundle to check")
    doctor.add_argument("--json", action="store_true", help="one JSON object")
    doctor.add_argument("--refresh", action="store_true", help="probe backends again (no cache)")
    doctor.add_argument("--full", action="store_true", help="also check every file's SHA-256")
    doctor.set_defaults(func=run_doctor, reports_config=True)


def run_doctor(args: argparse.Namespace) -> int:
    from atlas_ls.cli.doctor import as_json, diagnose, render

    report = diagnose(args.settings, args.bundle, refresh=args.refresh, full=args.full)
    print(json.dumps(as_json(report), indent=2) if args.json else render(report))
    return 1 if report.failed else 0
