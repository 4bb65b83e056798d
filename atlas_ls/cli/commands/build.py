"""`atlas build`, `atlas verify` and `atlas info`: make, check and describe bundles."""

from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path
from typing import Any

from atlas_core.errors import ConfigError

SOURCE_KINDS = ("local", "mirror", "git", "openapi", "code")


def register(sub: Any) -> None:
    build = sub.add_parser(
        "build",
        help="build a bundle from documentation sources",
        description="Read documentation sources, chunk, embed and index them, and write one bundle "
        "directory (see bundle_spec/SPEC.md). The output is replaced only when the build succeeds.",
    )
    build.add_argument(
        "--source",
        action="append",
        required=True,
        metavar="KIND=PATH",
        help="a source: local=DIR, mirror=DIR (crawler layout), git=REPO[@REF], openapi=FILE, "
        "code=REPO[#REF] (source files, chunked by definition); repeatable",
    )
    build.add_argument("--output", "-o", required=True, type=Path, metavar="DIR", help="bundle dir")
    build.add_argument(
        "--model",
        default="default",
        metavar="default|hash|DIR",
        help="embedding model: the packaged default, the hash test embedder, or an ONNX model dir",
    )
    build.add_argument("--prefer", choices=("apple", "nvidia", "cpu"), help="embedding backend")
    build.add_argument("--limit", type=int, metavar="N", help="use at most N documents")
    build.add_argument(
        "--reuse",
        type=Path,
        metavar="DIR",
        help="copy vectors of unchanged chunks from this bundle",
    )
    build.add_argument(
        "--no-clean-gitbook",
        dest="clean_gitbook",
        action="store_const",
        const=False,
        default=None,
        help="keep GitBook syntax as is (cleaning is on by default for mirrors)",
    )
    build.add_argument(
        "--no-ranking",
        dest="ranking",
        action="store_false",
        help="skip training the learned ranking and embedding the page cards (the bundle ranks "
        "with the plain fusion)",
    )
    build.add_argument(
        "--code-chunking",
        choices=("definition", "window"),
        default="definition",
        help="how code sources are cut: by definition (default) or in fixed 6,000-character "
        "windows (the usual codebase-RAG baseline, for comparison)",
    )
    build.add_argument(
        "--max-files",
        type=int,
        metavar="N",
        help="refuse a code source with more than N files to index (default 20,000)",
    )
    build.add_argument("--name", help="bundle name shown in results (default: the output dir name)")
    build.add_argument("--json", action="store_true", help="print the build report as JSON")
    build.add_argument("--quiet", "-q", action="store_true", help="no progress output")
    build.set_defaults(func=run_build)

    verify = sub.add_parser(
        "verify",
        help="check a bundle completely (every file's size and SHA-256)",
        description="Exit 0 when the bundle is intact; otherwise print one line per problem, each "
        "naming the file, and exit 1.",
    )
    verify.add_argument(
        "bundle", nargs="?", type=Path, metavar="DIR", help="default: the installed bundle"
    )
    verify.set_defaults(func=run_verify)

    info = sub.add_parser("info", help="summarise a bundle")
    info.add_argument(
        "bundle", nargs="?", type=Path, metavar="DIR", help="default: the installed bundle"
    )
    info.add_argument("--json", action="store_true", help="print JSON")
    info.set_defaults(func=run_info)


def _check_sources(specs: list[str]) -> None:
    for spec in specs:
        # Only the form is checked here; the sources part knows which kinds exist.
        kind, sep, path = spec.partition("=")
        if not kind or not sep or not path:
            raise ConfigError(
                f"--source {spec!r} is not KIND=PATH",
                hint=f"for example --source mirror=./collibra-docs; kinds: {', '.join(SOURCE_KINDS)}",
            )


def _interrupt_on_sigterm() -> None:
    # SIGTERM normally kills without unwinding; as KeyboardInterrupt the writer removes its staging.
    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)


