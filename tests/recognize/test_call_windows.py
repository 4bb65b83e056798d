"""Long files are read through windows: no syntax tree of the whole file is kept, and every call
reads as a whole-file tree reads it (`scan_calls` over a whole-file tree, the reader with a
`NameMemo`, which follows names through the whole text)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from atlas_core.recognize.calls import CallReader, windows
from atlas_core.recognize.calls.scan import ScanCache, scan_calls
from atlas_core.recognize.calls.tree_reader import NameMemo, reader_for
from atlas_core.syntax.trees import parse_once

ROOT = Path(__file__).resolve().parents[2]
SNIPPETS = [
    json.loads(line)
    for line in (ROOT / "benchmarks" / "client_snippets.jsonl").read_text().splitlines()
    if line.strip()
]
FUNCTION = """\
def find_{n}(session, name):
    found = session.get(BASE + "/assets", params={{"name": name, "nameMatchMode": "EXACT"}})
    added = session.post(f"{{BASE}}/domains", json={{"name": name, "typeId": TYPE}})
    return requests.delete(ASSET_URL.format(id=found.json()["id"]), timeout=5)

"""


def snippet_client(language: str) -> str:
    """The client snippets of `language` (code shaped like users': requests, fetch, axios, ...),
    one after another until past `windows.WINDOWED_LINES` lines: hundreds of module-level
    assignments, each name assigned again by every later script."""
    codes = [s["code"] for s in SNIPPETS if s["language"] == language]
    parts: list[str] = []
    while sum(p.count("\n") + 1 for p in parts) <= windows.WINDOWED_LINES:
        parts.append(codes[len(parts) % len(codes)])
    return "\n".join(parts)


def module_client() -> str:
    """One long module: a base URL built from a host, constants, and 800 functions using them."""
    header = (
        'import requests\n\nHOST = "https://acme.collibra.com"\nBASE = f"{HOST}/rest/2.0"\n'
        'TYPE = "00000000-0000-0000-0000-000000031302"\nASSET_URL = BASE + "/assets/{id}"\n\n'
    )
    return header + "".join(FUNCTION.format(n=n) for n in range(800))


def edit_a_url_in_the_middle(text: str) -> str:
    """`text` with the first URL path past its middle changed (``"/assets`` to ``"/v2/assets``)."""
    lines = text.split("\n")
    for n in range(len(lines) // 2, len(lines)):
        for quote in ('"/', "'/", "`/", "}/", "0/assets"):
            if quote in lines[n] and ("http" not in lines[n] or quote == "0/assets"):
                lines[n] = lines[n].replace(quote, quote + "v2/", 1)
                return "\n".join(lines)
    raise AssertionError("no URL path in the second half")


def with_long_strings(language: str) -> str:
    """A long client whose strings run over lines written at column 0 (a query text, a
    template literal), which start no statement: neither a definition's first line nor, in the
    module's string, an assignment's."""
    if language == "python":
        head = 'import requests\n\nBASE = "https://acme.collibra.com/rest/2.0"\nQUERY = """\nquery = {\nname = "x"\n"""\n\n'
        body = (
            "def run_{n}(session):\n"
            '    text = """\nselect 1\ndef not_a_function():\n"""\n'
            '    return session.post(BASE + "/graphql/knowledgeGraph/v1", json={{"query": QUERY}})\n\n'
        )
    else:
        head = "const query = `\nconst x = {\n`;\n\n"
        body = (
            "async function run{n}() {{\n"
            "  const note = `\ny 1;\nfunction notOne() {{\n`;\n"
            "  return fetch(`https://acme.collibra.com/rest/2.0/assets?name=${{note}}`, {{\n"
            '    method: "GET",\n  }});\n}}\n\n'
        )
    return head + "".join(body.format(n=n) for n in range(windows.WINDOWED_LINES // 6 + 10))


DOCUMENTS = [
    ("python", snippet_client("python")),
    ("javascript", snippet_client("javascript")),
    ("typescript", snippet_client("typescript")),
    ("python", module_client()),
    ("python", with_long_strings("python")),
    ("javascript", with_long_strings("javascript")),
    # Saved on Windows: a blank line is "\r", which starts no statement.
    ("python", snippet_client("python").replace("\n", "\r\n")),
    ("javascript", snippet_client("javascript").replace("\n", "\r\n")),
]
# The first Python and JavaScript documents in every run; the other shapes (each ~1.5 s a test)
# are stress cases that .ci/run adds.
CASES = [
    pytest.param(case, marks=() if case < 2 else pytest.mark.stress)
    for case in range(len(DOCUMENTS))
]


@pytest.mark.parametrize("case", CASES)
def test_a_windowed_scan_finds_what_a_whole_file_tree_finds(case: int) -> None:
    language, text = DOCUMENTS[case]
    assert windows.is_windowed(language, text)
    budget = {"budget_s": 120, "limit": 10**6}
    whole = scan_calls(text, language, parsed=parse_once(text, language), **budget)
    assert len(whole) > 400
    cache = ScanCache()
    windowed = scan_calls(text, language, cache=cache, **budget)
    assert windowed == whole
    # An edit in one statement: what the cache keeps is reused, and the result is a fresh scan's.
    edited = edit_a_url_in_the_middle(text)
    assert edited != text
    again = scan_calls(edited, language, cache=cache, **budget)
    assert again != windowed
    assert again == scan_calls(edited, language, parsed=parse_once(edited, language), **budget)


@pytest.mark.parametrize("case", CASES)
def test_a_read_in_a_long_file_is_the_whole_files_read(case: int) -> None:
    language, text = DOCUMENTS[case]
    document, tree = parse_once(text, language)
    assert tree is not None
    reader_class = reader_for(language)
    assert reader_class is not None
    lines = text.split("\n")
    # Cursors on every kind of site a whole-file scan finds, and on other strings.
    sites = scan_calls(text, language, parsed=(document, tree), budget_s=120, limit=10**6)
    rnd = random.Random(case)
    cursors = [(f.line, f.site.start) for f in rnd.sample(sites, 120)]
    quoted = [(n, row.index('"') + 1) for n, row in enumerate(lines) if '"' in row]
    cursors += rnd.sample(quoted, 60)
    reader = CallReader()
    read = 0
    for line, column in cursors:
        offset = document.byte_offset(line, column)
        whole = reader_class(document, tree.root_node, language, line, offset, memo=NameMemo())
        expected = whole.read()
        assert reader.read("file:///long", text, 1, language, line, column) == expected, line
        read += expected is not None
    assert read >= 80


def test_a_long_file_keeps_no_syntax_tree() -> None:
    text = module_client()
    reader = CallReader()
    uri = "file:///long.py"
    reader.parse(uri, text, 1, "python")
    assert reader.scan(uri, text, 1, "python")
    site = reader.read(uri, text, 1, "python", 8, 33)
    assert site is not None and site.url == "https://acme.collibra.com/rest/2.0/assets"
    entry = reader._trees._entries[uri]
    assert entry.tree is None and entry.source is None
    # A short file keeps its tree, for incremental re-parses while it is edited; one that grows
    # past the limit lets go of it.
    head = "\n".join(text.split("\n")[:100])
    reader.parse("file:///grows.py", head, 1, "python")
    assert reader._trees._entries["file:///grows.py"].tree is not None
    reader.parse("file:///grows.py", text, 2, "python")
    assert reader._trees._entries["file:///grows.py"].tree is None


def test_statements_are_found_by_their_first_column() -> None:
    lines = [
        "# a comment",
        "import requests",
        "",
        "@retry",
        "@timed",
        "def find(name):",
        "    return requests.get(",
        "        BASE,",
        ")",
        "BASE = (",
        '    "https://acme"',
        ")",
    ]
    assert windows.statements(lines) == [(1, 3), (3, 9), (9, 12)]
    crlf = [row + "\r" for row in lines]
    assert windows.statements(crlf) == windows.statements(lines)
    assert windows.module_values(lines, "python") == [(1, 3), (9, 12)]
    outline = windows.Outline("\n".join(lines), "python")
    assert outline.needs(9, 12) == []  # BASE is used above its assignment only
    assert outline.statement_of(7) == (3, 9)
    assert outline.statement_of(4) == (3, 9)  # a decorator's line is its definition's
    assert not windows.is_windowed("java", "\n" * (windows.WINDOWED_LINES + 1))
    assert windows.is_windowed("python", "\n" * windows.WINDOWED_LINES)


def test_a_window_follows_a_module_constant_a_whole_file_read_gives_up_on() -> None:
    """JavaScript reads look back over at most 64 uses of a name for its declaration: in a long
    file of calls on one BASE, a whole-file read stops short of it; the window holds only the
    declaration and the statement, so the window's read knows the URL."""
    head = 'const BASE = "https://acme.collibra.com/rest/2.0";\n\n'
    body = "async function find{n}() {{\n  return fetch(`${{BASE}}/assets`);\n}}\n\n"
    text = head + "".join(body.format(n=n) for n in range(windows.WINDOWED_LINES // 4 + 10))
    lines = text.split("\n")
    line = len(lines) - 4
    column = lines[line].index("/assets")
    document, tree = parse_once(text, "javascript")
    assert tree is not None
    reader_class = reader_for("javascript")
    assert reader_class is not None
    offset = document.byte_offset(line, column)
    whole = reader_class(document, tree.root_node, "javascript", line, offset, memo=NameMemo())
    assert whole.read().url == "{}/assets"  # type: ignore[union-attr]
    site = CallReader().read("file:///long.js", text, 1, "javascript", line, column)
    assert site is not None and site.url == "https://acme.collibra.com/rest/2.0/assets"
