"""Several bundles in one MCP server, through the SDK client over stdio: the Collibra-like fixture
bundle beside a team's own (tests/team_bundle.py), whose manifest name collides with the first's so
the engine calls it ``fixture-2``, and one of whose pages has a path the first bundle also has.
Every tool must find each bundle's pages in that bundle's own mirror."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.mcp_client import McpClient, error_text, stdio_client_for, structured
from tests.team_bundle import (
    PAGES,
    SHARED_PATH,
    TEAM_ENDPOINT,
    TEAM_NAME,
    TEAM_ONLY_PATH,
    TEAM_WORD,
)

FIXTURE_FILES = 10  # docs files of the fixture bundle


@pytest.fixture(scope="module")
def client(hash_bundle: Path, team_bundle: Path) -> Iterator[McpClient]:
    with stdio_client_for(
        ["atlas-mcp", "--bundle", str(hash_bundle), "--bundle", str(team_bundle)]
    ) as c:
        yield c


def page(bundle: Path, rel: str) -> str:
    return (bundle / "mirror" / rel).read_text(encoding="utf-8")


def lines_of(bundle: Path, rel: str, start: int, end: int) -> str:
    return "\n".join(page(bundle, rel).split("\n")[start - 1 : end])


def test_bundles_are_reported_under_the_names_their_results_carry(
    client: McpClient, hash_bundle: Path, team_bundle: Path
) -> None:
    info = structured(client.call("get_bundle_info"))
    assert [(b["name"], b["path"], b["mirror"]) for b in info["bundles"]] == [
        ("fixture", str(hash_bundle), str(hash_bundle / "mirror")),
        (TEAM_NAME, str(team_bundle), str(team_bundle / "mirror")),
    ]
    assert [b["files"] for b in info["bundles"]] == [FIXTURE_FILES, len(PAGES)]
    release = structured(client.call("get_release_info"))
    assert [(b["name"], b["mirror"]) for b in release["bundles"]] == [
        ("fixture", str(hash_bundle / "mirror")),
        (TEAM_NAME, str(team_bundle / "mirror")),
    ]
    assert release["bundle"]["name"] == "fixture"
    assert release["changes"] is None  # bundles opened from their folders replaced none
    assert release["files"] == FIXTURE_FILES + len(PAGES)
    assert release["mirrors"] == {
        "fixture": str(hash_bundle / "mirror"),
        TEAM_NAME: str(team_bundle / "mirror"),
    }
    assert {s["kind"] for s in release["sources"]} == {"mirror", "openapi", "local"}

    # Real bundles: no demo flag, no demo sentence.
    assert info["demo"] is False and release["demo"] is False
    for tool in ("get_bundle_info", "get_release_info"):
        assert "embedded demo" not in client.call(tool).content[0].text


def test_read_file_reads_the_page_of_the_bundle_named(
    client: McpClient, hash_bundle: Path, team_bundle: Path
) -> None:
    only = structured(client.call("read_file", {"path": TEAM_ONLY_PATH}))
    assert only["bundle"] == TEAM_NAME
    assert only["text"] == page(team_bundle, TEAM_ONLY_PATH).rstrip("\n")
    for args in (
        {"path": SHARED_PATH, "bundle": TEAM_NAME},
        {"path": f"{TEAM_NAME}/{SHARED_PATH}"},
        {"path": f"atlas://docs/{TEAM_NAME}/{SHARED_PATH}"},
    ):
        data = structured(client.call("read_file", args))
        assert (data["bundle"], data["file"]) == (TEAM_NAME, SHARED_PATH), args
        assert data["text"] == page(team_bundle, SHARED_PATH).rstrip("\n"), args
    first = structured(client.call("read_file", {"path": SHARED_PATH, "bundle": "fixture"}))
    assert first["text"] == page(hash_bundle, SHARED_PATH).rstrip("\n")
    paged = structured(
        client.call("read_file", {"path": SHARED_PATH, "bundle": TEAM_NAME, "max_lines": 2})
    )
    assert paged["continue_with"] == (
        f"read_file(path={SHARED_PATH!r}, bundle={TEAM_NAME!r}, start_line=3)"
    )
    both = error_text(client.call("read_file", {"path": SHARED_PATH}))
    assert "several bundles" in both and TEAM_NAME in both
    unknown = error_text(client.call("read_file", {"path": SHARED_PATH, "bundle": "nope"}))
    assert "no open bundle is named 'nope'" in unknown and TEAM_NAME in unknown


def test_lookup_places_each_match_in_its_own_bundles_page(
    client: McpClient, hash_bundle: Path, team_bundle: Path
) -> None:
    data = structured(client.call("lookup_identifier", {"identifier": f"POST {TEAM_ENDPOINT}"}))
    best = data["candidates"][0]
    assert (best["bundle"], best["file"], best["match"]) == (TEAM_NAME, SHARED_PATH, "exact")
    assert best["heading"] == "Team assets API > Archive team assets"
    assert TEAM_ENDPOINT in lines_of(team_bundle, SHARED_PATH, best["line_start"], best["line_end"])
    # The fixture bundle's page under the same path is still placed in the fixture bundle.
    ours = structured(client.call("lookup_identifier", {"identifier": "findAssets"}))
    found = next(c for c in ours["candidates"] if c["file"] == SHARED_PATH)
    assert found["bundle"] == "fixture" and found["heading"].startswith("Assets API")
    assert "findAssets" in lines_of(
        hash_bundle, SHARED_PATH, found["line_start"], found["line_end"]
    )


def test_search_results_lead_to_their_bundles_page(client: McpClient, team_bundle: Path) -> None:
    data = structured(client.call("search_docs", {"query": TEAM_WORD, "mode": "keyword"}))
    assert data["hits"] and {h["bundle"] for h in data["hits"]} == {TEAM_NAME}
    for hit in data["hits"]:
        shown = structured(
            client.call(
                "read_file",
                {"path": hit["file"], "bundle": hit["bundle"], "start_line": hit["line_start"]},
            )
        )
        assert TEAM_WORD in shown["text"]
        assert shown["text"].startswith(hit["text"].split("\n")[0])
    cut = structured(
        client.call(
            "search_docs", {"query": TEAM_WORD, "mode": "keyword", "top_k": 1, "max_chars": 40}
        )
    )["hits"][0]
    assert cut["continue_with"].startswith(f"read_file(path={cut['file']!r}, bundle={TEAM_NAME!r}")


def test_file_tools_cover_every_bundle(client: McpClient, team_bundle: Path) -> None:
    pubs = {
        (p["name"], p["bundle"])
        for p in structured(client.call("list_publications"))["publications"]
    }
    assert {("team-guides", TEAM_NAME), ("rest-core", TEAM_NAME), ("rest-core", "fixture")} <= pubs
    listing = structured(client.call("list_files", {"publication": "rest-core"}))
    assert {(f["bundle"], f["file"]) for f in listing["files"]} == {
        ("fixture", "rest-core/assets-api.md"),
        ("fixture", "rest-core/domains-api.md"),
        (TEAM_NAME, SHARED_PATH),
    }
    team_only = structured(
        client.call("list_files", {"publication": "rest-core", "bundle": TEAM_NAME})
    )
    assert [(f["file"], f["uri"]) for f in team_only["files"]] == [
        (SHARED_PATH, f"atlas://docs/{TEAM_NAME}/{SHARED_PATH}")
    ]
    grep = structured(client.call("search_text", {"pattern": TEAM_WORD}))
    by_file = {(m["bundle"], m["file"]): m for m in grep["matches"]}
    assert set(by_file) == {(TEAM_NAME, SHARED_PATH), (TEAM_NAME, TEAM_ONLY_PATH)}
    assert by_file[(TEAM_NAME, TEAM_ONLY_PATH)]["heading"] == "Onboarding > Accounts"
    uris = {str(r.uri) for r in client.run(lambda s: s.list_resources()).resources}
    assert len(uris) == FIXTURE_FILES + len(PAGES)
    assert {
        f"atlas://docs/{TEAM_NAME}/{SHARED_PATH}",
        f"atlas://docs/fixture/{SHARED_PATH}",
    } <= uris
    read = client.run(lambda s: s.read_resource(f"atlas://docs/{TEAM_NAME}/{SHARED_PATH}"))
    assert read.contents[0].text == page(team_bundle, SHARED_PATH)
