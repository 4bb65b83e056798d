"""The reader itself: per-document trees kept across edits, bad input, a missing grammar, and the
cost of importing it."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from atlas_core.recognize.calls import CallReader, call_at
from atlas_core.syntax import trees as syntax_module
from tests.recognize.cursor import ROOT, position_of

CLIENT = """\
import requests

BASE = "https://acme.collibra.com/rest/2.0"


def find(name):
    params = {"name": name, "nameMatchMode": "EXACT"}
    return requests.get(BASE + "/assets", params=params)


def start(definition_id):
    return requests.post(BASE + "/workflowInstances", json={"workflowDefinitionId": definition_id})
"""


def test_an_edited_document_reads_as_a_fresh_parse_would() -> None:
    reader = CallReader()
    uri = "file:///sync.py"
    line, column = position_of(CLIENT, "nameMatchMode")
    before = reader.read(uri, CLIENT, 1, "python", line, column)
    assert before is not None and before.method == "GET"

    edits = [
        CLIENT.replace("requests.get(", "requests.delete("),  # the method changes
        CLIENT.replace("# nothing", "").replace('"/assets"', '"/domains"'),  # the URL changes
        "# a new first line\n" + CLIENT,  # everything moves down a line
        CLIENT.replace('"EXACT"}', '"EXACT", "limit": 10}'),  # the same line grows
        CLIENT[: CLIENT.index("def start")],  # the end is cut
    ]
    for version, text in enumerate(edits, start=2):
        for needle in ("nameMatchMode", '"name"', "/assets", "/domains", "workflowDefinitionId"):
            if needle not in text:
                continue
            line, column = position_of(text, needle, into=2)
            incremental = reader.read(uri, text, version, "python", line, column)
            assert incremental == call_at(text, "python", line, column), (version, needle)
    edited = reader.read(uri, edits[-1], 99, "python", *position_of(edits[-1], "nameMatchMode"))
    assert edited is not None and edited.method == "GET"


def test_update_then_call_at_and_forget() -> None:
    reader = CallReader()
    reader.update("file:///a.py", CLIENT, 1, "python")
    line, column = position_of(CLIENT, "workflowDefinitionId")
    site = reader.call_at("file:///a.py", line, column)
    assert site is not None
    assert (site.method, site.role, site.name) == ("POST", "body", "workflowDefinitionId")
    reader.forget("file:///a.py")
    assert reader.call_at("file:///a.py", line, column) is None


def test_the_cache_keeps_the_most_recent_documents() -> None:
    reader = CallReader(capacity=2)
    line, column = position_of(CLIENT, "nameMatchMode")
    for n in range(3):
        reader.update(f"file:///{n}.py", CLIENT, 1, "python")
    assert reader.call_at("file:///0.py", line, column) is None  # evicted
    assert reader.call_at("file:///2.py", line, column) is not None


def _minified_json(size: int) -> str:
    items = [
        {"id": i, "href": f"/rest/2.0/assets/{i}", "name": "n" * 24} for i in range(size // 40)
    ]
    return json.dumps(items, separators=(",", ":"))[:size]


BAD_INPUTS = {
    "empty": "",
    "unclosed string": 'requests.get("/rest/2.0/assets, params={"name": 1\n',
    "unclosed brackets": "requests.get(BASE + '/assets', params={'name': [1, (2, {\n" * 3,
    "binary junk": "".join(chr(c) for c in range(0, 0x2FF)) + "\x00\ud800\udfff",
    "lone surrogates": 'requests.get("/rest/2.0/\ud800assets", params={"\udc00name": 1})\n',
    "deep nesting": "x = " + "(" * 20_000 + ")" * 20_000 + "\n",
}


@pytest.mark.parametrize(
    "language",
    ["python", "typescript", "java", "groovy", "shellscript", "markdown", "json", "cobol", ""],
)
@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_gives_an_answer_or_none_never_an_error(name: str, language: str) -> None:
    text = BAD_INPUTS[name]
    reader = CallReader()
    lines = text.split("\n")
    for line in {0, len(lines) // 2, len(lines) - 1, len(lines) + 5}:
        width = len(lines[line]) if line < len(lines) else 3
        for column in {0, width // 2, width, width + 10}:
            reader.read("file:///bad", text, 1, language, line, column)
    assert reader.read("file:///bad", text, 1, language, -1, 0) is None
    assert reader.read("file:///bad", text, 1, language, 0, -1) is None


def test_five_megabytes_of_minified_json_is_read_as_text() -> None:
    text = _minified_json(5 * 1024 * 1024)
    index = text.index("/rest/2.0/assets/777") + 12
    reader = CallReader()
    site = reader.read("file:///dump.json", text, 1, "javascript", 0, index)
    assert site is not None
    assert (site.role, site.url, site.method) == ("endpoint", "/rest/2.0/assets/777", "")
    assert reader.last_parse_s == 0.0  # never handed to tree-sitter
    middle = reader.read("file:///dump.json", text, 1, "json", 0, len(text) // 2)
    assert middle is None or middle.role == "endpoint"


def test_a_100000_character_line_is_blanked_for_the_parser_and_read_as_text() -> None:
    long_line = "DATA = [" + ",".join(f'"/rest/2.0/assets/{i}"' for i in range(5000)) + "]"
    long_line = long_line[:100_000]
    text = CLIENT + long_line + "\n"
    reader = CallReader()
    line, column = position_of(text, "nameMatchMode")
    site = reader.read("file:///long.py", text, 1, "python", line, column)
    assert site is not None and site.name == "nameMatchMode"  # the rest still parses
    on_long = reader.read("file:///long.py", text, 1, "python", text.count("\n") - 1, 50_000)
    assert on_long is None or on_long.role == "endpoint"


TEXT_READABLE = """\
def start(definition_id):
    params = {"name": name, "nameMatchMode": "EXACT"}
    return session.post("/rest/2.0/workflowInstances", json={"workflowDefinitionId": definition_id})
