"""The README and the docs/ pages it links to stay true to the code: a short front page with a
table of contents whose links (and every link between the pages) resolve, and every `atlas ...`,
`atlas-mcp ...` and `atlas-ls ...` command they name, with each `--flag` named beside it, is one
the real argument parsers accept."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from atlas_ls.cli import _build_parser
from atlas_ls.lsp.__main__ import build_parser as lsp_parser
from atlas_ls.mcp.__main__ import build_parser as mcp_parser

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
SPAN = re.compile(r"`([^`\n]+(?:\n[^`\n]+)?)`")
# A command starts a line or a span, or follows `uv run`, `&&`, `;` or a pipe.
COMMAND = re.compile(
    r"(?:^|&&|;|\|)\s*(?:uv run\s+)?(atlas-mcp|atlas-ls|atlas)(?![\w./:-])(\s+[a-z][a-z-]*)?"
)
FLAG = re.compile(r"(?<![\w-])--[a-z][\w-]*")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return {slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, re.M)}


def units(text: str) -> list[str]:
    """Where a command and its flags are written together: each line of a code block (with its
    continuations), each code span, and each table row led by a command."""
    found = []
    for block in FENCE.findall(text):
        for line in block.replace("\\\n", " ").splitlines():
            if line.startswith("docker "):  # the command the image runs follows its name
                line = line.rpartition(" atlas-mcp")[2]
            found.append(line.strip())
    prose = FENCE.sub("", text)
    for line in prose.splitlines():
        cells = line.split("|")
        if line.startswith("|") and len(cells) > 2 and COMMAND.search(cells[1].strip(" `")):
            found.append(line.replace("\\|", "/"))
    found += SPAN.findall(prose)
    return found


def named_commands() -> list[tuple[str, str, str | None, list[str]]]:
    """(page, program, subcommand, flags) for every command the pages name."""
    named = []
    for page in PAGES:
        for unit in units(page.read_text(encoding="utf-8")):
            if unit.startswith("|"):  # a table row: its first cell's commands, the row's flags
                cell = unit.split("|")[1]
                spans = [s.strip() for s in SPAN.findall(cell)] or [cell.strip()]
                matches = [m for s in spans for m in [COMMAND.match(s)] if m]
                rest_of_row = unit[len(cell) + 2 :]
            else:
                matches, rest_of_row = list(COMMAND.finditer(unit)), ""
            name = str(page.relative_to(ROOT))
            for i, match in enumerate(matches):
                end = matches[i + 1].start() if i + 1 < len(matches) else len(unit)
                rest = "" if rest_of_row else unit[match.end() : end]
                word = (match.group(2) or "").strip() or None
                program = match.group(1)
                if program != "atlas" and word:  # the servers take no subcommand
                    rest, word = match.group(2) + rest, None
                named.append((name, program, word, FLAG.findall(rest)))
            if rest_of_row and matches:  # each flag of the row is one of its commands' flags
                words = [(m.group(2) or "").strip() for m in matches]
                named.append(
                    (name, matches[0].group(1), "|".join(words), FLAG.findall(rest_of_row))
                )
    return named


def _options(parser: argparse.ArgumentParser) -> set[str]:
    return {s for action in parser._actions for s in action.option_strings}


def test_every_command_and_flag_the_pages_name_parses() -> None:
    cli, sub = _build_parser()
    servers = {"atlas-mcp": mcp_parser("atlas-mcp", "all"), "atlas-ls": lsp_parser()}
    named = named_commands()
    wrong = []
    for page, program, word, flags in named:
        known: set[str] = set()
        for one in (word or "").split("|"):
            if program != "atlas" or not one:
                known |= _options(cli if program == "atlas" else servers[program])
            elif one not in sub.choices:
                wrong.append(f"{page}: `atlas {one}` is not a command")
            else:
                # `--help` of each command exists and names it.
                assert f"usage: atlas {one}" in sub.choices[one].format_help()
                known |= _options(sub.choices[one])
        wrong += [f"{page}: {program} {word or ''} {f}" for f in flags if f not in known]
    assert not wrong, wrong
    # The check reads what it should: most commands, with their flags, on the front page too.
    words = {word for _, program, word, _ in named if program == "atlas" and word}
    assert {"demo", "download", "install", "build", "crawl", "restore", "index", "setup"} <= words
    assert {"--snapshot", "--source", "--watch", "--top-k"} <= {f for *_, fs in named for f in fs}
    front = {(word, f) for page, _, word, fs in named if page == "README.md" for f in fs}
    assert ("restore", "--snapshot") in front and ("build", "--source") in front


def test_the_readme_is_short_and_its_contents_resolve() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 250
    contents = text.split("\n## Contents\n", 1)[1].split("\n## ", 1)[0]
    listed = {target[1:] for target in LINK.findall(contents) if target.startswith("#")}
    sections = {slug(h) for h in re.findall(r"^## (.+)$", FENCE.sub("", text), re.M)}
    assert listed <= anchors(README), sorted(listed - anchors(README))
    assert sections - {"contents"} <= listed, sorted(sections - listed)


def test_every_link_between_the_pages_resolves() -> None:
    broken = []
    for page in PAGES:
        for target in LINK.findall(FENCE.sub("", page.read_text(encoding="utf-8"))):
            if re.match(r"[a-z]+:", target):
                continue  # a web address
            path, _, anchor = target.partition("#")
            goal = (page.parent / path).resolve() if path else page
            if not goal.exists() or (anchor and anchor not in anchors(goal)):
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert not broken, broken
    # Every reference page is reachable from the front page.
    linked = {t.split("#")[0] for t in LINK.findall(README.read_text(encoding="utf-8"))}
    assert {f"docs/{p.name}" for p in PAGES[1:]} <= linked
