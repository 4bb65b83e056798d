"""Python files chunked by definition: a `requests` client script as a team would write one."""

from __future__ import annotations

from atlas_core.code import CodePiece, chunk_code
from tests.code.checks import assert_well_formed, budget, lines_of

SCRIPT = '''\
"""Push glossary terms from a CSV file into Collibra."""
import csv
import os

import requests

BASE_URL = os.environ.get("COLLIBRA_URL", "https://example.collibra.com")
PAGE_SIZE = 100


# Keeps the cookie between calls.
class CollibraSession:
    """A logged-in REST session."""

    timeout = 30

    def __init__(self, user: str, password: str) -> None:
        self.http = requests.Session()
        self.http.auth = (user, password)

    @property
    def api(self) -> str:
        return f"{BASE_URL}/rest/2.0"

    async def find_assets(self, name: str) -> list[dict]:
        """Every asset called `name`, page by page."""
        found = []
        offset = 0
        while True:
            response = self.http.get(
                f"{self.api}/assets",
                params={"name": name, "offset": offset, "limit": PAGE_SIZE},
                timeout=self.timeout,
            )
            response.raise_for_status()
            page = response.json()["results"]
            found.extend(page)
            if len(page) < PAGE_SIZE:
                return found
            offset += PAGE_SIZE

    class Retry:
        def delay(self, attempt: int) -> float:
            return 2.0**attempt


def main() -> None:
    session = CollibraSession(os.environ["USER"], os.environ["PASSWORD"])
    with open("terms.csv", encoding="utf-8") as terms:
        for row in csv.DictReader(terms):
            print(session.find_assets(row["name"]))


if __name__ == "__main__":
    main()
'''


def labels(pieces: list[CodePiece]) -> list[tuple[str, str, str, int, int]]:
    return [(p.kind, p.parent, p.symbol, p.line_start, p.line_end) for p in pieces]


def test_a_script_is_cut_at_its_definitions() -> None:
    fits = budget(2000)
    chunking = chunk_code(SCRIPT, "python", fits=fits)
    assert chunking.fallback == ""
    assert labels(chunking.pieces) == [
        ("module", "", "", 1, 8),
        ("class", "", "CollibraSession", 11, 15),
        ("method", "CollibraSession", "__init__", 17, 19),
        ("method", "CollibraSession", "api", 21, 23),
        ("method", "CollibraSession", "find_assets", 25, 40),
        ("class", "CollibraSession", "Retry", 42, 42),
        ("method", "CollibraSession.Retry", "delay", 43, 44),
        ("function", "", "main", 47, 51),
        ("module", "", "", 54, 55),
    ]
    assert all(p.part == 0 and p.header == "" for p in chunking.pieces)
    assert_well_formed(SCRIPT, chunking.pieces, fits)


def test_comments_decorators_and_docstrings_stay_with_their_definition() -> None:
    pieces = {p.symbol: p for p in chunk_code(SCRIPT, "python", fits=budget(2000)).pieces}
    assert pieces["CollibraSession"].text.startswith("# Keeps the cookie between calls.\nclass")
    assert '"""A logged-in REST session."""' in pieces["CollibraSession"].text
    assert "timeout = 30" in pieces["CollibraSession"].text
    assert pieces["api"].text.startswith("    @property\n    def api(self)")
    assert pieces["find_assets"].text.startswith("    async def find_assets(")
    assert '"""Every asset called `name`, page by page."""' in pieces["find_assets"].text


def test_piece_text_is_the_file_lines() -> None:
    for piece in chunk_code(SCRIPT, "python", fits=budget(2000)).pieces:
        assert piece.text == lines_of(SCRIPT, piece.line_start, piece.line_end)


