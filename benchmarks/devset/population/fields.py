"""Population rules of the `parameter`, `property` and `json_key` classes."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import Any

from benchmarks.devset.casing import norm
from benchmarks.devset.corpus import Corpus
from benchmarks.devset.pages import first_cell, strict_weight
from benchmarks.devset.population.member import Member, by_weight, dedupe
from benchmarks.devset.population.spellings import parameter_spellings, quoted_spellings
from benchmarks.devset.spec import Op
from benchmarks.devset.written import api_pages_of

_JSON_KEY_RE = re.compile(r'"([A-Za-z_][A-Za-z0-9_]*)"\s*:')


def parameter_members(c: Corpus) -> list[Member]:
    takes: dict[str, list[tuple[Op, str, dict[str, Any]]]] = defaultdict(list)
    for op in c.ops:
        for name, loc, schema in op.params:
            takes[name].append((op, loc, schema))
    members: list[Member] = []
    for name, uses in sorted(takes.items()):
        spec_pages: Counter[str] = Counter(op.page for op, _, _ in uses)
        written: Counter[str] = Counter()
        for op, _, _ in uses:
            client = c.written.client_ops.get(op.key) if op.stem == "dgc-rest" else None
            if client and norm(name) in c.written.client_params.get((client[1], client[0]), ()):
                written[client[1]] += 1
            for file in api_pages_of(op, c.written):
                if f'"name":"{name}"' in c.pages[file].text:
                    written[file] += 1
        ranked_spec = by_weight(dict(spec_pages))
        expected = [ranked_spec[0], *by_weight(dict(written)), *ranked_spec[1:]]
        loc = Counter(loc for _, loc, _ in uses).most_common(1)[0][0]
        op, _, schema = uses[0]
        members.append(
            Member(
                "parameter",
                name,
                loc,
                expected,
                parameter_spellings(name, loc, schema),
                f"spec:{op.stem} {op.method} {op.path} {loc} param {name}"
                + (f" (+{len(uses) - 1} more operations)" if len(uses) > 1 else ""),
            )
        )
    return members


def property_members(c: Corpus) -> list[Member]:
    core = c.spec("dgc-rest")
    definers: dict[str, list[str]] = defaultdict(list)
    for schema, props in core.schemas.items():
        for prop in props:
            definers[prop].append(schema)
    members: list[Member] = []
    for prop, schemas in sorted(definers.items()):
        own_titles = {s for s in schemas} | {s + "Impl" for s in schemas}
        models = sorted(
            (f for f, names in c.written.model_props.items() if norm(prop) in names),
            key=lambda f: (c.pages[f].title not in own_titles, f),
        )
        inline = sorted({op.page for op in core.ops if op.inline_body and prop in op.body})
        members.append(
            Member(
                "property",
                prop,
                "schema",
                dedupe([core.schema_page, *inline, *models]),
                quoted_spellings(prop),
                f"spec:{core.stem} schema {schemas[0]} property {prop}"
                + (f" (+{len(schemas) - 1} more schemas)" if len(schemas) > 1 else ""),
            )
        )
    return members


def json_key_members(c: Corpus) -> list[Member]:
    importer = c.spec("dgc-importer-rest")
    pages = [p for p in c.pages.values() if p.section == "import-api"]
    uses: dict[str, Counter[str]] = defaultdict(Counter)
    for page in pages:
        for key in _JSON_KEY_RE.findall(page.text):
            uses[key][page.file] += 1
        for line, lang in zip(page.lines, page.fenced, strict=True):
            cell = None if lang else first_cell(line)
            if cell and re.fullmatch(r"[a-z][A-Za-z0-9_]*", cell):
                uses.setdefault(cell, Counter())
    for props in importer.schemas.values():
        for prop in props:
            uses.setdefault(prop, Counter())
    members: list[Member] = []
    for key, files in sorted(uses.items()):
        weights = {p.file: w for p in pages if (w := strict_weight(p, key))}
        definers = [name for name, props in importer.schemas.items() if key in props]
        spec_page = [importer.schema_page] if definers else []
        examples = by_weight(dict(files))[:4]
        if weights:
            expected = [*by_weight(weights, files), *spec_page]
            how, stratum = f"markdown:{expected[0]} defines import key {key}", "written"
        elif spec_page:
            expected = [*spec_page, *examples]
            how = f"spec:{importer.stem} schema {definers[0]} property {key}"
            stratum = "spec+examples" if examples else "spec-only"
        else:
            expected = examples
            how, stratum = f"markdown:import-api JSON examples use {key}", "examples-only"
        if files:
            how += f" (in the JSON of {len(files)} import-api page(s))"
        if not expected:
            continue
        members.append(
            Member(
                "json_key",
                key,
                stratum,
                expected,
                quoted_spellings(key),
                how,
            )
        )
    return members
