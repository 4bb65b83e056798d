"""What one bundle says that another can be compared with: its manifest facts, the hash of every
docs page, and the API model its identifier table holds (endpoints, operations, parameters,
schemas, properties, deprecations).

Only `manifest.json` and `identifiers/` are read; no vectors, no chunk table, no model. A table this
Atlas cannot read (another table format) leaves the API model out and says why, so pages are still
compared.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from atlas_core.bundle import MANIFEST, MIRROR, MODEL
from atlas_core.errors import AtlasError, BundleError
from atlas_core.safeio import read_json
from atlas_core.types import Param

# The kinds a diff reports, in the order it shows them.
KINDS = ("page", "endpoint", "operation", "parameter", "schema", "property", "deprecation")
PLURALS = {
    "page": "pages",
    "endpoint": "endpoints",
    "operation": "operations",
    "parameter": "parameters",
    "schema": "schemas",
    "property": "properties",
    "deprecation": "deprecations",
}
# Identifier-table kinds read for the API model; headings, JSON keys and the like are page text,
# which the page hashes already cover.
TABLE_KINDS = ("endpoint", "operation", "schema", "parameter", "property")


@dataclass(frozen=True, slots=True)
class Item:
    """One thing of one kind, named the way a reader of the diff finds it, with the facts that
    count as a change when they differ (values are text, or tuples of text for lists)."""

    kind: str
    name: str
    facts: Mapping[str, str | tuple[str, ...]]
    file: str = ""


@dataclass(frozen=True, slots=True)
class Side:
    """The manifest facts of one bundle that a diff shows and checks for comparability."""

    path: str
    name: str
    built_at: str
    format_version: str
    model: str
    dims: int
    chunks: int
    model_files: Mapping[str, str]  # model/<file> -> sha256: the same hashes mean the same model


@dataclass(frozen=True, slots=True)
class BundleFacts:
    side: Side
    pages: Mapping[str, str]  # mirror-relative path -> sha256
    items: Mapping[str, Mapping[str, Item]] = field(default_factory=dict)  # kind -> name -> item
    table_problem: str = ""  # why the identifier table was not read ("" when it was)


def read_facts(path: Path) -> BundleFacts:
    """The comparable facts of the bundle at `path`; BundleError naming it when it is none."""
    root = path.expanduser()
    manifest = _manifest(root)
    files = manifest.get("files")
    files = files if isinstance(files, dict) else {}
    pages: dict[str, str] = {}
    model_files: dict[str, str] = {}
    for rel, entry in files.items():
        digest = str(entry.get("sha256", "")) if isinstance(entry, dict) else ""
        if rel.startswith(f"{MIRROR}/"):
            pages[rel.removeprefix(f"{MIRROR}/")] = digest
        elif rel.startswith(f"{MODEL}/"):
            model_files[rel] = digest
    side = _side(root, manifest, model_files)
    try:
        items = _api_items(root)
    except AtlasError as exc:
        return BundleFacts(side, pages, table_problem=exc.message)
    return BundleFacts(side, pages, items)


def _manifest(root: Path) -> dict[str, Any]:
    hint = (
        "pass a bundle folder (built by `atlas build`, installed by `atlas download`), or `current`"
    )
    if not root.is_dir():
        what = "a file, not a folder" if root.exists() else "no such folder"
        raise BundleError(f"{root} is not a bundle: {what}", hint=hint, path=str(root))
    path = root / MANIFEST
    try:
        manifest = read_json(path)
    except FileNotFoundError:
        raise BundleError(
            f"{root} is not a bundle: it has no {MANIFEST}", hint=hint, path=str(root)
        ) from None
    except (OSError, ValueError) as exc:  # ValueError: bad JSON or not UTF-8
        raise BundleError(
            f"{path} is unreadable: {exc}",
            hint="run `atlas verify` on it, then re-download or rebuild it",
            path=str(path),
        ) from None
    if not isinstance(manifest, dict):
        raise BundleError(
            f"{path} is not a bundle manifest (not a JSON object)", hint=hint, path=str(path)
        )
    return manifest


def _side(root: Path, manifest: dict[str, Any], model_files: dict[str, str]) -> Side:
    model = manifest.get("model")
    model = model if isinstance(model, dict) else {}
    counts = manifest.get("counts")
    counts = counts if isinstance(counts, dict) else {}
    return Side(
        path=str(root),
        name=str(manifest.get("name") or root.name),
        built_at=str(manifest.get("built_at") or ""),
        format_version=str(manifest.get("format_version") or "?"),
        model=str(model.get("name") or "?"),
        dims=_int(model.get("dims")),
        chunks=_int(counts.get("chunks")),
        model_files=model_files,
    )


def _int(value: object) -> int:
    return value if type(value) is int else 0


def _api_items(root: Path) -> dict[str, dict[str, Item]]:
    from atlas_core.identifiers import IdentifierIndex, record_params

    items: dict[str, dict[str, Item]] = {kind: {} for kind in KINDS if kind != "page"}
    index = IdentifierIndex.open(root)
    try:
        for kind, name, rec in index.rows_of(TABLE_KINDS):
            params = record_params(rec)
            for item in _items_of(kind, name, rec, params):
                # Rows of one kind and name come best first: the first one describes it.
                items[item.kind].setdefault(item.name, item)
        for dep in index.deprecations():
            items["deprecation"].setdefault(
                dep.term, Item("deprecation", dep.term, {"replacement": dep.replacement}, dep.file)
            )
    finally:
        index.close()
    return items


def _items_of(kind: str, name: str, rec: dict[str, Any], params: tuple[Param, ...]) -> list[Item]:
    file = str(rec.get("file", ""))
    method, path = str(rec.get("method", "")), str(rec.get("path", ""))
    endpoint = f"{method} {path}" if method and path else ""
    found: list[Item] = []
    if kind == "endpoint":
        found.append(Item(kind, name, _operation_facts(rec), file))
    elif kind == "operation":
        found.append(Item(kind, name, {"endpoint": endpoint} | _operation_facts(rec), file))
    elif kind == "schema":
        properties = tuple(sorted(p.name for p in params))
        found.append(Item(kind, name, {"properties": properties}, file))
    elif params:
        p = params[0]
        owner = str(rec.get("owner", ""))
        if owner:  # a schema's property
            found.append(Item("property", f"{owner}.{p.name}", _param_facts(p), file))
        elif endpoint:  # an operation's parameter, or a field of its request or response body
            label = f"{endpoint} {p.name} ({p.location})"
            found.append(Item("parameter", label, _param_facts(p), file))
        # A field no operation or schema owns (a response table in a guide) is page text.
        if p.deprecated and (owner or endpoint):
            label = found[-1].name
            found.append(Item("deprecation", label, {"replacement": ""}, file))
    if kind in ("endpoint", "operation", "schema") and rec.get("deprecated"):
        replacement = str(rec.get("replacement", ""))
        found.append(Item("deprecation", name, {"replacement": replacement}, file))
    return found


def _operation_facts(rec: dict[str, Any]) -> dict[str, str | tuple[str, ...]]:
    return {
        "operation id": str(rec.get("operation_id", "")),
        "summary": str(rec.get("summary", "")),
        "request schema": str(rec.get("request_schema", "")),
        "response schema": str(rec.get("response_schema", "")),
    }


def _param_facts(p: Param) -> dict[str, str | tuple[str, ...]]:
    return {
        "type": p.type,
        "required": "yes" if p.required else "no",
        "format": p.format,
        "enum": tuple(p.enum),
        "default": p.default,
    }
