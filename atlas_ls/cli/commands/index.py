"""`atlas index [PATH] [--watch]`: the team's own code as a bundle beside the docs."""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from atlas_core.errors import AtlasError

if TYPE_CHECKING:
    from atlas_core.build import BuildCache, BuildReport
    from atlas_core.embed import Embedder
    from atlas_core.project import IndexTarget


def register(sub: argparse._SubParsersAction) -> None:
    index = sub.add_parser(
        "index",
        help="index your own code (a repository) to search it beside the docs",
        description="Build or update a bundle of a repository's source files and docs in the "
        "user data dir. Files git ignores, vendored folders, generated API models and protobuf "
        "stubs, lock files, binaries and huge files are left out (a ! line in .atlasignore "
        "takes generated code back in). It says up front how many files, chunks and minutes; "
        "a first index serves keyword answers within seconds while the vectors are computed. "
        "Updates embed only what changed; running servers pick the new bundle up by themselves.",
    )
    index.add_argument(
        "path",
        nargs="?",
        type=Path,
        metavar="PATH",
        help="the repository (default: the current one)",
    )
    index.add_argument(
        "--watch", action="store_true", help="keep the index current as files change (Ctrl-C stops)"
    )
    index.add_argument(
        "--output", "-o", type=Path, metavar="DIR", help="write the bundle here instead"
    )
    index.add_argument(
        "--model", default="default", metavar="default|hash|DIR", help="embedding model"
    )
    index.add_argument("--prefer", choices=("apple", "nvidia", "cpu"), help="embedding backend")
    index.add_argument(
        "--max-files",
        type=int,
        metavar="N",
        help="refuse a repository with more than N files to index (default 20,000)",
    )
    index.add_argument(
        "--explain",
        type=Path,
        metavar="FILE_OR_FOLDER",
        help="index nothing: say for each file there whether it would be indexed, and if not "
        "why (hidden folder, credentials name, content with a credential, .gitignore, ...); "
        "redactions by line and kind",
    )
    index.add_argument("--json", action="store_true", help="print the report as JSON")
    index.add_argument("--quiet", "-q", action="store_true", help="no progress output")
    index.set_defaults(func=run_index)


def run_index(args: argparse.Namespace) -> int:
    if args.explain is not None:
        return _explain(args)
    from atlas_core.project import index_project, target_of
    from atlas_ls.cli.commands.build import _interrupt_on_sigterm

    target = target_of(args.path, args.output, max_files=args.max_files)
    _interrupt_on_sigterm()
    progress = not args.quiet and not args.json
    say = _say if progress else None
    if not args.watch:
        report = index_project(
            target,
            model=args.model,
            prefer=args.settings.embed_backend,
            progress=progress,
            say=say,
        )
        _print_report(report, target.root, as_json=args.json)
        return 0
    from atlas_core.build import BuildCache
    from atlas_core.embed import load_embedder

    cache = BuildCache()  # the watch re-chunks and re-tokenizes only what changes
    with load_embedder(args.model, prefer=args.settings.embed_backend) as embedder:
        report = index_project(target, progress=progress, embedder=embedder, cache=cache, say=say)
        _print_report(report, target.root, as_json=args.json)
        _watch(args, target, embedder, cache)
    return 0


def _say(line: str) -> None:
    print(f"atlas index: {line}", file=sys.stderr, flush=True)


def _watch(
    args: argparse.Namespace, target: IndexTarget, embedder: Embedder, cache: BuildCache
) -> None:
    from atlas_core.project import watch_project

    def on_update(report: BuildReport | None, error: AtlasError | None, seconds: float) -> None:
        if error is not None:
            print(
                f"atlas index: update failed after {seconds:.1f} s: {error.message}; "
                "the previous index keeps serving",
                file=sys.stderr,
                flush=True,
            )
        elif report is not None:
            _print_report(report, target.root, as_json=args.json, seconds=seconds)

    def ready() -> None:
        print(f"watching {target.root} (Ctrl-C stops)", file=sys.stderr, flush=True)

    def on_gone(gone: bool) -> None:
        if gone:
            line = "is gone; the last index keeps serving, waiting for the folder to come back"
        else:
            line = "is back; indexing it"
        print(f"atlas index: {target.root} {line}", file=sys.stderr, flush=True)

    # Ctrl-C (SIGINT) is how a watch ends, also when it was started from a shell that had set
    # SIGINT to be ignored (a non-interactive shell does so for `atlas index --watch &`), which
    # Python would otherwise keep: the watch then outlived every kill -INT.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    with contextlib.suppress(KeyboardInterrupt):
        watch_project(
            target, on_update, ready=ready, embedder=embedder, cache=cache, on_gone=on_gone
        )


def _explain(args: argparse.Namespace) -> int:
    from atlas_core.project import project_root
    from atlas_core.sources import explain_indexing

    root = project_root(args.path if args.path is not None else Path.cwd())
    for found in explain_indexing(root, args.explain):
        print(json.dumps(found.as_dict()) if args.json else found.line(), flush=True)
    return 0


def _print_report(
    report: BuildReport, root: Path, *, as_json: bool, seconds: float | None = None
) -> None:
    if as_json:
        data = {"project": str(root), **report.as_dict()}
        if seconds is not None:
            data["update_seconds"] = round(seconds, 3)
        print(json.dumps(data), flush=True)
        return
    took = seconds if seconds is not None else report.seconds
    print(
        f"indexed {root}: {report.documents} files, {report.chunks} chunks "
        f"(embedded {report.embedded}, reused {report.reused}) in {took:.1f} s -> {report.output}",
        flush=True,
    )
    if report.skipped_files:
        from atlas_ls.cli.commands.build import skipped_files_line

        print(skipped_files_line(report.skipped_files), flush=True)
    if report.redacted:
        from atlas_ls.cli.commands.build import redacted_line

        print(redacted_line(report.redacted), flush=True)
    if report.line_windows:
        print(
            f"{len(report.line_windows)} file(s) cut in line windows (no usable grammar): "
            + ", ".join(list(report.line_windows)[:3]),
            flush=True,
        )
