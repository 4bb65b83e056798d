"""Every grammar the code source uses, on client code shaped like a team's own: the definitions
found, their kinds, parents and line ranges, and pieces well formed at any budget."""

from __future__ import annotations

import random

import pytest

from atlas_core.code import CodePiece, chunk_code
from tests.code.checks import assert_well_formed, budget, lines_of
from tests.code.conftest import snippet

Label = tuple[str, str, str, int, int]

EXPECTED: dict[tuple[str, str], list[Label]] = {
    ("client.ts", "typescript"): [
        ("module", "", "", 1, 3),
        ("interface", "", "RequestOptions", 5, 9),
        ("type", "", "AssetId", 11, 11),
        ("enum", "", "Status", 13, 16),
        ("function", "", "getJson", 18, 27),
        ("function", "", "postJson", 29, 31),
        ("class", "", "AssetClient", 33, 34),
        ("method", "AssetClient", "constructor", 36, 38),
        ("method", "AssetClient", "findAssets", 40, 43),
        ("method", "AssetClient", "onError", 45, 48),  # with the class's closing brace
        ("module", "", "", 50, 50),
    ],
    ("Assets.tsx", "tsx"): [
        ("module", "", "", 1, 1),
        ("type", "", "Props", 3, 3),
        ("function", "", "AssetList", 5, 11),
        ("function", "", "Empty", 13, 13),
        ("module", "", "", 15, 15),
    ],
    ("sync.js", "javascript"): [
        ("module", "", "", 1, 2),
        ("function", "", "login", 4, 11),
        ("class", "", "Importer", 13, 13),
        ("method", "Importer", "constructor", 14, 16),
        ("method", "Importer", "run", 18, 21),
        ("function", "", "handler", 23, 26),
    ],
    ("Client.java", "java"): [
        ("module", "", "", 1, 6),
        ("class", "", "ImportClient", 8, 14),
        ("method", "ImportClient", "ImportClient", 16, 20),
        ("method", "ImportClient", "startImport", 22, 38),
        ("enum", "ImportClient", "Mode", 40, 41),
        ("method", "ImportClient.Mode", "waits", 43, 46),
        ("class", "ImportClient", "Job", 48, 48),
        ("interface", "ImportClient", "Listener", 50, 53),
    ],
    ("workflow.groovy", "groovy"): [
        ("module", "", "", 1, 4),
        ("function", "", "findAll", 6, 24),
        ("function", "", "describe", 26, 28),
        ("class", "", "Report", 30, 32),
        ("method", "Report", "add", 34, 36),
        ("method", "Report", "render", 38, 41),
        ("module", "", "", 43, 45),
    ],
    ("client.go", "go"): [
        ("module", "", "", 1, 10),
        ("type", "", "Client", 12, 16),
        ("type", "", "Asset", 18, 22),
        ("interface", "", "Finder", 24, 27),
        ("function", "", "NewClient", 29, 32),
        ("method", "Client", "FindAssets", 34, 47),
        ("method", "Asset", "String", 49, 49),
    ],
    ("sync.sh", "shell"): [
        ("module", "", "", 1, 5),
        ("function", "", "log", 7, 10),
        ("function", "", "export_domain", 12, 18),
        ("module", "", "", 20, 22),
    ],
    ("compose.yaml", "yaml"): [
        ("key", "", "version", 1, 2),
        ("key", "", "services", 4, 15),
        ("key", "", "volumes", 17, 18),
    ],
    ("package.json", "json"): [
        ("key", "", "name", 1, 2),
        ("key", "", "version", 3, 3),
        ("key", "", "scripts", 4, 8),
        ("key", "", "dependencies", 9, 12),
    ],
}
CASES = sorted(EXPECTED)


def labels(pieces: list[CodePiece]) -> list[Label]:
    return [(p.kind, p.parent, p.symbol, p.line_start, p.line_end) for p in pieces]


def pieces_of(name: str, language: str, size: int = 4000) -> list[CodePiece]:
    chunking = chunk_code(snippet(name), language, fits=budget(size))
    assert chunking.fallback == ""
    return chunking.pieces


@pytest.mark.parametrize(("name", "language"), CASES)
def test_definitions_are_found_with_kind_parent_and_lines(name: str, language: str) -> None:
    pieces = pieces_of(name, language)
    assert labels(pieces) == EXPECTED[name, language]
    text = snippet(name)
    assert all(p.text == lines_of(text, p.line_start, p.line_end) for p in pieces)
    assert all(p.part == 0 and p.header == "" for p in pieces)


@pytest.mark.parametrize(("name", "language"), CASES)
@pytest.mark.parametrize("size", [30, 70, 160, 400])
def test_pieces_are_well_formed_at_any_budget(name: str, language: str, size: int) -> None:
    text = snippet(name)
    fits = budget(size)
    chunking = chunk_code(text, language, fits=fits)
    assert chunking.fallback == ""
    assert_well_formed(text, chunking.pieces, fits)
    crlf = chunk_code(text.replace("\n", "\r\n"), language, fits=fits)
    assert crlf.pieces == chunking.pieces


def by_symbol(name: str, language: str) -> dict[str, CodePiece]:
    """The first piece of each symbol (a Java class comes before its constructor)."""
    found: dict[str, CodePiece] = {}
    for piece in pieces_of(name, language):
        found.setdefault(piece.symbol, piece)
    return found


