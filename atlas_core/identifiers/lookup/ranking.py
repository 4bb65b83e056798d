"""One ranking over the identifier table's definitions and the mention index's pages.

Order, strongest first (`Ranked.key`):

1. match: the name as written (exact) > the same name in another spelling (normalized) > a near
   spelling (fuzzy);
2. how the page documents it (`Level`): a definition (a table entry of the name, a row of a
   definition or parameter table, a bullet that defines it) > a page about it (a heading or title
   naming it, or a section that names it again and again) > a page that names it in passing >
   prose only;
3. how strongly, page against page (`strength`): places, density in one section, count, so a page
   that writes a name more often never loses to one that writes it less (what a per-file grep count
   would rank first);
4. then the table's own order: section weight, written before generated, kind, row.

Written pages and pages generated from API specs are ranked by the same evidence, so each counts
where it is strongest. Source authority (the bundle's `publishers`) comes in at step 1: a third
party's page (a community client's generated docs) that writes the name as asked ranks with the
definitions in another spelling, and the vendor's own page of the subject comes first among them;
it still wins where no vendor page defines the name. The confidence of a candidate follows from its match and level
(`CONFIDENCE`, measured by `benchmarks/identifier_calibration.py` on the development set) and
never rises down the list.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from atlas_core.identifiers.spelling import (
    BUILDER_PARTS,
    QUOTES,
    compact,
    looks_like_path,
    name_variants,
    path_key,
    strip_path,
)
from atlas_core.identifiers.store.places import (
    CODE,
    DEFINITION,
    EXAMPLE,
    HEADING,
    PLACE_NAMES,
    PROMPT_RE,
    PROSE,
    SPAN,
    TABLE,
    command_key,
)
from atlas_core.types import Candidate

if TYPE_CHECKING:
    from atlas_core.identifiers.store.mentions import Mention, MentionIndex

MATCH_TIERS = {"exact": 0, "normalized": 1, "fuzzy": 2}
# Levels: how a page documents a name.
DEFINES, ABOUT, PASSING, PROSE_ONLY = 3, 2, 1, 0
# A section naming a name this often is about it, whatever the places.
DENSE_SECTION = 3
# A path found only under another base path than the one written.
BASE_VARIANT = 0.95
# Confidence by (match, level) for a page the mention index found; table rows keep the
# confidence of their match, capped by their level.
CONFIDENCE = {
    ("exact", DEFINES): 1.0,
    ("exact", ABOUT): 0.9,
    ("exact", PASSING): 0.75,
    ("exact", PROSE_ONLY): 0.6,
    ("normalized", DEFINES): 0.85,
    ("normalized", ABOUT): 0.8,
    ("normalized", PASSING): 0.6,
    ("normalized", PROSE_ONLY): 0.5,
}
_PLACE_WORDS = {
    HEADING: "a heading",
    DEFINITION: "a definition table",
    TABLE: "a table",
    EXAMPLE: "a request or response example",
    CODE: "a code block",
    SPAN: "inline code",
    PROSE: "prose",
}
_SUBSCRIPT_RE = re.compile(r"\[\s*[\"']([^\"'\[\]]+)[\"']\s*\]")
_CALL_RE = re.compile(r"\([^()]*\)\s*;?$")


@dataclass(frozen=True, slots=True)
class Spelling:
    """What a query can be looked up as: its verbatim tokens, path variants, command line."""

    query: str
    is_path: bool
    method: str
    path: str
    path_variants: tuple[str, ...]  # the written path first, then under the other bases
    tokens: tuple[str, ...]  # verbatim names, the most specific first
    command: str  # the command line without a prompt, "" when it is one word

    @classmethod
    def of(cls, query: str, bases: Sequence[str]) -> Spelling:
        command = command_key(query)  # prompt removed, whitespace collapsed
        method, path, variants = "", "", ()
        is_path = looks_like_path(command)
        if is_path:
            method, path = strip_path(command)
            variants = _path_variants(path, bases)
        # A command line, or a relative program path (./gradlew), is also looked up as written.
        commandish = " " in command or bool(PROMPT_RE.match(query.strip()))
        commandish = commandish or (is_path and not command.startswith(("/", "http")))
        return cls(
            query=query,
            is_path=is_path,
            method=method,
            path=path,
            path_variants=variants,
            tokens=() if is_path else _tokens(command),
            command=command if commandish else "",
        )


def _path_variants(path: str, bases: Sequence[str]) -> tuple[str, ...]:
    out = [path]
    for base in bases:
        if path.startswith(base + "/"):
            out.append(path[len(base) :])
        elif base and not path.startswith(base + "/"):
            out.append(base + path)
    return tuple(dict.fromkeys(out))


def _tokens(query: str) -> tuple[str, ...]:
    """Verbatim names a query writes: `"name"` -> name, `includeInherited=true` ->
    includeInherited, `{assetId}` -> assetId, `os.environ["DGC_URL"]` -> DGC_URL,
    `process.env.HOME` -> itself then HOME, `findAssets()` -> findAssets."""
    text = query.strip().strip(QUOTES + ",;").strip()
    out: list[str] = []
    sub = _SUBSCRIPT_RE.search(text)
    if sub:
        out.append(sub.group(1))
    if ":" in text and "::" not in text and text[:1] not in ":":
        key = text.partition(":")[0].strip().strip(QUOTES)
        if key and text.partition(":")[2].strip()[:1] in (*QUOTES, "{", "[", *"0123456789tfn"):
            out.append(key)
    if "=" in text and " " not in text:
        out.append(text.partition("=")[0].lstrip("?&"))
    while _CALL_RE.search(text):
        text = _CALL_RE.sub("", text).rstrip()
    text = text.strip("{}<>$%").strip(QUOTES)
    if text.lower().startswith("new "):
        text = text[4:].strip()
    if text and " " not in text:
        parts = [p for p in re.split(r"\.|::|#", text) if p]
        # Foo.builder(), Foo.class: the type is what the code names.
        while len(parts) > 1 and compact(parts[-1]) in BUILDER_PARTS:
            parts.pop()
        out.append(".".join(parts))
        if len(parts) > 1:
            out.append(parts[-1])
    return tuple(dict.fromkeys(t for t in out if t))


@dataclass(frozen=True, slots=True)
class Evidence:
    """The best mention of a query on one page."""

    mention: Mention
    match: str
    level: int
    strength: float
    name: str
    # The most the page shows of the query (level, strength), by match tier: the spellings as
    # written, and every spelling. A table row takes the first that its own match allows.
    page: tuple[tuple[int, float], ...] = ((0, 0.0), (0, 0.0))


def level_of(m: Mention) -> int:
    return level(m.places, m.section_count)


def level(places: int, section_count: int) -> int:
    """How a page documents a name, from its row of the mention index."""
    if places & DEFINITION:
        return DEFINES
    if places & HEADING or section_count >= DENSE_SECTION:
        return ABOUT
    # Prose records only code-shaped spellings (snake_case, SCREAMING_CASE, camelCase), which
    # read as unmarked code: in passing, as a code span would be.
    return PASSING


def strength_of(m: Mention) -> float:
    return strength(m.places, m.section_count, m.count)


def strength(places: int, section_count: int, count: int) -> float:
    """How strongly a page documents a name, page against page of one level."""
    score = 6.0 * bool(places & HEADING) + 5.0 * bool(places & DEFINITION)
    score += 2.0 * bool(places & EXAMPLE) + 1.0 * bool(places & (TABLE | CODE | SPAN))
    return score + 0.5 * min(section_count, 8) + 0.1 * min(count, 30)


def best_first(places: int, section_count: int, count: int) -> tuple[int, float]:
    """The order of one key's rows in the index, as a sort key: level, then strength."""
    return (-level(places, section_count), -strength(places, section_count, count))


