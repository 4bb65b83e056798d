"""`atlas demo`: build the embedded demo bundle on first use, then show what the engine does.

It runs a few searches in every mode, an identifier lookup and a symbol search over the demo docs,
so a new user sees ranked, cited passages without configuring anything.
"""

from __future__ import annotations

import argparse
import re
import shlex
import sys
from pathlib import Path
from typing import Any, TextIO

from atlas_core.search import clip
from atlas_core.types import SEARCH_MODES
from atlas_ls.cli.hints import note_demo

# Chosen so each mode shows its strength: a paraphrase with no shared keywords (vector), exact API
# terms (keyword), and a plain question (hybrid). All are answered by the demo docs.
DEMO_QUERIES: tuple[str, ...] = (
    "skip the failing rows of a bulk load instead of rolling everything back",
    "let a backend service call the API without a user's password",
    "TableViewConfig Columns displayLength",
)
DEMO_LOOKUPS: tuple[str, ...] = ("findAssets", "GET /rest/2.0/assets/{assetId}")
DEMO_SYMBOL_QUERY = "AddAssetReq"
SNIPPET_WIDTH = 160
_SPACE = re.compile(r"\s+")


def register(sub: Any) -> None:
    demo = sub.add_parser(
        "demo",
        help="build the embedded demo docs (first use) and show search, lookup and symbols",
        description="Builds the documentation that ships with Atlas into a bundle in the cache "
        "dir on first use (later runs reuse it), then shows searches in each mode, an identifier "
        "lookup and a symbol search.",
    )
    demo.add_argument("--top-k", type=int, default=3, metavar="K", help="results per search")
    demo.add_argument("--prefer", choices=("apple", "nvidia", "cpu"), help="embedding backend")
    demo.add_argument("--quiet", "-q", action="store_true", help="no build progress output")
    demo.set_defaults(func=run_demo)


def _line(text: str) -> str:
    return clip(_SPACE.sub(" ", text).strip(), SNIPPET_WIDTH)


def try_lines(bundle: Path) -> list[str]:
    """Commands to run next, written as they work here: with ``uv run`` in a uv project (a
    clone), where `atlas` is on no PATH; the path quoted for a shell."""
    from atlas_core.console import installation

    install = installation()
    return [
        install.atlas(f'search "how do I page through assets" --bundle {shlex.quote(str(bundle))}'),
        install.atlas("lookup addAssets") + "   (the demo is the default until you install docs)",
    ]


def _header(out: TextIO, title: str) -> None:
    print(f"\n== {title}", file=out)


def run_demo(args: argparse.Namespace) -> int:
    from atlas_core.demo import ensure_demo_bundle
    from atlas_core.engine import Engine
    from atlas_core.errors import QueryError

    if not 1 <= args.top_k <= 20:
        raise QueryError(f"--top-k must be between 1 and 20, got {args.top_k}")
    out = sys.stdout
    path = ensure_demo_bundle(progress=not args.quiet)
    with Engine.open(path, prefer=args.settings.embed_backend) as engine:
        info = engine.info()
        print(
            f"== Atlas demo bundle: {info.path} ({info.doc_files} files, {info.chunks} chunks, "
            f"{info.identifiers} identifiers, model {info.model})",
            file=out,
        )
        for query in DEMO_QUERIES:
            for mode in SEARCH_MODES:
                _header(out, f'{mode} search: "{query}"')
                hits = engine.search(query, mode=mode, top_k=args.top_k)
                if not hits:
                    print("  (no results)", file=out)
                for hit in hits:
                    where = f"{hit.file}:{hit.line_start}" if hit.line_start else hit.file
                    print(f"  {hit.rank}. {hit.score:.3f}  {where}  [{hit.heading}]", file=out)
                    print(f"       {_line(hit.snippet)}", file=out)
        for identifier in DEMO_LOOKUPS:
            _header(out, f"lookup: {identifier}")
            candidates = engine.lookup(identifier, limit=args.top_k)
            if not candidates:
                print("  (not found)", file=out)
            for i, c in enumerate(candidates, start=1):
                print(
                    f"  {i}. {c.confidence:.2f} {c.match:<10} {c.kind:<9} {c.name}  "
                    f"{c.file}:{c.line}",
                    file=out,
                )
                if c.summary:
                    print(f"       {_line(c.summary)}", file=out)
        _header(out, f'symbols: "{DEMO_SYMBOL_QUERY}"')
        symbols = engine.symbols(DEMO_SYMBOL_QUERY, limit=max(5, args.top_k))
        if not symbols:
            print("  (no symbols)", file=out)
        for i, s in enumerate(symbols, start=1):
            print(f"  {i}. {s.score:.2f} {s.kind:<9} {s.name}  {s.file}:{s.line}", file=out)
        backend = engine.info().backend
    _header(out, "try it yourself")
    for line in try_lines(path):
        print(f"  {line}", file=out)
    if backend:
        print(f"  (queries embedded on {backend})", file=out)
    out.flush()
    note_demo(True)
    return 0
