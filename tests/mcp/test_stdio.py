"""The MCP server over stdio with a bundle, through the official SDK client: every tool, structured
output, bounded text with continuation, resources, notifications, bad input and concurrency."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from mcp.shared.exceptions import MCPError

from tests.mcp_client import BIN, McpClient, error_text, server_env, stdio_client_for, structured

RAG = {
    "search_docs",
    "search_code",
    "lookup_identifier",
    "check_api_call",
    "check_code",
    "get_chunk",
    "get_bundle_info",
}
FS = {"list_publications", "list_files", "read_file", "search_text", "get_release_info"}


def mirror_lines(bundle: Path, rel: str) -> list[str]:
    return (bundle / "mirror" / rel).read_text(encoding="utf-8").split("\n")


def test_lists_every_tool_read_only_with_schemas(client: McpClient, tools: dict[str, Any]) -> None:
    assert client.init.server_info.name == "atlas"
    assert "read_file" in client.init.instructions
    assert set(tools) == RAG | FS
    for tool in tools.values():
        assert tool.annotations.read_only_hint is True
        assert tool.output_schema and tool.output_schema["type"] == "object"
        assert len(tool.description) > 40
    assert "read_file" in tools["search_docs"].description  # says how to verify
    assert tools["search_docs"].input_schema["properties"]["mode"]["enum"] == [
        "hybrid",
        "vector",
        "keyword",
    ]


@pytest.mark.parametrize("mode", ["hybrid", "vector", "keyword"])
def test_search_docs_every_mode(
    client: McpClient, tools: dict[str, Any], hash_bundle: Path, mode: str
) -> None:
    result = client.call("search_docs", {"query": "find assets by name", "mode": mode, "top_k": 3})
    data = structured(result)
    jsonschema.validate(data, tools["search_docs"].output_schema)
    assert data["mode"] == mode and 1 <= data["count"] <= 3
    for hit in data["hits"]:
        assert hit["file"] and hit["heading"] and hit["line_start"] <= hit["line_end"]
        assert "url" in hit and isinstance(hit["injection_flags"], list)
        # Line numbers point into the mirror: the passage's first line is there.
        lines = mirror_lines(hash_bundle, hit["file"])
        first = hit["text"].split("\n")[0]
        assert first in lines[hit["line_start"] - 1]
    if mode != "vector":
        assert data["hits"][0]["file"] in {"rest-core/assets-api.md", "openapi/assets.md"}
    text = result.content[0].text
    assert data["hits"][0]["file"] in text and "score" in text


def test_search_text_is_bounded_with_a_continuation(client: McpClient, hash_bundle: Path) -> None:
    data = structured(
        client.call("search_docs", {"query": "find assets", "top_k": 1, "max_chars": 120})
    )
    hit = data["hits"][0]
    assert hit["truncated"] and len(hit["text"]) <= 120
    assert hit["continue_with"].startswith(f"read_file(path='{hit['file']}', start_line=")
    next_line = int(hit["continue_with"].rsplit("=", 1)[1].rstrip(")"))
    shown = hit["text"].rstrip("…").split("\n")
    assert next_line == hit["line_start"] + len(shown) - (1 if hit["text"].endswith("…") else 0)
    # a cut inside a line falls after a whole word (before a space or a line break)
    full = structured(client.call("get_chunk", {"chunk_id": hit["chunk_id"]}))["text"]
    prefix = hit["text"].removesuffix("…")
    assert full.startswith(prefix) and full[len(prefix)].isspace()
    more = structured(client.call("read_file", {"path": hit["file"], "start_line": next_line}))
    assert more["line_start"] == next_line


def test_search_code_returns_only_code(client: McpClient) -> None:
    data = structured(client.call("search_code", {"query": "import command json", "top_k": 5}))
    assert data["count"] >= 1
    assert all(hit["is_code"] for hit in data["hits"])


def test_search_filters_by_publication_and_min_score(client: McpClient) -> None:
    data = structured(
        client.call("search_docs", {"query": "assets", "publication": "import-api", "top_k": 10})
    )
    assert data["count"] >= 1 and {h["publication"] for h in data["hits"]} == {"import-api"}
    high = structured(client.call("search_docs", {"query": "assets", "min_score": 1000}))
    assert high["count"] == 0 and "no results" in high["note"]


def test_lookup_identifier_resolves_an_operation(client: McpClient, hash_bundle: Path) -> None:
    data = structured(client.call("lookup_identifier", {"identifier": "find_assets"}))
    best = data["candidates"][0]
    assert best["operation_id"] == "findAssets" and best["kind"] in {"operation", "endpoint"}
    assert best["method"] == "GET" and best["path"] == "/assets"
    assert {"name", "nameMatchMode"} <= {p["name"] for p in best["params"]}
    assert best["heading"] and best["line_start"] <= best["line_end"]
    assert "findAssets" in "\n".join(
        mirror_lines(hash_bundle, best["file"])[best["line_start"] - 1 : best["line_end"]]
    )
    none = structured(client.call("lookup_identifier", {"identifier": "zzqx_nothing_like_it"}))
    assert none["count"] == 0 or none["candidates"][0]["confidence"] < 1


def test_get_chunk_round_trip(client: McpClient) -> None:
    hit = structured(client.call("search_docs", {"query": "groovy script", "top_k": 1}))["hits"][0]
    chunk = structured(client.call("get_chunk", {"chunk_id": hit["chunk_id"]}))
    assert chunk["file"] == hit["file"] and chunk["line_start"] == hit["line_start"]
    assert chunk["text"].startswith(hit["text"].rstrip("…")[:40])
    assert "no chunk" in error_text(client.call("get_chunk", {"chunk_id": "0" * 20}))


def test_get_bundle_info_and_release_info(client: McpClient, hash_bundle: Path) -> None:
    info = structured(client.call("get_bundle_info"))
    bundle = info["bundles"][0]
    assert bundle["path"] == str(hash_bundle) and bundle["chunks"] > 0 and bundle["dims"] == 384
    assert bundle["built_at"] and bundle["sources"][0]["kind"] == "mirror"
    assert info["generation"] == 1 and info["loaded_at"] and info["last_reload_at"] is None
    assert info["backend"] and info["backend_reason"]
    release = structured(client.call("get_release_info"))
    assert release["bundle"]["name"] == bundle["name"]
    assert release["bundle"]["format_version"] == "1.4"
    assert release["sources"][0]["crawl"]["finished_at"] == "2025-03-10T08:00:42Z"
    assert release["files"] == 10


def test_list_publications_and_files(client: McpClient, hash_bundle: Path) -> None:
    pubs = structured(client.call("list_publications"))
    names = {p["name"] for p in pubs["publications"]}
    assert {"rest-core", "import-api", "workflows", "tutorials"} <= names
    listing = structured(client.call("list_files", {"publication": "rest-core"}))
    assert [f["file"] for f in listing["files"]] == [
        "rest-core/assets-api.md",
        "rest-core/domains-api.md",
    ]
    entry = listing["files"][0]
    assert entry["title"] == "Assets API" and entry["url"].startswith("https://")
    assert entry["line_end"] == len(mirror_lines(hash_bundle, entry["file"])) - 1
    page = structured(client.call("list_files", {"publication": "rest-core", "limit": 1}))
    assert page["truncated"] and "offset=1" in page["continue_with"]
    globbed = structured(
        client.call("list_files", {"publication": "rest-core", "glob": "*domain*"})
    )
    assert [f["file"] for f in globbed["files"]] == ["rest-core/domains-api.md"]


def test_read_file_is_verbatim_and_pages(client: McpClient, hash_bundle: Path) -> None:
    lines = mirror_lines(hash_bundle, "rest-core/assets-api.md")
    first = structured(
        client.call("read_file", {"path": "rest-core/assets-api.md", "max_lines": 5})
    )
    assert first["text"] == "\n".join(lines[:5])
    assert first["truncated"] and first["continue_with"].endswith("start_line=6)")
    rest = structured(
        client.call("read_file", {"path": "rest-core/assets-api.md", "start_line": 6})
    )
    assert first["text"] + "\n" + rest["text"] == "\n".join(lines).rstrip("\n")
    assert not rest["truncated"] and rest["continue_with"] is None
    assert rest["total_lines"] == first["total_lines"] == rest["line_end"]
    # The resource form of the path works too.
    again = structured(client.call("read_file", {"path": "atlas://docs/rest-core/assets-api.md"}))
    assert again["file"] == "rest-core/assets-api.md"


def test_search_text_matches_with_heading_and_progress(client: McpClient) -> None:
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    result = client.run(
        lambda s: s.call_tool(
            "search_text",
            {"pattern": "nameMatchMode", "case_sensitive": True},
            progress_callback=on_progress,
        )
    )
    data = structured(result)
    assert data["engine"] == "ripgrep" and data["count"] >= 2
    for match in data["matches"]:
        assert "nameMatchMode" in match["text"]
        assert match["line_start"] <= match["line"] <= match["line_end"]
    by_file = {m["file"]: m for m in data["matches"]}
    assert by_file["rest-core/assets-api.md"]["heading"] == "Assets API > Find assets"
    assert progress and progress[-1][0] == progress[-1][1] == 1


def test_resources_list_and_read(client: McpClient, hash_bundle: Path) -> None:
    listed = client.run(lambda s: s.list_resources())
    uris = {str(r.uri) for r in listed.resources}
    assert "atlas://docs/rest-core/assets-api.md" in uris and len(uris) == 10
    read = client.run(lambda s: s.read_resource("atlas://docs/rest-core/assets-api.md"))
    expected = (hash_bundle / "mirror" / "rest-core" / "assets-api.md").read_text(encoding="utf-8")
    assert read.contents[0].text == expected
    for bad in (
        "atlas://docs/..%2F..%2Fetc%2Fpasswd",
        "atlas://docs/%2e%2e/%2e%2e/etc/passwd",
        "atlas://docs/nope.md",
    ):
        with pytest.raises(MCPError):
            client.run(lambda s, uri=bad: s.read_resource(uri))


BAD_PATHS = [
    ("../../etc/passwd", "'..'"),
    ("/etc/passwd", "absolute"),
    ("rest-core/%2e%2e/%2e%2e/etc/passwd", "'..'"),
    ("%252e%252e/%252e%252e/etc/passwd", "'..'"),
    ("..\\..\\etc\\passwd", "'..'"),
    ("C:\\Windows\\win.ini", "absolute"),
    ("rest-core/assets-api.md\x00.png", "NUL"),
    ("rest-core", "directory"),
    ("rest-core/missing.md", "not a docs file"),
    ("", "empty"),
]


@pytest.mark.parametrize(("path", "reason"), BAD_PATHS)
def test_read_file_refuses_bad_paths(client: McpClient, path: str, reason: str) -> None:
    assert reason in error_text(client.call("read_file", {"path": path}))


def test_bad_input_is_a_tool_error_and_the_server_keeps_serving(client: McpClient) -> None:
    cases = [
        ("search_text", {"pattern": "(", "regex": True}, "not a valid regex"),
        (
            "search_text",
            {"pattern": "x", "regex": False, "publication": "nope"},
            "unknown publication",
        ),
        ("search_text", {"pattern": ""}, "empty"),
        ("search_docs", {"query": "   "}, "empty query"),
        ("search_docs", {"query": "assets", "publication": "nope"}, "unknown publication"),
        ("list_files", {"publication": "nope"}, "known publications"),
        ("read_file", {"path": "rest-core/assets-api.md", "start_line": 9999}, "past the end"),
    ]
    for name, args, expected in cases:
        assert expected in error_text(client.call(name, args)), (name, args)
    # A pattern that looks like a flag is searched for, never passed to rg as an option.
    dashed = structured(client.call("search_text", {"pattern": "--files"}))
    assert dashed["count"] == 0
    dash = structured(client.call("search_text", {"pattern": "-1", "max_results": 2}))
    assert all("-1" in m["text"] for m in dash["matches"])
    # A huge max_results is clamped, not an error.
    huge = structured(client.call("search_text", {"pattern": "the", "max_results": 10**9}))
    assert "clamped" in huge["note"] and huge["count"] <= 500
    assert structured(client.call("list_publications"))["count"] >= 4


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("read_file", {"path": 3}),
        ("read_file", {"path": "a.md", "start_line": 0}),
        ("read_file", {}),
        ("search_docs", {"query": "x", "top_k": "many"}),
        ("search_docs", {"query": "x", "mode": "fuzzy"}),
        ("search_text", {"pattern": "x", "max_results": -5}),
        ("list_files", {"publication": ["rest-core"]}),
    ],
)
def test_bad_argument_types_are_invalid_params(client: McpClient, name: str, args: dict) -> None:
    with pytest.raises(MCPError) as raised:
        client.call(name, args)
    assert raised.value.code == -32602
    assert name in str(raised.value)


def test_fifty_concurrent_calls_all_answered_correctly(client: McpClient) -> None:
    calls = [
        ("search_docs", {"query": "find assets", "top_k": 3}),
        ("search_docs", {"query": "domain", "mode": "keyword", "top_k": 2}),
        ("search_code", {"query": "groovy", "top_k": 2}),
        ("lookup_identifier", {"identifier": "findAssets"}),
        ("read_file", {"path": "workflows/task-forms.md", "max_lines": 10}),
        ("search_text", {"pattern": "domain", "max_results": 5}),
        ("list_files", {"publication": "import-api"}),
        ("list_publications", {}),
        ("read_file", {"path": "../secret"}),  # errors must come back right too
        ("search_docs", {"query": "error handling import", "mode": "vector", "top_k": 2}),
    ]
    expected = [client.call(name, args) for name, args in calls]

    async def burst(session: Any) -> list[Any]:
        return await asyncio.gather(
            *(session.call_tool(calls[i % 10][0], calls[i % 10][1]) for i in range(50))
        )

    answers = client.run(burst, timeout=120)
    assert len(answers) == 50
    for i, answer in enumerate(answers):
        want = expected[i % 10]
        assert answer.is_error == want.is_error
        assert answer.structured_content == want.structured_content
        assert answer.content[0].text == want.content[0].text


def test_stdout_carries_only_protocol(hash_bundle: Path) -> None:
    """Raw JSON-RPC over a pipe with debug logging on: every stdout line is a protocol message."""
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "search_docs", "arguments": {"query": "assets", "mode": "vector"}},
        },
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "read_file", "arguments": {"path": "../../etc/passwd"}},
        },
    ]
    proc = subprocess.Popen(
        [str(BIN / "atlas-mcp"), "--bundle", str(hash_bundle), "--log-level", "DEBUG"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=server_env(),
    )
    assert proc.stdin is not None and proc.stdout is not None
    replies: dict[int, dict] = {}
    try:
        for message in messages:
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
            while "id" in message and message["id"] not in replies:
                line = proc.stdout.readline()
                assert line, "server closed stdout"
                parsed = json.loads(line)  # anything that is not JSON fails here
                assert parsed["jsonrpc"] == "2.0"
                if "id" in parsed:
                    replies[parsed["id"]] = parsed
    finally:
        proc.stdin.close()
        proc.wait(30)
    stderr = proc.stderr.read() if proc.stderr else ""
    assert replies[2]["result"]["isError"] is False
    assert replies[3]["result"]["isError"] is True
    assert "DEBUG" in stderr  # the logs went to stderr


def test_missing_bundle_is_a_tool_error_and_file_tools_still_work(
    tmp_path: Path, fixture_corpus: Path
) -> None:
    missing = tmp_path / "no-such-bundle"
    with stdio_client_for(
        ["atlas-mcp", "--bundle", str(missing), "--mirror", str(fixture_corpus / "mirror")]
    ) as c:
        for name, args in [
            ("search_docs", {"query": "assets"}),
            ("get_bundle_info", {}),
            ("lookup_identifier", {"identifier": "findAssets"}),
        ]:
            message = error_text(c.call(name, args))
            assert "no docs bundle is loaded" in message and str(missing) in message
        assert structured(c.call("list_publications"))["count"] == 4
        release = structured(c.call("get_release_info"))
        assert release["bundle"] is None and release["crawl"]["source_url"].endswith("llms.txt")


def test_the_first_load_is_warmed_up_in_every_mode(hash_bundle: Path) -> None:
    # The loader warms the engine before the first tool answers: the embedding model is already
    # loaded (it loads only for a vector or hybrid search otherwise).
    with stdio_client_for(["atlas-mcp", "--bundle", str(hash_bundle)]) as c:
        info = structured(c.call("get_bundle_info"))
        assert info["backend"] == "hash", info["backend"]
        assert info["generation"] == 1 and info["loaded_at"] and info["load_ms"] > 0