"""


def test_a_parse_over_budget_falls_back_to_text() -> None:
    # A budget of zero stands in for a document pathological enough to exhaust the real one.
    text = TEXT_READABLE * 200
    reader = CallReader(parse_budget_s=0.0)
    line, column = position_of(text, "/workflowInstances", into=3)
    site = reader.read("file:///slow.py", text, 1, "python", line, column)
    assert site is not None
    assert (site.role, site.method) == ("endpoint", "POST")
    assert site.url == "/rest/2.0/workflowInstances"
    line, column = position_of(text, "nameMatchMode")
    assert reader.read("file:///slow.py", text, 1, "python", line, column) is None


def test_a_missing_grammar_falls_back_to_the_text_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    # The grammars are installed here; naming a module that does not exist is how a user without
    # one looks to the reader.
    monkeypatch.setitem(
        syntax_module._GRAMMARS, "python", ("tree_sitter_not_installed", "language")
    )
    monkeypatch.setattr(syntax_module, "_languages", {})
    line, column = position_of(TEXT_READABLE, "/workflowInstances", into=3)
    site = call_at(TEXT_READABLE, "python", line, column)
    assert site is not None
    assert (site.role, site.method) == ("endpoint", "POST")
    line, column = position_of(TEXT_READABLE, "nameMatchMode")
    assert call_at(TEXT_READABLE, "python", line, column) is None  # keys need the tree


def test_importing_the_reader_loads_no_parser() -> None:
    code = (
        "import sys\n"
        "import atlas_core.recognize.calls as calls\n"
        "assert not [m for m in sys.modules if m.startswith('tree_sitter')], 'eager import'\n"
        "calls.call_at('x = 1', 'python', 0, 0)\n"
        "loaded = sorted({m.split('.')[0] for m in sys.modules if m.startswith('tree_sitter')})\n"
        "assert loaded == ['tree_sitter', 'tree_sitter_python'], loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=60)


def test_incremental_parses_after_edits_at_several_places_match_a_fresh_parse() -> None:
    import random

    from atlas_core.syntax.trees import SyntaxTrees, parse_once

    function = 'def f{n}(s):\n    return s.get(BASE + "/assets", params={{"name": "x"}})\n\n'
    text = 'BASE = "https://x.collibra.com/rest/2.0"\n' + "".join(
        function.format(n=n) for n in range(400)
    )
    rng = random.Random(3)
    trees = SyntaxTrees()
    trees.update("u", text, 1, "python")
    trees.tree("u")
    for version in range(2, 30):
        rows = text.split("\n")
        for _ in range(rng.choice([1, 2, 3])):  # typing at places far apart, then one parse
            at = rng.randrange(len(rows))
            change = rng.random()
            if change < 0.4:
                rows[at] += rng.choice(["x", " # c", "(", '"'])
            elif change < 0.7:
                rows.insert(at, rng.choice(["", "def g():", "    y = 1", "z = [", "'''"]))
            else:
                del rows[at]
        text = "\n".join(rows)
        trees.update("u", text, version, "python")
        tree = trees.tree("u")
        _, fresh = parse_once(text, "python")
        assert tree is not None and fresh is not None
        assert str(tree.root_node) == str(fresh.root_node), version


def test_parsing_keeps_no_reference_to_the_text() -> None:
    # tree-sitter 0.26 keeps every object the read callback returns: handing it the text (or
    # slices of it) leaked the text on each parse, 0.35 MB per keystroke in a 10,000-line file.
    from tree_sitter import Parser

    from atlas_core.syntax.trees import load_language, parse_within

    language = load_language("python")
    assert language is not None
    parser = Parser(language)
    source = b"client.get('/rest/2.0/assets', params={'name': 'x'})\n" * 200
    before = sys.getrefcount(source)
    tree = parse_within(parser, source, None, time.perf_counter() + 30)
    for _ in range(3):  # incremental re-parses read the text again
        tree = parse_within(parser, source, tree, time.perf_counter() + 30)
    assert tree.root_node.type == "module" and not tree.root_node.has_error
    assert sys.getrefcount(source) == before