def run_build(args: argparse.Namespace) -> int:
    _check_sources(args.source)
    if args.limit is not None and args.limit < 1:
        raise ConfigError(f"--limit must be at least 1, got {args.limit}")
    from atlas_core.bundle import bundle_name_problem

    if args.name is not None and (why := bundle_name_problem(args.name)):
        raise ConfigError(f"--name {why}", hint="for example --name collibra-docs")
    _interrupt_on_sigterm()
    from atlas_core.build import build_bundle

    report = build_bundle(
        args.source,
        args.output,
        model=args.model,
        prefer=args.settings.embed_backend,
        limit=args.limit,
        reuse=args.reuse,
        clean_gitbook=args.clean_gitbook,
        progress=not args.quiet,
        name=args.name,
        ranking=args.ranking,
        code_chunking=args.code_chunking,
        code_max_files=args.max_files,
    )
    if args.json:
        print(json.dumps(report.as_dict(), indent=2))
        return 0
    reuse = f", reused {report.reused}" if args.reuse is not None else ""
    print(
        f"built {report.output}: {report.documents} documents, {report.chunks} chunks "
        f"(embedded {report.embedded}{reuse}), {report.files} files, {_size(report.size)}, "
        f"model {report.model} on {report.backend}, {report.seconds:.1f} s "
        f"({report.chunks_per_s:.1f} chunks/s)"
    )
    print(f"ranking: {report.ranking}")
    if report.reuse_note:
        print(f"nothing reused from {args.reuse}: {report.reuse_note}")
    skipped = []
    if report.skipped_links:
        skipped.append(f"{report.skipped_links} symbolic link(s) (sources never follow links)")
    if report.skipped_names:
        skipped.append(f"{report.skipped_names} file(s) whose names are not UTF-8")
    if skipped:
        print(f"skipped {' and '.join(skipped)}; the warnings above name them")
    if report.skipped_files:
        print(f"code: {skipped_files_line(report.skipped_files)}")
    if report.redacted:
        print(f"code: {redacted_line(report.redacted)}")
    return 0


SHOWN_SKIPS = 6  # reasons named in the summary of what a code source left out


def skipped_files_line(counts: dict[str, int]) -> str:
    """ "skipped 23 file(s): 21 empty, 2 lock file": what code sources left out, most first."""
    reasons = sorted(counts.items(), key=lambda item: -item[1])
    shown = ", ".join(f"{n} {reason}" for reason, n in reasons[:SHOWN_SKIPS])
    more = f", {len(reasons) - SHOWN_SKIPS} more reasons" if len(reasons) > SHOWN_SKIPS else ""
    return f"skipped {sum(counts.values())} file(s): {shown}{more}"


def redacted_line(counts: dict[str, int]) -> str:
    """ "redacted 3 secret value(s): 2 github token, 1 password assignment (...)": what code
    sources replaced in the files they kept (the kinds, never the values)."""
    kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items(), key=lambda i: -i[1]))
    return (
        f"redacted {sum(counts.values())} secret value(s): {kinds} "
        "(atlas index --explain PATH shows where)"
    )


def bundle_arg(given: Path | None) -> Path:
    """The bundle folder a command acts on: the one given, else the installed bundle; a path
    that holds no bundle at all (no folder, an empty one) is one line, not a list of missing
    files."""
    from atlas_core.config import installed_bundle_dir
    from atlas_core.errors import BundleError

    bundle = given if given is not None else installed_bundle_dir()
    # A folder with files but no good manifest is a damaged bundle: verify names what is wrong.
    if not bundle.is_dir() or not any(bundle.iterdir()):
        hint = (
            "pass the folder of a bundle (it holds manifest.json)"
            if given is not None
            else "install one (`atlas download`, or offline `atlas install ARCHIVE`), or pass DIR"
        )
        raise BundleError(f"no bundle at {bundle}", hint=hint, path=str(bundle))
    return bundle


