"""Synthetic identifier tables for benchmarks: plausible names of every kind, no doc text."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from atlas_core.identifiers.store.table import META_FILE, TABLE_DIR, TABLE_VERSION, write_table
from atlas_core.types import IdentifierEntry, Param

_SYN_NOUN_TEXT = (
    "asset community domain relation attribute responsibility workflow task user group role scope "
    "tag status view job import export comment rating assignment mapping lineage contract product "
    "policy rule schema table column report dashboard"
)
_SYN_NOUNS = _SYN_NOUN_TEXT.split()
_SYN_VERB_TEXT = "find get add remove change set start cancel list search bulk merge"
_SYN_VERBS = _SYN_VERB_TEXT.split()


def synthetic_entries(n: int, seed: int = 0) -> list[IdentifierEntry]:
    """`n` plausible entries of every kind (no real doc text), for benchmarks of 100,000 rows."""
    rnd = random.Random(seed)
    out: list[IdentifierEntry] = []
    kinds = ("endpoint", "operation", "schema", "type", "json_key", "cli", "graphql", "heading")
    for i in range(n):
        kind = kinds[i % len(kinds)]
        noun, noun2 = rnd.choice(_SYN_NOUNS), rnd.choice(_SYN_NOUNS)
        verb = rnd.choice(_SYN_VERBS)
        tag = f"{i // len(kinds)}"
        file = f"synthetic/{noun}-{i % 997}.md"
        summary = f"{verb.title()} the {noun} and its {noun2} records number {tag}."
        fields: dict[str, Any] = {}
        if kind == "endpoint":
            method = rnd.choice(("GET", "POST", "PUT", "PATCH", "DELETE"))
            path = f"/{noun}s{tag}/{{{noun}Id}}/{noun2}s"
            name = f"{method} {path}"
            fields = {
                "method": method,
                "path": path,
                "operation_id": f"{verb}{noun.title()}{noun2.title()}{tag}",
                "params": (Param(f"{noun}Id", "path", "string", True, f"The id of the {noun}."),),
            }
        elif kind == "operation":
            name = f"{verb}{noun.title()}{noun2.title()}s{tag}"
        elif kind in ("schema", "type"):
            name = f"{verb.title()}{noun.title()}{noun2.title()}{'Request' if kind == 'schema' else 'Api'}{tag}"
        elif kind == "json_key":
            name = f"{noun}{noun2.title()}{tag}"
        elif kind == "cli":
            name = f"atlas-{noun} {verb}-{noun2}{tag}"
        elif kind == "graphql":
            name = f"{noun}{noun2.title()}Field{tag}"
        else:
            name = f"{verb.title()} {noun} {noun2}s {tag}"
        anchor = f"{noun}-{tag}"
        out.append(
            IdentifierEntry(
                name=name,
                kind=kind,
                file=file,
                line=1 + i % 400,
                anchor=anchor,
                url=f"https://docs.example.test/{file}#{anchor}",
                summary=summary,
                publication="synthetic",
                **fields,
            )
        )
    return out


def write_synthetic_table(out_dir: Path, n: int = 100_000, seed: int = 0) -> Path:
    """A synthetic table of `n` rows under ``out_dir/identifiers/``, reused when one with the same
    `n` and `seed` is already there (writing 100,000 rows takes seconds). Returns ``out_dir``."""
    out_dir = Path(out_dir)
    meta_path = out_dir / TABLE_DIR / META_FILE
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if meta.get("synthetic") == {"n": n, "seed": seed} and meta.get("version") == TABLE_VERSION:
            return out_dir
    except (OSError, ValueError):
        pass
    write_table(synthetic_entries(n, seed), [], out_dir)
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    meta["synthetic"] = {"n": n, "seed": seed}
    meta_path.write_text(json.dumps(meta, indent=2), encoding="utf-8")
    return out_dir


def write_synthetic_mentions(
    out_dir: Path, entries: list[IdentifierEntry], n: int = 1_000_000, seed: int = 0
) -> Path:
    """A synthetic mention index of about `n` (key, page) rows under ``out_dir/mentions/``:
    every entry's name written on a few pages (its own first, as a definition), a share of names
    only the mentions know (constants), and a few words on thousands of pages, as `id` and `name`
    are in real docs. Reused when one with the same `n` and `seed` is there. Returns ``out_dir``."""
    from atlas_core.identifiers.spelling import compact, path_key
    from atlas_core.identifiers.store.mentions import MENTIONS_DIR, MentionBuilder
    from atlas_core.identifiers.store.mentions import META_FILE as MENTION_META
    from atlas_core.identifiers.store.places import CODE, DEFINITION, HEADING, SPAN

    out_dir = Path(out_dir)
    meta_path = out_dir / MENTIONS_DIR / MENTION_META
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if meta.get("synthetic") == {"n": n, "seed": seed}:
            return out_dir
    except (OSError, ValueError):
        pass
    rnd = random.Random(seed)
    builder = MentionBuilder()
    pages = sorted({e.file for e in entries} | {f"synthetic/extra-{i}.md" for i in range(3000)})
    ids = {f: builder.add_file(f, f"https://docs.example.test/{f}", generated=False) for f in pages}
    places = (CODE, SPAN, CODE | SPAN, DEFINITION, HEADING | CODE)
    rows = 0

    def write(key: str, own: str | None, spread: int) -> int:
        chosen = {own} if own else set()
        while len(chosen) < spread:
            chosen.add(rnd.choice(pages))
        for page in chosen:
            count = rnd.randint(1, 12)
            place = DEFINITION if page == own else rnd.choice(places)
            line = rnd.randint(1, 400)
            builder.add_row(key, ids[page], count, place, (min(count, 4), line, "section"))
        return len(chosen)

    for n_word, word in enumerate(("id", "name", "type", "description", "status")):
        rows += write("=" + word, None, 2000 + 500 * n_word)
        rows += write("~" + word, None, 2000 + 500 * n_word)
    for e in entries:
        if rows >= n * 0.8:
            break
        spread = 1 + rnd.randrange(4)
        if e.kind == "endpoint":
            rows += write(path_key(e.path), e.file, spread)
        else:
            rows += write("=" + e.name, e.file, spread)
            rows += write("~" + compact(e.name), e.file, spread)
    i = 0
    while rows < n:
        constant = f"SYNTHETIC_CONSTANT_{i}"
        rows += write("=" + constant, None, 1 + rnd.randrange(3))
        rows += write("~" + compact(constant), None, 1)
        i += 1
    builder.write(out_dir)
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    meta["synthetic"] = {"n": n, "seed": seed}
    meta_path.write_text(json.dumps(meta, indent=2), encoding="utf-8")
    return out_dir
