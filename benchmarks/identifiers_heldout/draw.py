"""Draw the held-out identifier set: names real client code and the docs' prose use, each with
every page that defines it, the page hover should show first, and a frozen split.

    uv run python benchmarks/identifiers_heldout/draw.py [--mirror /tmp/qbundle/mirror]
        [--clients ../shared/real-clients/files] [--write]

Method (fixed before any ranking was measured on it; nothing here reads Atlas's lookup):
1. Definitions are read from the bundle mirror's pages by their layout:
   - the vendor's spec pages (`dgc-rest/*.md`, `dgc-importer-rest/*.md`): an operation is the
     operationId after its request line, a path the request line's template (under `/rest/2.0`),
     a parameter a backticked first cell of a **Parameters** table, a schema a `## Name` heading
     of `schemas.md`, a property a backticked first cell of a schema's table, an enum value a name
     listed after `Values:` in a row;
   - the official API reference pages (`api/*.md`): the OpenAPI they embed as JSON (operationId,
     parameter names, path templates, schema names and their property names and enum values; from
     the text as written where a crawled block is cut short and does not parse);
   - the third-party client's generated pages (`rest-core/*`, `rest-core-models/*`): a `# **name**`
     operation heading, a `**METHOD** /path` row, a `**name**` first cell of a parameter or
     property table, the model page's `# Name` heading;
   - guide pages (every other folder): a concept is a backticked name in a heading.
   Names are matched as written and in the other spelling (snake_case <-> camelCase) for
   operations, parameters and properties, since the generated client renames them.
2. Candidates: (a) from every file of the real client code, its string literals, keyword
   arguments, object keys, attribute calls and CamelCase words; (b) from the guide pages of
   tutorials, import-api, workflows, misc, lineage and output-module, the backticked names of
   their prose. A candidate is kept when step 1 finds a definition of it and at most
   `MAX_PAGES` pages define it (a name every operation takes identifies nothing).
3. Class: the first of operation, path, schema, parameter, property, enum, concept that defines it.
   `expected_files` = every defining page; `primary` = the vendor's page: the one spec page that
   defines it for an operation, path, schema, parameter, property or enum (none when several spec
   pages do), the one guide page whose heading defines a concept.
4. Sampling: per source kind (client, docs) and class, names are ordered by SHA-256 of
   ``SALT + name`` and the first ``QUOTA[kind][class]`` taken; a name drawn once is not drawn again.
   `source` is the first file (sorted) where the name was found.
5. Split by SHA-256 of ``SPLIT_SALT + name``: 2 in 10 test, 2 in 10 dev, the rest train.
Without ``--write`` the draw is recomputed and compared with `cases.jsonl`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DEFAULT_MIRROR = Path("/tmp/qbundle/mirror")
DEFAULT_CLIENTS = ROOT.parent / "shared" / "real-clients" / "files"
SALT = "atlas-identifiers-heldout-2026-12-06:"
SPLIT_SALT = "atlas-identifiers-split-2026-12-06:"
MAX_PAGES = 6
CLASSES = ("operation", "path", "schema", "parameter", "property", "enum", "concept")
QUOTA = {
    "client": {"operation": 50, "path": 40, "schema": 30, "parameter": 40, "property": 40,
               "enum": 20, "concept": 5},
    "docs": {"operation": 10, "path": 5, "schema": 5, "parameter": 10, "property": 10,
             "enum": 5, "concept": 50},
}  # fmt: skip
SPEC = ("dgc-rest/", "dgc-importer-rest/")
THIRD_PARTY = ("rest-core/", "rest-core-models/")
PROSE = ("tutorials", "import-api", "workflows", "misc", "lineage", "output-module")
METHODS = "GET|POST|PUT|PATCH|DELETE"
NAME = r"[A-Za-z_][A-Za-z0-9_]{2,60}"


def snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def path_key(path: str) -> str:
    """A path template with its placeholders blanked and the `/rest/2.0` base dropped."""
    path = re.sub(r"\$?\{[^}]*\}", "{}", path.split("?", 1)[0]).rstrip("/")
    return path.removeprefix("/rest/2.0") or "/"


class Definitions:
    def __init__(self) -> None:
        self.pages: dict[str, set[str]] = defaultdict(set)  # key -> defining pages
        self.classes: dict[str, set[str]] = defaultdict(set)  # key -> classes

    def add(self, name: str, cls: str, page: str) -> None:
        keys = {path_key(name)} if cls == "path" else {name}
        if cls in {"operation", "parameter", "property"}:
            keys |= {snake(name), camel(name)}
        for key in keys:
            self.pages[key].add(page)
            self.classes[key].add(cls)

    def find(self, name: str) -> tuple[str, set[str]] | None:
        key = path_key(name) if name.startswith("/") else name
        if key not in self.pages:
            return None
        cls = next(c for c in CLASSES if c in self.classes[key])
        return cls, self.pages[key]


def read_spec_page(defs: Definitions, page: str, text: str) -> None:
    schemas = page.endswith("/schemas.md")
    in_params = False
    for line in text.splitlines():
        if m := re.match(rf"`({METHODS}) (/\S*)` · operationId `({NAME})`", line):
            defs.add(m[2], "path", page)
            defs.add(m[3], "operation", page)
        if line.startswith("**Parameters**"):
            in_params = True
        elif line.startswith(("## ", "**Responses**", "**Request body**")):
            in_params = False
        if schemas and (m := re.match(rf"## ({NAME})\s*$", line)):
            defs.add(m[1], "schema", page)
        if m := re.match(rf"\| `({NAME})` \|", line):
            defs.add(
                m[1], "property" if schemas else "parameter" if in_params else "property", page
            )
            if values := re.search(r"Values: ((?:`[^`]+`,? ?)+)", line):
                for value in re.findall(r"`([^`]+)`", values[1]):
                    defs.add(value, "enum", page)


def read_embedded_openapi(defs: Definitions, page: str, text: str) -> None:
    # a crawled page may cut its block short (no closing fence, the JSON unfinished): then the
    # definitions are read from the JSON text as written
    for block in re.findall(r"```json\n(.*?)(?:\n```|\Z)", text, re.S):
        try:
            spec = json.loads(block)
        except ValueError:
            for op in re.findall(r'"operationId":\s*"([^"]+)"', block):
                defs.add(op, "operation", page)
            for param in re.findall(r'"name":\s*"([^"]+)",\s*"in":\s*"', block):
                defs.add(param, "parameter", page)
            for path in re.findall(r'"(/[^"\s]*)":\s*\{\s*"(?:get|post|put|patch|delete)"', block):
                defs.add(path, "path", page)
            continue
        if not isinstance(spec, dict):
            continue
        for path, ops in (spec.get("paths") or {}).items():
            defs.add(path, "path", page)
            for op in ops.values() if isinstance(ops, dict) else ():
                if isinstance(op, dict):
                    if isinstance(op.get("operationId"), str):
                        defs.add(op["operationId"], "operation", page)
                    for param in op.get("parameters") or ():
                        if isinstance(param, dict) and isinstance(param.get("name"), str):
                            defs.add(param["name"], "parameter", page)
        schemas = (spec.get("components") or {}).get("schemas") or {}
        for name, schema in schemas.items():
            defs.add(name, "schema", page)
            for prop, body in ((schema or {}).get("properties") or {}).items():
                defs.add(prop, "property", page)
                for value in (body or {}).get("enum") or ():
                    if isinstance(value, str):
                        defs.add(value, "enum", page)


def read_client_page(defs: Definitions, page: str, text: str) -> None:
    model = page.startswith("rest-core-models/")
    for line in text.splitlines():
        if m := re.match(rf"# \*\*({NAME})\*\*\s*$", line):
            defs.add(m[1], "operation", page)
        elif model and (m := re.match(rf"# ({NAME})\s*$", line)):
            defs.add(m[1], "schema", page)
        if m := re.search(rf"\*\*(?:{METHODS})\*\* (/\S*)", line):
            defs.add(m[1], "path", page)
        if m := re.match(rf"\*\*({NAME})\*\* \|", line):
            defs.add(m[1], "property" if model else "parameter", page)


def read_definitions(mirror: Path) -> Definitions:
    defs = Definitions()
    for file in sorted(mirror.rglob("*.md")):
        page = file.relative_to(mirror).as_posix()
        text = file.read_text(encoding="utf-8", errors="replace")
        if page.startswith(SPEC):
            read_spec_page(defs, page, text)
        elif page.startswith("api/"):
            read_embedded_openapi(defs, page, text)
        elif page.startswith(THIRD_PARTY):
            read_client_page(defs, page, text)
        else:
            for name in guide_definitions(text):
                defs.add(name, "concept", page)
    return defs


# A guide defines a backticked name in a heading, or on a line it opens (after a list or table
# marker) followed by an explanation: "`name` - ...", "`name`: ...", "`name` is ...", a link to
# its own section, or alone on the line (a definition list).
_DEFINING_LINE = re.compile(
    r"^(?:\s*(?:[-*+]|\d+\.|\|)\s*)?(?:\*\*)?\[?`([^`\n]{3,60})`\]?(?:\([^)]*\))?(?:\*\*)?"
    r"(?:\s*$|\s*(?:-|—|–|:|\|)\s|\s+(?:is|are)\s)"
)


def guide_definitions(text: str) -> set[str]:
    names: set[str] = set()
    for line in text.splitlines():
        if line.startswith("#"):
            names |= set(re.findall(r"`([^`\n]{3,60})`", line))
        elif m := _DEFINING_LINE.match(line):
            names.add(m[1])
    return {n.strip() for n in names if looks_like_identifier(n.strip())}


def looks_like_identifier(name: str) -> bool:
    """A name a reader would look up rather than a word or a phrase: no spaces, and an
    underscore, a hyphen, a dot, a slash, an inner capital or all capitals."""
    return (
        re.fullmatch(r"[A-Za-z_$/.-][\w$/.{}\[\]-]{2,59}", name) is not None
        and re.search(r"[_\-./]|[a-z][A-Z]|^[A-Z0-9_]+$", name) is not None
    )


def client_names(text: str) -> set[str]:
    """Names a client file writes: string literals, keys and keyword arguments, attribute calls,
    CamelCase words."""
    names = set(re.findall(r"""["']([^"'\n]{3,120})["']""", text))
    names |= set(re.findall(rf"\b({NAME})\s*[:=](?!=)", text))
    names |= set(re.findall(rf"\.({NAME})\s*\(", text))
    names |= set(re.findall(r"\b([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+)\b", text))
    names |= set(re.findall(r"(/rest/2\.0/[A-Za-z0-9/{}$_.-]*)", text))
    return {n.strip() for n in names if n.strip()}


def prose_names(text: str) -> set[str]:
    names = {n.strip() for n in re.findall(r"`([^`\n]{3,60})`", text)}
    return {n for n in names if looks_like_identifier(n) or re.fullmatch(NAME, n)}


def candidates(mirror: Path, clients: Path) -> dict[str, dict[str, str]]:
    """kind -> name -> the first file it came from."""
    found: dict[str, dict[str, str]] = {"client": {}, "docs": {}}
    for file in sorted(clients.iterdir()):
        text = file.read_text(encoding="utf-8", errors="replace")
        for name in sorted(client_names(text)):
            found["client"].setdefault(name, file.name)
    for pub in PROSE:
        for file in sorted((mirror / pub).rglob("*.md")):
            page = file.relative_to(mirror).as_posix()
            for name in sorted(prose_names(file.read_text(encoding="utf-8", errors="replace"))):
                found["docs"].setdefault(name, page)
    return found


def primary_of(cls: str, pages: set[str]) -> str:
    if cls == "concept":
        guides = [p for p in pages if not p.startswith((*SPEC, *THIRD_PARTY, "api/"))]
        return guides[0] if len(guides) == 1 else ""
    spec = [p for p in pages if p.startswith(SPEC)]
    return spec[0] if len(spec) == 1 else ""


def split_of(name: str) -> str:
    bucket = int(hashlib.sha256((SPLIT_SALT + name).encode()).hexdigest(), 16) % 10
    return "test" if bucket < 2 else "dev" if bucket < 4 else "train"


def draw(mirror: Path, clients: Path) -> list[dict[str, object]]:
    defs = read_definitions(mirror)
    found = candidates(mirror, clients)
    pools: dict[tuple[str, str], list[tuple[str, set[str]]]] = defaultdict(list)
    for kind, names in found.items():
        for name in names:
            hit = defs.find(name)
            if hit is not None and len(hit[1]) <= MAX_PAGES:
                pools[(kind, hit[0])].append((name, hit[1]))
    cases: list[dict[str, object]] = []
    drawn: set[str] = set()
    for kind in ("client", "docs"):
        for cls in CLASSES:
            pool = sorted(pools[(kind, cls)], key=lambda c: _order(c[0]))
            taken = 0
            for name, pages in pool:
                if taken >= QUOTA[kind][cls]:
                    break
                if name in drawn:
                    continue
                drawn.add(name)
                taken += 1
                case: dict[str, object] = {
                    "id": f"h{len(cases) + 1:03d}",
                    "identifier": name,
                    "class": cls,
                    "expected_files": sorted(pages),
                    "source": f"{kind}:{found[kind][name]}",
                    "split": split_of(name),
                }
                if primary := primary_of(cls, pages):
                    case["primary"] = primary
                cases.append(case)
    return cases


def _order(name: str) -> str:
    return hashlib.sha256((SALT + name).encode()).hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=DEFAULT_MIRROR)
    parser.add_argument("--clients", type=Path, default=DEFAULT_CLIENTS)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    cases = draw(args.mirror, args.clients)
    target = HERE / "cases.jsonl"
    text = "".join(json.dumps(case) + "\n" for case in cases)
    if args.write:
        target.write_text(text, encoding="utf-8")
    elif target.read_text(encoding="utf-8") != text:
        print("cases.jsonl differs from the drawn set", file=sys.stderr)
        return 1
    counts = Counter(f"{str(c['source']).split(':')[0]}/{c['class']}" for c in cases)
    splits = Counter(str(c["split"]) for c in cases)
    print(len(cases), dict(splits), dict(sorted(counts.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