def evidence_by_file(index: MentionIndex, spelling: Spelling) -> dict[str, Evidence]:
    """Each page's best mention of the query: exact spellings first, then compact ones."""
    lookups: list[tuple[str, str, str]] = []  # (key, match, name shown)
    # A path key folds parameters and bases away, so a page writing it matches as normalized.
    for variant in spelling.path_variants:
        lookups.append((path_key(variant), "normalized", variant))
    if spelling.command:
        lookups.append(("$" + spelling.command, "exact", spelling.command))
    # The name itself is exact; a member of it (HOME of process.env.HOME) is another spelling.
    for n, token in enumerate(spelling.tokens):
        lookups.append(("=" + token, "normalized" if n else "exact", token))
    if not spelling.is_path and not _shouting(spelling.tokens[:1]):
        # The whole name and its member in any spelling; an owner (`assetApi` of
        # `assetApi.addAsset`) is left to the table, whose definitions name owners.
        variants = name_variants(spelling.query)[:1]
        lookups.extend(("~" + key, "normalized", key) for key, _ in variants)
        # A token already in compact form (`offset`) has been asked as written.
        lookups.extend(
            ("~" + compact(token), "normalized", token)
            for token in spelling.tokens
            if compact(token) != token
        )
    # file -> (sort key, mention, match, level, strength, name) of its best row, and what the
    # page shows per tier; Evidence objects are made once per page at the end.
    best: dict[str, tuple[tuple[int, int, float], Mention, str, int, float, str]] = {}
    page: dict[str, list[tuple[int, float]]] = {}
    seen: set[str] = set()
    for key, match, name in lookups:
        if key in seen or len(key) < 2:
            continue
        seen.add(key)
        tier = MATCH_TIERS[match]
        for m in index.rows(key):
            lv, st = level_of(m), strength_of(m)
            order = (tier, -lv, -st)
            mine = best.get(m.file)
            if mine is None or order < mine[0]:
                best[m.file] = (order, m, match, lv, st, name)
            shown = page.get(m.file)
            if shown is None:
                shown = page[m.file] = [(0, 0.0), (0, 0.0)]
            for t in range(tier, 2):
                level, strength = shown[t]
                shown[t] = (max(level, lv), max(strength, st))
    return {
        file: Evidence(m, match, lv, st, name, tuple(page[file]))
        for file, (_, m, match, lv, st, name) in best.items()
    }