def test_a_long_method_is_split_at_its_statements_with_the_signature_as_header() -> None:
    fits = budget(300)
    chunking = chunk_code(SCRIPT, "python", fits=fits)
    pieces = [p for p in chunking.pieces if p.symbol == "find_assets"]
    # The docstring with the signature; the multi-line call whole; parts end where statements do.
    assert [(p.part, p.line_start, p.line_end) for p in pieces] == [
        (1, 25, 29),
        (2, 30, 34),
        (3, 35, 40),
    ]
    signature = "    async def find_assets(self, name: str) -> list[dict]:"
    assert pieces[0].header == ""
    assert pieces[0].text.startswith(signature + '\n        """Every asset called')
    assert [p.header for p in pieces[1:]] == [signature, signature]
    assert all(p.kind == "method" and p.parent == "CollibraSession" for p in pieces)
    assert all(p.text == lines_of(SCRIPT, p.line_start, p.line_end) for p in pieces)
    assert_well_formed(SCRIPT, chunking.pieces, fits)


def test_every_budget_gives_well_formed_pieces() -> None:
    for size in (20, 45, 80, 150, 400, 5000):
        fits = budget(size)
        chunking = chunk_code(SCRIPT, "python", fits=fits)
        assert chunking.fallback == ""
        assert_well_formed(SCRIPT, chunking.pieces, fits)


def test_a_line_longer_than_the_budget_is_cut_in_characters() -> None:
    text = 'def payload():\n    return "' + "x" * 500 + '"\n'
    fits = budget(120)
    pieces = chunk_code(text, "python", fits=fits).pieces
    long_line = text.split("\n")[1]
    stretches = [p for p in pieces if p.line_start == p.line_end == 2]
    assert len(stretches) >= 5
    assert "".join(p.text for p in stretches) == long_line
    assert all(p.symbol == "payload" and p.part > 0 for p in stretches)
    assert_well_formed(text, pieces, fits)


def test_nested_functions_keep_their_parent_chain_when_the_outer_is_split() -> None:
    text = (
        "def outer():\n"
        + "".join(f"    step_{i} = compute({i})\n" for i in range(8))
        + "    def helper(value):\n        return value * 2\n"
        + "    return helper(step_0)\n"
    )
    pieces = chunk_code(text, "python", fits=budget(120)).pieces
    helper = next(p for p in pieces if p.symbol == "helper")
    assert (helper.kind, helper.parent, helper.part) == ("function", "outer", 0)
    assert helper.text == "    def helper(value):\n        return value * 2"
    assert [p.symbol for p in pieces].count("outer") >= 2


def test_crlf_line_endings_give_the_same_pieces_as_lf() -> None:
    lf = chunk_code(SCRIPT, "python", fits=budget(300)).pieces
    crlf = chunk_code(SCRIPT.replace("\n", "\r\n"), "python", fits=budget(300)).pieces
    assert crlf == lf


def test_non_ascii_text_keeps_its_line_numbers() -> None:
    text = (
        '"""Résumé des métiers — 日本語."""\n\n'
        'GRÜSSE = "grüß dich"\n\n\n'
        "def café(crème: str) -> str:\n"
        '    """Naïve façade."""\n'
        "    return crème + '☕'\n"
    )
    pieces = chunk_code(text, "python", fits=budget(1000)).pieces
    assert labels(pieces) == [("module", "", "", 1, 3), ("function", "", "café", 6, 8)]
    assert pieces[1].text == lines_of(text, 6, 8)


def test_class_attributes_after_a_method_are_a_later_part_of_the_class() -> None:
    text = (
        "class Config:\n"
        '    """Settings."""\n\n'
        '    url = "x"\n\n'
        "    def load(self):\n        return 1\n\n"
        "    retries = 3\n    backoff = 2.0\n\n"
        "    def save(self):\n        return 2\n"
    )
    pieces = chunk_code(text, "python", fits=budget(500)).pieces
    assert [(p.kind, p.symbol, p.part, p.header, p.line_start, p.line_end) for p in pieces] == [
        ("class", "Config", 1, "", 1, 4),
        ("method", "load", 0, "", 6, 7),
        ("class", "Config", 2, "class Config:", 9, 10),
        ("method", "save", 0, "", 12, 13),
    ]


def test_a_small_syntax_error_still_chunks_by_definition() -> None:
    text = "def broken(:\n    return 1\n\n\ndef fine():\n    return 2\n"
    chunking = chunk_code(text, "python", fits=budget(500))
    assert chunking.fallback == ""
    assert labels(chunking.pieces) == [
        ("function", "", "broken", 1, 2),
        ("function", "", "fine", 5, 6),
    ]
