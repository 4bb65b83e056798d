"""Population rules of the `constant`, `type`, `cli` and `near_tie` classes."""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from benchmarks.devset.corpus import Corpus
from benchmarks.devset.pages import code_count, definition_weight, strict_weight, token_re
from benchmarks.devset.population.member import Member, by_weight, dedupe
from benchmarks.devset.population.spellings import (
    as_written,
    command_spellings,
    constant_spellings,
    type_spellings,
)

PROGRAMS = (
    "collibra",
    "gradle",
    "./gradlew",
    "mvn",
    "go",
    "pip",
    "npm",
    "npx",
    "uv",
    "java",
    "docker",
    "python3",
)

_SCREAMING_RE = re.compile(r"(?<![\w-])(?:-[PD])?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?![\w-])")
_TOKEN_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_FILE_EXTS = {"md", "htm", "html", "json", "csv", "py", "yaml", "yml", "txt", "xlsx", "java", "js"}


def constant_members(c: Corpus) -> list[Member]:
    found: dict[str, Counter[str]] = defaultdict(Counter)
    for page in c.pages.values():
        for text in page.code_texts:
            for name in _SCREAMING_RE.findall(text):
                if name.startswith("YOUR_") or any(p.isdigit() for p in name.split("_")):
                    continue
                found[name][page.file] += 1
    members: list[Member] = []
    for name, files in sorted(found.items()):
        weights = {f: w for f in sorted(c.pages) if (w := strict_weight(c.pages[f], name))}
        expected = by_weight(weights, dict(files)) if weights else by_weight(dict(files))
        env = any(
            re.search(rf"(?:export\s+|^\s*|\$\{{?){name}\b(?:=|\}}|\s)", p.text, re.M)
            for p in c.pages.values()
            if name in p.text
        )
        members.append(
            Member(
                "constant",
                name,
                "defined" if weights else "code-only",
                expected,
                constant_spellings(name, env),
                (f"markdown:{expected[0]} defines it" if weights else "markdown:not defined")
                + f"; SCREAMING_CASE in code on {len(files)} page(s)"
                + ("; assigned as an environment variable" if env else ""),
            )
        )
    return members


def type_members(c: Corpus) -> list[Member]:
    w = c.written
    names = {n for s in c.specs for n in s.schemas} | set(w.model_page) | set(w.api_objects)
    names |= set(w.beans)
    members: list[Member] = []
    for name in sorted(names):
        model = w.model_page.get(name, "")
        spec_pages = [s.schema_page for s in c.specs if name in s.schemas]
        written = dedupe([model, w.api_objects.get(name, ""), w.beans.get(name, "")])
        expected = [*written, *spec_pages]
        stratum = (
            "model+spec"
            if model and spec_pages
            else "spec-only"
            if spec_pages
            else "model-only"
            if model
            else "api-model-or-bean"
        )
        source = (
            f"markdown:{written[0]} defines type {name}"
            if written
            else f"spec:{spec_pages[0].split('/')[0]} schema {name}"
        )
        members.append(
            Member("type", name, stratum, expected, type_spellings(name, bool(model)), source)
        )
    return members


_LABEL_RE = re.compile(r"^\s*(?:[-*•]|\d+[.)])?\s*(?:[A-Za-z][\w ]{0,40}:\s+)?(?:\$\s+)?")
_ARG_RE = re.compile(r"[a-z][a-z0-9._:-]*|-{1,2}[A-Za-z][\w-]*|\+x")
_EXEC_RE = re.compile(r"(?:\./|\.\\|bin/)[\w.\\/-]+")
_DATA_EXTS = (".yaml", ".yml", ".json", ".md", ".csv", ".txt", ".properties", ".xml")


def _invocation(text: str) -> str | None:
    tokens = _LABEL_RE.sub("", text, count=1).split()
    if not tokens:
        return None
    executable = _EXEC_RE.fullmatch(tokens[0]) and not tokens[0].lower().endswith(_DATA_EXTS)
    if not (tokens[0] in PROGRAMS or executable):
        return None
    words = [tokens[0]]
    for tok in tokens[1:4]:
        if not _ARG_RE.fullmatch(tok):
            break
        words.append(tok)
    while len(words) > 1 and words[-1].startswith(("-", "+")):
        words.pop()
    if len(words) == 1 and not executable:
        return None
    return " ".join(words)


def cli_members(c: Corpus) -> list[Member]:
    found: dict[str, Counter[str]] = defaultdict(Counter)
    for page in c.pages.values():
        for text in page.code_texts:
            inv = _invocation(text)
            if inv:
                found[inv][page.file] += 1
        if page.section == "cli":
            for line in page.lines:
                if re.fullmatch(r"[a-z]+(?:-[a-z]+)+", line.strip()):
                    found[line.strip()][page.file] += 1
    members: list[Member] = []
    for inv, files in sorted(found.items()):
        weights = {f: w for f in sorted(c.pages) if (w := definition_weight(c.pages[f], inv))}
        counts = {f: code_count(c.pages[f], inv) for f in set(weights) | set(files)}
        expected = (
            by_weight(weights, counts)
            if weights
            else by_weight({f: n for f, n in counts.items() if n})
        )
        if not expected:
            continue
        members.append(
            Member(
                "cli",
                inv,
                "defined" if weights else "code-only",
                expected,
                command_spellings(inv),
                (f"markdown:{expected[0]} defines it" if weights else "markdown:not defined")
                + f"; command line in code on {len(files)} page(s)",
            )
        )
    return members


def near_tie_members(c: Corpus, others: set[str]) -> list[Member]:
    pages_with: dict[str, set[str]] = defaultdict(set)
    for page in c.pages.values():
        for token in set(_TOKEN_RE.findall(page.title + "\n" + page.text)):
            parts = token.split(".")
            for candidate in {token, *parts}:
                pieces = candidate.split(".")
                if pieces[-1].lower() in _FILE_EXTS or not _near_tie_shaped(pieces):
                    continue
                pages_with[candidate].add(page.file)
    members: list[Member] = []
    for token, files in sorted(pages_with.items()):
        if len(files) < 3:
            continue
        pattern = token_re(token)
        present = [
            f for f in sorted(files) if pattern.search(c.pages[f].title + "\n" + c.pages[f].text)
        ]
        if len(present) < 3:
            continue
        about = [f for f in present if definition_weight(c.pages[f], token)]
        if len(about) != 1:
            continue
        members.append(
            Member(
                "near_tie",
                token,
                "also-other-class" if token in others else "near-tie-only",
                about,
                as_written(token),
                f"markdown:{about[0]} is about it; mentioned on {len(present) - 1} other page(s)",
            )
        )
    return members


def _near_tie_shaped(pieces: list[str]) -> bool:
    def shaped(p: str) -> bool:
        return bool(
            re.fullmatch(r"[a-z]+[A-Z]\w*", p)
            or re.fullmatch(r"[A-Z][a-z0-9]+[A-Z]\w*", p)
            or re.fullmatch(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+", p)
            or re.fullmatch(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+", p)
        )

    return any(shaped(p) for p in pieces) and all(re.fullmatch(r"[A-Za-z_]\w*", p) for p in pieces)