def test_javadoc_and_annotations_go_with_the_java_method() -> None:
    pieces = by_symbol("Client.java", "java")
    assert pieces["ImportClient"].text.startswith("/**\n * Talks to the Collibra import API.")
    assert "private final URI base;" in pieces["ImportClient"].text
    assert pieces["startImport"].text.startswith("    /**\n     * Starts an import job.")
    assert "    @Deprecated\n    public String startImport(" in pieces["startImport"].text


def test_typescript_comments_and_decorators_go_with_their_definition() -> None:
    pieces = by_symbol("client.ts", "typescript")
    assert pieces["RequestOptions"].text.startswith("/** Options for every call. */\nexport")
    assert pieces["getJson"].text.startswith("/**\n * Fetches JSON")
    assert pieces["findAssets"].text.startswith("  @logged\n  async findAssets(")


def test_a_groovy_script_keeps_its_statements_as_module_code() -> None:
    pieces = pieces_of("workflow.groovy", "groovy")
    assert 'execution.setVariable("report", report.render())' in pieces[-1].text
    assert pieces[1].text.startswith("/**\n * Every asset in the domain, page by page.\n */")


def test_a_long_groovy_function_is_split_with_its_signature_as_header() -> None:
    fits = budget(260)
    pieces = [p for p in pieces_of("workflow.groovy", "groovy", 260) if p.symbol == "findAll"]
    assert [p.part for p in pieces] == list(range(1, len(pieces) + 1))
    assert len(pieces) >= 2
    assert pieces[0].text.startswith("/**")
    assert all(p.header == "def findAll(String domain) {" for p in pieces[1:])
    assert_well_formed(
        snippet("workflow.groovy"), pieces_of("workflow.groovy", "groovy", 260), fits
    )


def test_a_go_method_has_its_receiver_type_as_parent() -> None:
    pieces = by_symbol("client.go", "go")
    assert pieces["FindAssets"].text.startswith("// FindAssets returns the assets called name.\n")
    assert (pieces["String"].parent, pieces["String"].kind) == ("Asset", "method")


def test_a_long_yaml_key_is_split_by_its_children() -> None:
    text = snippet("compose.yaml")
    fits = budget(130)
    chunking = chunk_code(text, "yaml", fits=fits)
    services = [p for p in chunking.pieces if p.symbol == "services"]
    assert [(p.part, p.line_start, p.line_end, p.header) for p in services] == [
        (1, 4, 9, ""),
        (2, 10, 15, "services:"),
    ]
    assert_well_formed(text, chunking.pieces, fits)


def test_a_long_json_value_is_split_by_its_children() -> None:
    text = snippet("package.json")
    fits = budget(70)
    chunking = chunk_code(text, "json", fits=fits)
    scripts = [p for p in chunking.pieces if p.symbol == "scripts"]
    assert len(scripts) >= 2
    assert all(p.kind == "key" for p in scripts)
    assert all(p.header == '  "scripts": {' for p in scripts[1:])
    assert_well_formed(text, chunking.pieces, fits)


def test_a_broken_enum_body_loses_no_line() -> None:
    # A member group (Java's enum_body_declarations) sharing a line with the constants once
    # dropped the statement left in it.
    text = "class A {\n    enum Mode {\n        SYNC, ASYNC;\n            return this == SYNC;\n    }\n}\n"
    fits = budget(15)
    assert_well_formed(text, chunk_code(text, "java", fits=fits).pieces, fits)


def mutated(text: str, rng: random.Random) -> str:
    """`text` with lines dropped, shuffled or cut off, stray brackets typed in, or a long line."""
    lines = text.split("\n")
    operation = rng.randrange(5)
    if operation == 0:
        for _ in range(rng.randrange(1, 6)):
            del lines[rng.randrange(len(lines))]
    elif operation == 1:
        start = rng.randrange(len(lines))
        block = lines[start : start + rng.randrange(2, 10)]
        rng.shuffle(block)
        lines[start : start + len(block)] = block
    elif operation == 2:
        at = rng.randrange(len(text))
        noise = "".join(rng.choice("{}()[];:\"'`\\\n é\t\r") for _ in range(rng.randrange(1, 20)))
        return text[:at] + noise + text[at:]
    elif operation == 3:
        lines = lines[: rng.randrange(len(lines))]
    else:
        lines.insert(
            rng.randrange(len(lines) + 1), "  x = '" + "ab " * rng.randrange(10, 300) + "'"
        )
    return "\n".join(lines)


def test_edited_and_broken_sources_still_give_well_formed_pieces() -> None:
    rng = random.Random(15)
    for _ in range(300):
        name, language = rng.choice(CASES)
        text = mutated(snippet(name), rng)
        fits = budget(rng.choice([15, 40, 90, 200, 600]))
        chunking = chunk_code(text, language, fits=fits)
        assert not chunking.fallback.startswith("chunker failed"), (name, chunking.fallback)
        assert_well_formed(text, chunking.pieces, fits)


def test_a_byte_order_mark_before_the_json_object_joins_the_first_key() -> None:
    text = '\ufeff{\n  "name": "sync",\n  "private": true\n}\n'
    pieces = chunk_code(text, "json", fits=budget(100)).pieces
    assert labels(pieces) == [("key", "", "name", 1, 2), ("key", "", "private", 3, 4)]