@dataclass(slots=True)
class Ranked:
    """One candidate before it becomes a `Candidate`: a table row, or a page of mentions."""

    row: int | None
    file: str
    confidence: float
    match: str
    level: int
    strength: float
    weight: int
    generated: bool
    kind_order: int
    method_rank: int
    evidence: Evidence | None
    third_party: bool = False

    @classmethod
    def of_row(
        cls,
        row: int,
        file: str,
        confidence: float,
        match: str,
        *,
        heading: bool,
        clash: bool,
        evidence: Evidence | None,
        weight: int,
        generated: bool,
        kind_order: int,
        method_rank: int,
    ) -> Ranked:
        level = PASSING if clash else ABOUT if heading else DEFINES
        strength = 0.0
        if evidence is not None:
            # The row is the page's definition; every spelling of the name there supports it.
            page_level, strength = evidence.page[min(MATCH_TIERS[match], 1)]
            level = max(level, page_level)
        return cls(
            row,
            file,
            confidence,
            match,
            level,
            strength,
            weight,
            generated,
            kind_order,
            method_rank,
            evidence,
        )

    @classmethod
    def of_mention(cls, ev: Evidence) -> Ranked:
        m = ev.mention
        return cls(
            None,
            m.file,
            CONFIDENCE[(ev.match, ev.level)],
            ev.match,
            ev.level,
            ev.strength,
            0,
            m.generated,
            255,
            0,
            ev,
        )

    def key(self) -> tuple[float | int | str, ...]:
        return (
            rank_group(self.match, self.level),
            -self.level,
            -round(self.confidence, 2),
            self.method_rank,
            # Whole steps: a heading or a definition counts, a tenth of a count does not beat
            # written docs, which come before generated pages at equal strength.
            -round(self.strength),
            # Of pages that document the name equally, the vendor's own before a third party's.
            self.third_party,
            -self.weight,
            self.generated,
            self.kind_order,
            self.row if self.row is not None else 1 << 40,
            self.file,
        )


def rank_group(match: str, level: int) -> int:
    """Match strength and level together: the name as written on a page about it, then a
    definition of the name in another spelling (`find_assets` where `findAssets` is defined),
    then the name as written in passing, then the rest; fuzzy last."""
    tier = MATCH_TIERS[match]
    if tier == 0:
        return 0 if level >= ABOUT else 2
    if tier == 1:
        return 1 if level == DEFINES else 3
    return 4


def vendor_first(ranked: list[Ranked]) -> list[Ranked]:
    """`ranked` with the vendor's best page of the subject first where a third party's leads:
    a client's page that writes the name as asked (`set_asset_attributes`) yields the top to
    the vendor's definition of it in the wire spelling (`setAssetAttributes`) or its page about
    the name. The rest keep their order, and a third party's page still leads where the vendor
    neither defines the name nor writes it on a page about it."""
    if not ranked or not ranked[0].third_party:
        return ranked
    for n, item in enumerate(ranked):
        if not item.third_party and rank_group(item.match, item.level) <= 1:
            return [item, *ranked[:n], *ranked[n + 1 :]]
    return ranked


def _shouting(tokens: Sequence[str]) -> bool:
    """A SCREAMING_CASE name: its other spellings (`UserGroup`, `user_group`) name other things."""
    return bool(tokens) and tokens[0].isupper() and any(c.isalpha() for c in tokens[0])


def style_clash(written: str, name: str) -> bool:
    """SCREAMING_CASE against any other case: `USER_GROUP` is a constant, `UserGroup` a type,
    though their compact keys meet."""
    shouting = [t.isupper() for t in (written, name) if any(c.isalpha() for c in t)]
    return len(shouting) == 2 and shouting[0] != shouting[1]


def calibrated(ranked: list[Ranked]) -> list[Ranked]:
    """Confidences that mean what the ranking says: none rises above the one ranked before it.
    (A table row keeps the confidence of its match; a page of mentions has its level's.)"""
    ceiling = 1.0
    for item in ranked:
        item.confidence = ceiling = round(min(item.confidence, ceiling), 4)
    return ranked


def mention_candidate(item: Ranked, deprecated: Mapping[str, str]) -> Candidate:
    """A page the mention index found, as a candidate: the section that names it most.
    `deprecated` maps the bundle's deprecated terms to their replacements."""
    ev = item.evidence
    assert ev is not None
    m = ev.mention
    places = [_PLACE_WORDS[1 << n] for n in range(len(PLACE_NAMES)) if m.places & (1 << n)]
    times = "once" if m.count == 1 else f"{m.count} times"
    url = f"{m.url}#{m.anchor}" if m.url and m.anchor else m.url
    return Candidate(
        name=ev.name,
        kind="mention",
        file=m.file,
        line=m.line,
        url=url,
        confidence=item.confidence,
        summary=f"Named {times} on this page, in {', '.join(places)}.",
        anchor=m.anchor,
        match=item.match,
        deprecated=ev.name in deprecated,
        replacement=deprecated.get(ev.name, ""),
    )