def run_verify(args: argparse.Namespace) -> int:
    from atlas_core.bundle import Bundle, verify_bundle

    args.bundle = bundle_arg(args.bundle)
    problems = verify_bundle(args.bundle)
    if problems:
        for line in problems:
            print(line)
        print(
            f"atlas: {args.bundle}: {len(problems)} problem(s); re-download it with "
            "`atlas download` or rebuild it with `atlas build`",
            file=sys.stderr,
        )
        return 1
    bundle = Bundle.open(args.bundle)
    print(
        f"OK {bundle.path}: format {bundle.format_version}, {bundle.chunk_count} chunks, "
        f"{len(bundle.files)} files ({_size(bundle.size)}), SHA-256 verified"
    )
    return 0


def info_dict(bundle: Any) -> dict[str, Any]:
    """The `atlas info --json` object for an opened bundle."""
    from atlas_core.changes import source_disagreements
    from atlas_core.search import describe_cards, describe_headings, describe_ranking

    info = bundle.info()
    manifest = bundle.manifest
    return {
        "path": info.path,
        "name": info.name,
        "format_version": info.format_version,
        "built_at": info.built_at,
        "atlas_version": manifest.get("atlas_version", ""),
        "documents": int(manifest["counts"].get("documents", 0)),
        "chunks": info.chunks,
        "identifiers": info.identifiers,
        "files": info.bundle_files,
        "size": bundle.size,
        "model": info.model,
        "model_kind": bundle.model.get("kind", ""),
        "dims": info.dims,
        "pooling": bundle.model.get("pooling", ""),
        "max_length": bundle.model.get("max_length"),
        "sources": list(info.sources),
        "keyword": dict(bundle.section("keyword") or {}),
        "ranking": describe_ranking(manifest),
        "cards": describe_cards(manifest),
        "headings": describe_headings(manifest),
        "publishers": bundle.publishers(),
        "build": dict(manifest.get("build", {})),
        "disagreements": source_disagreements(bundle.path),
    }


def _publishers_line(publishers: dict[str, list[str]]) -> str:
    if not publishers:
        return (
            "publishers  not recorded (built before format 1.4): pages rank as before, "
            "without source authority"
        )
    parts = []
    for kind, where in sorted(publishers.items()):
        shown = ", ".join(where[:4]) + (f" and {len(where) - 4} more" if len(where) > 4 else "")
        parts.append(f"{kind}: {shown}")
    return "publishers  " + "; ".join(parts)


def run_info(args: argparse.Namespace) -> int:
    from atlas_core.bundle import Bundle

    bundle = Bundle.open(bundle_arg(args.bundle))
    data = info_dict(bundle)
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    kind = f" [{data['model_kind']}]" if data["model_kind"] else ""
    lines = [
        f"bundle      {data['name']}  ({data['path']})",
        f"format      {data['format_version']}  built {data['built_at']} by atlas {data['atlas_version']}",
        f"model       {data['model']}{kind}, {data['dims']} dims",
        f"contents    {data['documents']} documents, {data['chunks']} chunks, "
        f"{data['identifiers']} identifiers",
        f"files       {data['files']} ({_size(data['size'])})",
        f"ranking     {data['ranking']}",
        f"cards       {data['cards']}",
        f"headings    {data['headings']}",
    ]
    if data["model_kind"] == "hash":
        lines.append("note        built with the hash test embedder: vector search is meaningless")
    lines.append(_publishers_line(data["publishers"]))
    for source in data["sources"]:
        extra = ", ".join(
            f"{k}={v}"
            for k, v in source.items()
            if k not in ("kind", "path") and isinstance(v, str | int | float | bool)
        )
        lines.append(f"source      {source.get('kind')}={source.get('path', '')}  {extra}".rstrip())
    if data["disagreements"]:
        from atlas_core.changes import disagreement_line

        lines.append(
            f"disagree    {len(data['disagreements'])} definitions (docs page vs spec file)"
        )
        lines += [f"  {disagreement_line(d)}" for d in data["disagreements"]]
    print("\n".join(lines))
    from atlas_ls.cli.hints import note_demo

    note_demo(bundle.is_demo)
    return 0


def _size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"
