"""`atlas search`, `atlas lookup`, `atlas symbols` and `atlas evaluate`.

Without ``--bundle`` the bundle comes from `atlas_core.serving.resolve_bundle_paths`
($ATLAS_BUNDLE, the config file, the installed bundle, the embedded demo). ``--bundle`` may be given
several times (or hold several paths joined with the OS path separator); results are then merged.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from atlas_core.search import clip
from atlas_ls.cli.hints import note_demo

SEARCH_MODES = ("hybrid", "vector", "keyword")
SCOPES = ("all", "docs", "project")
DEFAULT_TOP_K = 10
MAX_ALSO_SHOWN = 5  # other pages of one subject printed by `atlas lookup`


def register(sub: Any) -> None:
    search = sub.add_parser(
        "search",
        help="search the docs and your indexed code (hybrid, vector or keyword)",
        description="Ranked passages for a question or an identifier, with file, heading and URL. "
        "Inside a repository indexed with `atlas index` (or with $ATLAS_PROJECT set) its code "
        "is searched too; --scope picks docs, project or all.",
    )
    search.add_argument("query", nargs="+", help="the question or identifier (words are joined)")
    _bundle_args(search)
    search.add_argument("--mode", choices=SEARCH_MODES, default="hybrid", help="default: hybrid")
    search.add_argument(
        "--top-k", type=int, default=DEFAULT_TOP_K, metavar="K", help="results (1-100, default 10)"
    )
    search.add_argument("--code", action="store_true", help="only passages with code blocks")
    search.add_argument("--publication", metavar="NAME", help="only this publication (section)")
    search.add_argument("--section", metavar="PREFIX", help="only files under this path prefix")
    search.add_argument(
        "--min-score", type=float, default=0.0, metavar="S", help="drop results scoring below S"
    )
    search.add_argument(
        "--rerank",
        action="store_true",
        help="re-score with the cross-encoder in $ATLAS_RERANKER or [rerank] model",
    )
    search.add_argument(
        "--scope",
        choices=SCOPES,
        default="all",
        help="docs, your indexed project (`atlas index`), or all (default: all)",
    )
    search.add_argument("--json", action="store_true", help="print a JSON list")
    search.set_defaults(func=run_search)

    lookup = sub.add_parser(
        "lookup",
        help="where an API identifier is documented",
        description="Resolve an endpoint, operation, type, JSON key or heading; best first.",
    )
    lookup.add_argument("identifier", help='e.g. findAssets, "GET /rest/2.0/assets/{assetId}"')
    _bundle_args(lookup)
    lookup.add_argument("--limit", type=int, default=10, metavar="N", help="candidates (1-100)")
    lookup.add_argument("--json", action="store_true", help="print a JSON list")
    lookup.set_defaults(func=run_lookup)

    symbols = sub.add_parser(
        "symbols",
        help="fuzzy search over endpoints, operations, types and headings",
        description="Workspace-symbol search as an editor does it.",
    )
    symbols.add_argument("query", help="part of a name, e.g. addAsset or assets/{id}")
    _bundle_args(symbols)
    symbols.add_argument("--limit", type=int, default=20, metavar="N", help="results (1-100)")
    symbols.add_argument("--json", action="store_true", help="print a JSON list")
    symbols.set_defaults(func=run_symbols)

    evaluate = sub.add_parser(
        "evaluate",
        help="measure retrieval quality on a golden query set",
        description="MRR@10, Recall@5, Hit@1, nDCG@10 and latency per mode, judged per file.",
    )
    evaluate.add_argument("--bundle", action="append", metavar="DIR", help="bundle directory")
    evaluate.add_argument("--golden", required=True, type=Path, metavar="FILE", help="JSON Lines")
    evaluate.add_argument(
        "--mode", choices=(*SEARCH_MODES, "all"), default="all", help="default: all"
    )
    evaluate.add_argument("--top-k", type=int, default=DEFAULT_TOP_K, metavar="K")
    evaluate.add_argument("--prefer", choices=("apple", "nvidia", "cpu"), help="embedding backend")
    evaluate.add_argument(
        "--split",
        metavar="NAME",
        help='only the cases whose "split" is NAME (train, dev, test); default: all, each '
        "split reported beside the overall",
    )
    evaluate.add_argument("--json", action="store_true", help="print one JSON object keyed by mode")
    evaluate.add_argument("--report", type=Path, metavar="HTML", help="write an HTML report")
    evaluate.add_argument(
        "--save",
        type=Path,
        metavar="FILE",
        help="also write the --json output to FILE, to --compare a later run against",
    )
    evaluate.add_argument(
        "--compare",
        type=Path,
        metavar="PREVIOUS",
        help="show deltas against a run saved with --save (or printed by --json)",
    )
    evaluate.add_argument(
        "--max-drop",
        type=float,
        metavar="TOLERANCE",
        help="with --compare: exit 1 when any metric of a mode falls by more than TOLERANCE "
        "(e.g. 0.02), the release gate",
    )
    evaluate.set_defaults(func=run_evaluate)


def _bundle_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bundle",
        action="append",
        metavar="DIR",
        help="bundle directory; repeat to search several (default: $ATLAS_BUNDLE, config, "
        "installed bundle, embedded demo)",
    )
    parser.add_argument("--prefer", choices=("apple", "nvidia", "cpu"), help="embedding backend")


def _open(args: argparse.Namespace, scope: str = "docs") -> Any:
    """The engine over the docs, and with `scope` "project" or "all" the project index of
    $ATLAS_PROJECT or of the working directory's repository; "project" without one is a
    QueryError saying how to index one."""
    from atlas_core.engine import Engine
    from atlas_core.serving import resolve_bundle_paths

    settings = args.settings
    paths = list(resolve_bundle_paths(args.bundle, settings))
    if scope != "docs":
        from atlas_core.project import no_project_error, project_bundles

        projects = project_bundles(settings.project)
        if not projects and scope == "project":
            raise no_project_error(
                "run `atlas search --scope project` inside the repository, or with "
                "ATLAS_PROJECT=PATH"
            )
        paths += [p for p in projects if p not in paths]
    return Engine.open(
        paths,
        prefer=settings.embed_backend,
        reranker=settings.reranker,
    )


def _print_json(value: Any) -> None:
    json.dump(value, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def hit_json(hit: Any) -> dict[str, Any]:
    out = {
        "rank": hit.rank,
        "score": hit.score,
        "file": hit.file,
        "publication": hit.publication,
        "title": hit.title,
        "heading": hit.heading,
        "chunk_id": hit.chunk_id,
        "url": hit.url,
        "snippet": hit.snippet,
        "line_start": hit.line_start,
        "line_end": hit.line_end,
        "is_code": hit.is_code,
    }
    if hit.bundle:
        out["bundle"] = hit.bundle
    return out


def candidate_json(candidate: Any) -> dict[str, Any]:
    out = asdict(candidate)
    out["params"] = [asdict(p) for p in candidate.params]
    return out


def run_search(args: argparse.Namespace) -> int:
    from atlas_core.types import SearchFilters

    query = " ".join(args.query)
    filters = SearchFilters(
        publication=args.publication,
        section=args.section,
        code_only=args.code,
        min_score=args.min_score,
    )
    with _open(args, args.scope) as engine:
        hits = engine.search(
            query,
            mode=args.mode,
            top_k=args.top_k,
            filters=filters,
            rerank=args.rerank,
            scope=args.scope,
        )
        demo = engine.serves_demo()
        off = engine.search_off()  # a hybrid search answered from the list left
    _print_hits(args, query, hits)
    for mode, why in off.items():
        print(f"note: {why}", file=sys.stderr)
        print(f"hint: `--mode {mode}` is refused until it is back", file=sys.stderr)
    note_demo(demo)
    return 0


def _print_hits(args: argparse.Namespace, query: str, hits: list[Any]) -> None:
    if args.json:
        _print_json([hit_json(h) for h in hits])
        return
    if not hits:
        print(f"no results for {query!r} ({args.mode})", file=sys.stderr)
        return
    for hit in hits:
        where = f"{hit.file}:{hit.line_start}" if hit.line_start else hit.file
        tag = f"[{hit.bundle}] " if hit.bundle else ""
        print(f"{hit.rank:>2}. {tag}{hit.heading or hit.title}  ({hit.score:.3f})")
        print(f"    {where}" + (f"  {hit.url}" if hit.url else ""))
        print(f"    {clip(hit.snippet, 200)}")


def run_lookup(args: argparse.Namespace) -> int:
    from atlas_core.engine import DescribeContext

    with _open(args) as engine:
        context = DescribeContext(limit=args.limit, definitions=0)  # the candidates alone
        candidates = engine.describe(args.identifier, context).candidates
        demo = engine.serves_demo()
    _print_candidates(args, candidates)
    note_demo(demo)
    return 0


def _print_candidates(args: argparse.Namespace, candidates: list[Any]) -> None:
    if args.json:
        _print_json([candidate_json(c) for c in candidates])
        return
    if not candidates:
        print(f"{args.identifier!r}: not documented in this bundle", file=sys.stderr)
        print(f"hint: try `atlas search {shlex.quote(args.identifier)}`", file=sys.stderr)
        return
    for i, c in enumerate(candidates, start=1):
        tag = f"[{c.bundle}] " if c.bundle else ""
        flag = (
            "  DEPRECATED" + (f" -> {c.replacement}" if c.replacement else "")
            if c.deprecated
            else ""
        )
        print(f"{i:>2}. {tag}{c.name}  [{c.role}, {c.confidence:.2f} {c.match}]{flag}")
        print(f"    {c.file}:{c.line}" + (f"  {c.url}" if c.url else ""))
        summary = " ".join(c.summary.split())
        if summary:
            print(f"    {clip(summary, 200)}")
        if c.also:
            shown = ", ".join(f"{p.file}:{p.line}" for p in c.also[:MAX_ALSO_SHOWN])
            more = len(c.also) - MAX_ALSO_SHOWN
            print(f"    also documented in: {shown}" + (f" and {more} more" if more > 0 else ""))


def run_symbols(args: argparse.Namespace) -> int:
    with _open(args) as engine:
        symbols = engine.symbols(args.query, limit=args.limit)
        demo = engine.serves_demo()
    if args.json:
        _print_json([asdict(s) for s in symbols])
    elif not symbols:
        print(f"no symbols match {args.query!r}", file=sys.stderr)
    else:
        width = min(60, max(len(s.name) for s in symbols))
        for s in symbols:
            print(f"{s.name:<{width}}  {s.kind:<9} {s.file}:{s.line}")
    note_demo(demo)
    return 0


def run_evaluate(args: argparse.Namespace) -> int:
    from atlas_core.evaluate import evaluate, expand_modes, format_table, load_golden, to_json

    if args.max_drop is not None and (args.compare is None or args.max_drop < 0):
        from atlas_core.errors import ConfigError

        raise ConfigError(
            "--max-drop needs --compare PREVIOUS and a tolerance of 0 or more",
            hint="e.g. --compare previous.json --max-drop 0.02",
        )
    cases = load_golden(args.golden)
    if args.split:
        from atlas_core.evaluate import select_split

        cases = select_split(cases, args.split)
    modes = expand_modes(args.mode)
    previous = None
    if args.compare:
        from atlas_core.evaluate import load_run, pair_modes

        # refuse a bad compare file before minutes of evaluation, not after
        previous = load_run(args.compare)
        pair_modes(list(previous.modes), modes)
    with _open(args) as engine:
        from atlas_core.search import MAX_TOP_K, clamp_count

        top_k = clamp_count(args.top_k, "top_k", MAX_TOP_K)
        reports = evaluate(engine, cases, modes, top_k=top_k)
        bundle = ", ".join(str(b.path) for b in engine.bundles)
    data: dict[str, Any] = to_json(reports)
    comparison = None
    if previous is not None:
        from atlas_core.evaluate import compare_runs, parse_run

        comparison = compare_runs(previous, parse_run(data, "this run"))
        data["compare"] = comparison.as_dict()
    dropped: list[str] = []
    if comparison is not None and args.max_drop is not None:
        from atlas_core.evaluate import metric_drops

        dropped = metric_drops(comparison, args.max_drop)
        data["compare"]["max_drop"] = {"tolerance": args.max_drop, "dropped": dropped}
    if args.save:
        from atlas_core.evaluate import save_run

        save_run(args.save, data)
    if args.report:
        from atlas_core.evaluate import write_report

        write_report(
            args.report, reports, comparison=comparison, bundle=bundle, golden=str(args.golden)
        )
    if args.json:
        _print_json(data)
        return _gate(dropped, args)
    print(format_table(reports))
    if comparison is not None:
        from atlas_core.evaluate import format_comparison

        print()
        print(format_comparison(comparison))
    if args.save:
        print(f"\nrun saved to {args.save} (compare a later run with --compare {args.save})")
    if args.report:
        print(f"\nreport written to {args.report}")
    return _gate(dropped, args)


def _gate(dropped: list[str], args: argparse.Namespace) -> int:
    """Exit 1, naming each drop, when scores fell beyond --max-drop; the release gate."""
    if not dropped:
        if args.max_drop is not None:
            print(f"no metric fell by more than {args.max_drop:g}", file=sys.stderr)
        return 0
    print(
        f"atlas: evaluate: {len(dropped)} score(s) fell by more than {args.max_drop:g} against "
        f"{args.compare}: " + "; ".join(dropped),
        file=sys.stderr,
    )
    return 1
