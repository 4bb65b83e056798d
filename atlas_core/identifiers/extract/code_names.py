"""Recognisers for API names in code and command lines.

Each takes one line (or one inline-code span) and returns the names it holds; the page extractor
(`atlas_core.identifiers.extract.pages`) decides where they apply and records where they were found.
Java/Groovy types and bean calls, CLI commands, GraphQL definitions and references.
"""

from __future__ import annotations

import re

from atlas_core.identifiers.spelling import STOPWORDS

TYPE_SUFFIXES = (
    "Api|Request|Response|Service|Command|Bean|Impl|Config|Configuration|Client|Builder|"
    "Exception|Listener|Delegate|Filter|Order|Fragment|Reference|Factory|Manager|Helper|Util|Utils"
)
TYPE_RE = re.compile(rf"\b([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)*(?:{TYPE_SUFFIXES}))\b")
_BEAN_CALL_RE = re.compile(r"\b([a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)*(?:Api|Service))\.([a-z]\w*)\b")
_STATIC_CALL_RE = re.compile(
    r"\b([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+)\.(builder|newBuilder|of|from)\s*\("
)
_JAVA_IMPORT_RE = re.compile(r"^\s*import\s+(?:static\s+)?[\w.]*\.([A-Z]\w+)\s*;?\s*$")
_NEW_RE = re.compile(r"\bnew\s+([A-Z][A-Za-z0-9]+)\s*[(<]")
_CLI_LINE_RE = re.compile(
    r"^(?:\$\s+)?([a-z][\w.-]*(?:[ \t]+[a-z][a-z0-9-]*){0,3})(?:[ \t]+-{1,2}[\w-].*)?$"
)
_SHELL_TEXT = (
    "cd ls cp mv rm mkdir chmod chown sudo export echo cat touch git go pip npm npx curl wget "
    "source set unset python python3 java docker kubectl tar unzip which brew apt apt-get"
)
_SHELL_SKIP = frozenset(_SHELL_TEXT.split())
_GRAPHQL_OP_RE = re.compile(
    r"^\s*(query|mutation|subscription|fragment|type|input|enum|interface)\s+([A-Za-z_]\w*)"
)
_GRAPHQL_TYPE_REF_RE = re.compile(r"(?:Returns|-)\s+\[?([A-Z][A-Za-z0-9]+)\]?!?")
_GRAPHQL_FIELD_RE = re.compile(r"^\s*(?:\.\.\.)?([a-z][A-Za-z0-9_]*)\s*(?:[({]|$)")
_GRAPHQL_SPREAD_RE = re.compile(r"\.\.\.\s*([A-Z]\w+)|\$\w+\s*:\s*\[?([A-Z]\w+)")


def java_names(text: str) -> list[tuple[str, str]]:
    """(name, kind) of the types, beans and bean members in a Java/Groovy line."""
    found: list[tuple[str, str]] = []
    for bean, member in _BEAN_CALL_RE.findall(text):
        found += [(bean[0].upper() + bean[1:], "type"), (member, "operation")]
    found += [(cls, "type") for cls, _ in _STATIC_CALL_RE.findall(text)]
    for pattern in (_JAVA_IMPORT_RE, _NEW_RE):
        found += [(cls, "type") for cls in pattern.findall(text)]
    found += [(cls, "type") for cls in TYPE_RE.findall(text)]
    return found


def shell_command(line: str) -> str:
    """The command (program and up to two subcommands) a shell line runs; "" for none."""
    line = line.removeprefix("$ ").strip()
    if not line or line.startswith("#"):
        return ""
    words = []
    for word in line.split():
        if not re.fullmatch(r"[a-z][a-z0-9._-]*", word) or len(words) >= 3:
            break
        words.append(word)
    if not words or words[0] in _SHELL_SKIP or "=" in words[0]:
        return ""
    if len(words) > 1 or "-" in words[0]:
        return " ".join(words)
    return ""


def cli_page_command(line: str, programs: set[str]) -> str:
    """A command named on its own line of a CLI page (`full-sync`, `collibra data-contract init`);
    "" for none. `programs` collects the program names seen so far on the page."""
    if not line:
        return ""
    m = _CLI_LINE_RE.match(line) if len(line) <= 80 else None
    words = m.group(1).split() if m else []
    if not m:
        # "collibra data-contract draft Generate a new ..." : a known program then its subcommand.
        lead = re.match(r"^([a-z][\w-]*(?:\s+[a-z][a-z0-9-]*){1,3})\s+[A-Z]", line)
        if not lead or lead.group(1).split()[0] not in programs:
            return ""
        words = lead.group(1).split()
    if words[0] in STOPWORDS or words[0] in _SHELL_SKIP:
        return ""
    if len(words) == 1 and "-" not in words[0]:
        return ""
    if len(words) > 3 and not any("-" in w for w in words) and words[0] not in programs:
        return ""
    if len(words) > 1:
        programs.add(words[0])
    return " ".join(words)


def graphql_names(line: str) -> list[str]:
    """Operation, type and field names in a line of a GraphQL document or reference page."""
    found: list[str] = []
    m = _GRAPHQL_OP_RE.match(line)
    if m:
        found.append(m.group(2))
    found += _GRAPHQL_TYPE_REF_RE.findall(line)
    found += [spread or variable_type for spread, variable_type in _GRAPHQL_SPREAD_RE.findall(line)]
    f = None if m else _GRAPHQL_FIELD_RE.match(line)
    if f and len(f.group(1)) > 1 and f.group(1) not in STOPWORDS and len(line.strip()) < 60:
        found.append(f.group(1))
    return found
