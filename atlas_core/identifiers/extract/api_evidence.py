"""What the docs pages say about the API beside the spec files, written at build time as
``identifiers/api_evidence.json`` (format in ``bundle_spec/SPEC.md``, "identifiers/").

- definitions: the OpenAPI operations a crawled reference page embeds as JSON in a fenced block
  (``api/*-reference.md``), in the wire spelling, with the page, its web address and the embedded
  spec's title, version and date;
- disagreements: where such a definition and a spec file's operation differ (a parameter or body
  property one has and the other lacks, a required flag, an enum, a deprecation), and which one
  the checks follow: the newer (version, then date; a crawled page when neither says, since the
  site is what is served now and a spec file a copy taken some time before);
- uses: the calls tutorials and examples show (`api_uses`);
- notices: a docs sentence saying an API no spec describes (``/rest/1.0``) is removed or blocked.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from atlas_core.identifiers.extract.api_uses import page_uses
from atlas_core.identifiers.store.api_evidence import EVIDENCE_FORMAT
from atlas_core.types import Document, IdentifierEntry, Param

EVIDENCE_VERSION = 1
MAX_SPEC_CHARS = 2_000_000  # one embedded spec block
MAX_DEFINITIONS = 20_000
MAX_NOTICES = 200
_METHODS = ("get", "post", "put", "patch", "delete", "head", "options")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})\s*([\w+-]*)")
_DATE_KEYS = ("date", "last_modified", "lastmod", "updated", "modified")
# "The REST API v1 (/rest/1.0) is removed", "calls to /rest/latest are blocked".
_API_PREFIX = re.compile(r"(?<![\w/])(/(?:rest/(?:1\.0|latest)|graphql|edge|console)\b[\w./-]*)")
_REMOVED_WORDS = re.compile(
    r"(?i)\b(?:removed|blocked|no longer (?:available|supported|works?)|decommissioned)\b"
)


def collect_evidence(documents: Sequence[Document]) -> dict[str, Any]:
    """Definitions, disagreements, uses and notices of a corpus (JSON-ready)."""
    definitions: list[dict[str, Any]] = []
    unreadable: list[str] = []
    uses: list[dict[str, Any]] = []
    notices: list[dict[str, Any]] = []
    for doc in documents:
        if doc.source == "openapi" or doc.language or not doc.text:
            continue
        page_url = doc.url or str(doc.metadata.get("source_url", "") or "")
        date = _page_date(doc.metadata)
        for line, block in _json_blocks(doc.text):
            if len(definitions) >= MAX_DEFINITIONS:
                break
            spec = _load_spec(block)
            if spec is None:
                unreadable.append(f"{doc.path}:{line}")
                continue
            definitions.extend(_definitions(spec, doc.path, page_url, line, date))
        uses.extend(page_uses(doc.path, page_url, doc.text))
        if len(notices) < MAX_NOTICES:
            notices.extend(_notices(doc.path, page_url, doc.text))
    files = _spec_operations(documents)
    disagreements = []
    for d in definitions:
        spec_op = files.get((d["method"], d["path"]))
        if spec_op is None:
            continue
        entry, version, date, spec_file = spec_op
        d["over"] = spec_file
        d["wins"] = _newer((d["version"], d["date"]), (version, date))
        disagreements.extend(_differences(d, entry))
    return {
        "format": EVIDENCE_FORMAT,
        "version": EVIDENCE_VERSION,
        "definitions": definitions,
        "disagreements": disagreements,
        "uses": uses,
        "notices": notices[:MAX_NOTICES],
        "unreadable": unreadable[:100],
    }


def write_evidence(documents: Sequence[Document], directory: Path, name: str) -> dict[str, int]:
    """Write the corpus's evidence to `directory/name`; its counts for the manifest."""
    found = collect_evidence(documents)
    text = json.dumps(found, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    (directory / name).write_text(text, encoding="utf-8")
    return {
        key: len(found[key])
        for key in ("definitions", "disagreements", "uses", "notices", "unreadable")
    }


# -- embedded specs ----------------------------------------------------------------------------


def _json_blocks(text: str) -> Iterable[tuple[int, str]]:
    """(1-based line, text) of each fenced JSON block that opens like an OpenAPI document."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m is None:
            i += 1
            continue
        fence, start = m.group(1), i
        i += 1
        while i < len(lines) and not lines[i].lstrip().startswith(fence):
            i += 1
        body = "\n".join(lines[start + 1 : i])
        i += 1
        head = body.lstrip()[:80]
        if m.group(2).lower() in ("json", "") and re.match(r'\{\s*"(?:openapi|swagger)"', head):
            yield start + 1, body


def _load_spec(block: str) -> dict[str, Any] | None:
    """The block as a spec; None when cut short (a crawl that kept part of a page) or too big."""
    if len(block) > MAX_SPEC_CHARS:
        return None
    try:
        spec = json.loads(block)
    except ValueError:
        return None
    return spec if isinstance(spec, dict) else None


def _page_date(metadata: Mapping[str, Any]) -> str:
    for key in _DATE_KEYS:
        value = metadata.get(key)
        if value:
            return str(value)[:40]
    return ""


def _definitions(
    spec: dict[str, Any], page: str, url: str, line: int, date: str
) -> list[dict[str, Any]]:
    info = _object(spec.get("info"))
    servers = spec.get("servers")
    base = ""
    if isinstance(servers, list) and servers and isinstance(servers[0], dict):
        base = str(servers[0].get("url") or "").rstrip("/")
        base = re.sub(r"^[a-z][\w+.-]*://[^/]*", "", base)
    out = []
    paths = spec.get("paths")
    for path, item in (paths if isinstance(paths, dict) else {}).items():
        if not isinstance(item, dict) or not str(path).startswith("/"):
            continue
        shared = _list(item.get("parameters"))
        for method in _METHODS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            own = _list(op.get("parameters"))
            params = [_param(spec, p) for p in [*shared, *own]]
            out.append(
                {
                    "method": method.upper(),
                    "path": str(path),
                    "base_path": base,
                    "title": " ".join(str(info.get("title", "")).split()),
                    "version": str(info.get("version", "")),
                    "date": str(info.get("x-date", "") or date)[:40],
                    "operation_id": str(op.get("operationId", "")),
                    "summary": " ".join(str(op.get("summary", "")).split())[:300],
                    "deprecated": bool(op.get("deprecated")),
                    "params": [p for p in params if p is not None],
                    "body": _body(spec, op.get("requestBody")),
                    "page": page,
                    "url": url,
                    "line": line,
                }
            )
    return out


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _resolve(spec: dict[str, Any], node: Any, depth: int = 0) -> Any:
    """`node` with a local ``$ref`` followed (a few hops; None when it points nowhere)."""
    while isinstance(node, dict) and isinstance(node.get("$ref"), str) and depth < 8:
        ref = node["$ref"]
        if not ref.startswith("#/"):
            return None
        target: Any = spec
        for part in ref[2:].split("/"):
            target = target.get(part) if isinstance(target, dict) else None
        node, depth = target, depth + 1
    return node


def _param(spec: dict[str, Any], raw: Any) -> dict[str, Any] | None:
    p = _resolve(spec, raw)
    if not isinstance(p, dict) or not p.get("name"):
        return None
    schema = _resolve(spec, p.get("schema")) or {}
    if isinstance(schema, dict) and schema.get("type") == "array":
        schema = _resolve(spec, schema.get("items")) or {}
    enum = schema.get("enum") if isinstance(schema, dict) else None
    return {
        "name": str(p["name"]),
        "in": str(p.get("in", "")),
        "required": bool(p.get("required")),
        "deprecated": bool(p.get("deprecated")),
        "enum": [str(v) for v in enum] if isinstance(enum, list) else [],
        "description": " ".join(str(p.get("description", "")).split())[:300],
    }


def _body(spec: dict[str, Any], raw: Any) -> list[dict[str, Any]] | None:
    """The request body's top-level properties (an array's items'); None when not an object
    whose properties the block shows."""
    body = _resolve(spec, raw)
    if not isinstance(body, dict):
        return None
    content = _object(body.get("content"))
    media = next((v for k, v in content.items() if "json" in k), None)
    schema = _resolve(spec, media.get("schema")) if isinstance(media, dict) else None
    if isinstance(schema, dict) and schema.get("type") == "array":
        schema = _resolve(spec, schema.get("items"))
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return None
    required = set(schema.get("required") or ())
    out = []
    for name, prop in schema["properties"].items():
        prop = _resolve(spec, prop) or {}
        enum = prop.get("enum") if isinstance(prop, dict) else None
        out.append(
            {
                "name": str(name),
                "in": "body",
                "required": name in required,
                "deprecated": bool(isinstance(prop, dict) and prop.get("deprecated")),
                "enum": [str(v) for v in enum] if isinstance(enum, list) else [],
                "description": " ".join(str(prop.get("description", "")).split())[:300]
                if isinstance(prop, dict)
                else "",
            }
        )
    return out


# -- against the spec files ----------------------------------------------------------------------


def _spec_operations(
    documents: Sequence[Document],
) -> dict[tuple[str, str], tuple[IdentifierEntry, str, str, str]]:
    """The spec files' operations by (method, path): the endpoint entry, the spec's version,
    date and file name."""
    found: dict[tuple[str, str], tuple[IdentifierEntry, str, str, str]] = {}
    for doc in documents:
        if doc.source != "openapi":
            continue
        version = str(doc.metadata.get("version", ""))
        date = str(doc.metadata.get("date", ""))
        spec_file = str(doc.metadata.get("spec", "")) or doc.path
        for e in doc.identifiers:
            if e.kind == "endpoint" and e.method and e.path:
                found.setdefault((e.method.upper(), e.path), (e, version, date, spec_file))
    return found


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", version)[:6])


def _newer(page: tuple[str, str], spec: tuple[str, str]) -> bool:
    """Whether the page's (version, date) is newer than the spec file's: version first, then
    date; on a tie the crawled page (the served site) over the copied file."""
    a, b = version_key(page[0]), version_key(spec[0])
    if a and b and a != b:
        return a > b
    if page[1] and spec[1] and page[1] != spec[1]:
        return page[1] > spec[1]
    return True


def _differences(d: dict[str, Any], entry: IdentifierEntry) -> list[dict[str, Any]]:
    """Each name on which the page's definition and the spec file's operation disagree."""
    op = f"{d['method']} {d['path']}"
    winner = d["page"] if d.get("wins") else d.get("over", "")
    base = {"operation": op, "page": d["page"], "url": d["url"], "file": d.get("over", "")}
    file_params: dict[str, Param] = {p.name: p for p in entry.params if p.location != "body"}
    page_params = {p["name"]: p for p in d["params"]}
    out = []

    def add(name: str, page_says: str, file_says: str) -> None:
        out.append(dict(base, name=name, page_says=page_says, file_says=file_says, follows=winner))

    for name, p in page_params.items():
        mine = file_params.get(name)
        if mine is None:
            add(name, f"{p['in']} parameter", "absent")
            continue
        if p["required"] != mine.required:
            add(name, _required(p["required"]), _required(mine.required))
        if p["enum"] and mine.enum and set(p["enum"]) != set(mine.enum):
            add(name, "values " + ", ".join(p["enum"]), "values " + ", ".join(mine.enum))
        if p["deprecated"] != mine.deprecated:
            add(name, _deprecated(p["deprecated"]), _deprecated(mine.deprecated))
    for name, mine in file_params.items():
        if name not in page_params:
            add(name, "absent", f"{mine.location} parameter")
    if d["deprecated"] != entry.deprecated:
        add("", _deprecated(d["deprecated"]), _deprecated(entry.deprecated))
    return out


def _required(flag: bool) -> str:
    return "required" if flag else "optional"


def _deprecated(flag: bool) -> str:
    return "deprecated" if flag else "not deprecated"


# -- notices about APIs no spec describes ------------------------------------------------------


def _notices(page: str, url: str, text: str) -> list[dict[str, Any]]:
    out = []
    for number, line in enumerate(text.split("\n"), start=1):
        if len(line) > 2000 or not _REMOVED_WORDS.search(line):
            continue
        for m in _API_PREFIX.finditer(line):
            prefix = m.group(1).rstrip("./")
            out.append(
                {
                    "prefix": prefix,
                    "page": page,
                    "url": url,
                    "line": number,
                    "text": " ".join(line.split())[:300],
                }
            )
    return out
