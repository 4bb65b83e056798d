"""Hostile input against the real MCP server (issue 10): files that are not docs, FIFOs and huge
files in a mirror, malformed JSON-RPC on stdio and HTTP, HTTP abuse, and a damaged bundle.

Every server here is a subprocess: driven by the SDK client, by raw lines on its stdin, or by raw
HTTP requests and sockets. Hangs are bounded by client and pytest timeouts, never by timing.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError

from atlas_ls.mcp import textsearch
from tests.mcp_client import McpClient, error_text, stdio_client_for, structured

CALL_TIMEOUT_S = 30  # one answer; a hang fails the test instead of blocking it
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
ENGINES = [
    pytest.param({}, id="ripgrep"),
    pytest.param({textsearch.ENV_RIPGREP: "none"}, id="python"),
]


def call(client: McpClient, name: str, arguments: dict[str, Any] | None = None) -> Any:
    return client.run(lambda s: s.call_tool(name, arguments or {}), timeout=CALL_TIMEOUT_S)


def read_resource(client: McpClient, uri: str) -> Any:
    return client.run(lambda s: s.read_resource(uri), timeout=CALL_TIMEOUT_S)


def list_resources(client: McpClient) -> list[str]:
    listed = client.run(lambda s: s.list_resources(), timeout=CALL_TIMEOUT_S)
    return sorted(str(r.uri).removeprefix("atlas://docs/") for r in listed.resources)


def fs_server(mirror: Path, env: dict[str, str], *extra: str) -> McpClient:
    return stdio_client_for(["collibra-fs", "--mirror", str(mirror), *extra], env)


# --- item 4: only the files list_files lists can be read ----------------------------------------

DOCS = ["pub/a.md", "pub/b.md"]
# Files that exist in the mirror but are not docs pages: each holds a secret that must never leak.
NOT_DOCS = {
    ".env": "SECRET_ENV=env-secret-1",
    "pub/.secret.md": "# Hidden\nhidden-secret-2",
    ".git/config": "[remote]\nurl = git-secret-3",
    "pub/notes.txt": "txt-secret-4",
    ".hidden/page.md": "# Page\nhidden-dir-secret-5",
    "pub/.drafts/draft.md": "# Draft\nhidden-subdir-secret-6",
    "pub/node_modules/pkg/readme.md": "# Readme\nskipped-dir-secret-7",
    "pub/__pycache__/x.md": "pycache-secret-8",
}


def write_mirror(root: Path) -> Path:
    for rel in DOCS:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"# {rel}\n\nThe needle is in {rel}.\n", encoding="utf-8")
    for rel, text in NOT_DOCS.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"{text}\nneedle\n", encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def hostile_mirror(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_mirror(tmp_path_factory.mktemp("hostile") / "mirror")


@pytest.fixture(scope="module", params=ENGINES)
def fs_client(request: pytest.FixtureRequest, hostile_mirror: Path) -> Iterator[McpClient]:
    with fs_server(hostile_mirror, request.param) as client:
        yield client


def assert_no_secret(answer: Any) -> None:
    text = json.dumps(answer if isinstance(answer, dict | list) else str(answer))
    for secret in NOT_DOCS.values():
        assert secret.split("\n")[-1] not in text


def test_list_files_and_resources_show_only_docs(fs_client: McpClient) -> None:
    listing = structured(call(fs_client, "list_files", {"publication": "pub"}))
    assert [f["file"] for f in listing["files"]] == DOCS
    assert list_resources(fs_client) == DOCS
    found = structured(call(fs_client, "search_text", {"pattern": "needle", "max_results": 100}))
    assert sorted({m["file"] for m in found["matches"]}) == DOCS
    assert_no_secret(found)


@pytest.mark.parametrize("path", [*NOT_DOCS, "pub/missing.md", "./.env", "pub/%2esecret.md"])
def test_read_file_refuses_what_list_files_does_not_list(fs_client: McpClient, path: str) -> None:
    message = error_text(call(fs_client, "read_file", {"path": path}))
    assert "not a docs file" in message and "list_files" in message
    assert_no_secret(message)
    with pytest.raises(MCPError) as refused:
        read_resource(fs_client, "atlas://docs/" + path)
    assert "not a docs file" in refused.value.error.message
    assert_no_secret(refused.value.error.message)


def test_docs_files_stay_readable(fs_client: McpClient, hostile_mirror: Path) -> None:
    for rel in DOCS:
        read = structured(call(fs_client, "read_file", {"path": rel}))
        assert read["text"] == (hostile_mirror / rel).read_text(encoding="utf-8").rstrip("\n")
        resource = read_resource(fs_client, "atlas://docs/" + rel)
        assert resource.contents[0].text == (hostile_mirror / rel).read_text(encoding="utf-8")


# --- item 5: FIFOs and huge files never hang a tool ----------------------------------------------


@needs_fifo
@pytest.mark.timeout(240)
@pytest.mark.parametrize("engine", ENGINES)
def test_fifos_in_the_mirror_never_hang(tmp_path: Path, engine: dict[str, str]) -> None:
    root = write_mirror(tmp_path / "mirror")
    os.mkfifo(root / "pub" / "fifo.md")  # there from the start: never listed
    late = root / "pub" / "late.md"
    late.write_text("# Late\n\nneedle late\n", encoding="utf-8")
    with fs_server(root, engine, "--search-timeout", "5") as client:
        # Listed as a regular file at start-up, then swapped for a FIFO under the running server.
        late.unlink()
        os.mkfifo(late)
        listing = structured(call(client, "list_files", {"publication": "pub"}))
        assert [f["file"] for f in listing["files"]] == [*DOCS, "pub/late.md"]
        assert list_resources(client) == [*DOCS, "pub/late.md"]
        assert "not a docs file" in error_text(call(client, "read_file", {"path": "pub/fifo.md"}))
        assert "not a regular file" in error_text(
            call(client, "read_file", {"path": "pub/late.md"})
        )
        with pytest.raises(MCPError, match="not a regular file"):
            read_resource(client, "atlas://docs/pub/late.md")
        for arguments in (
            {"pattern": "needle"},
            {"pattern": "needle", "publication": "pub"},
            {"pattern": "need.e", "regex": True},
        ):
            found = structured(call(client, "search_text", arguments))
            assert sorted({m["file"] for m in found["matches"]}) == DOCS, arguments
        assert structured(call(client, "read_file", {"path": "pub/a.md"}))["line_end"] == 3


@pytest.mark.timeout(240)
def test_python_search_stops_at_the_time_limit_inside_a_huge_file(tmp_path: Path) -> None:
    root = write_mirror(tmp_path / "mirror")
    # Sparse: 64 GiB that takes no disk, far more than any search can read before its deadline.
    with (root / "pub" / "huge.md").open("wb") as huge:
        huge.truncate(64 * 2**30)
    env = {textsearch.ENV_RIPGREP: "none"}
    with fs_server(root, env, "--search-timeout", "1") as client:
        for regex in (False, True):
            arguments = {"pattern": "never-there", "regex": regex, "publication": "pub"}
            message = error_text(call(client, "search_text", arguments))
            assert "time limit (1 s)" in message, regex
        # The search was stopped, not left running: the server answers at once.
        assert structured(call(client, "read_file", {"path": "pub/a.md"}))["line_end"] == 3


# --- item 8: a damaged bundle, and any failure, is reported with its reason ---------------------

GENERIC = "Error executing tool search_docs"


def resealed_copy(bundle: Path, target: Path, rel: str) -> Path:
    """A copy of ``bundle`` with an invalid UTF-8 byte in ``rel`` and a manifest re-hashed to
    match, so the damage passes the hash check and shows only when the file is used."""
    from atlas_core.bundle.manifest import sha256_file

    shutil.copytree(bundle, target)
    path = target / rel
    data = bytearray(path.read_bytes())
    data[len(data) // 2] = 0xFF
    path.write_bytes(bytes(data))
    manifest = json.loads((target / "manifest.json").read_text(encoding="utf-8"))
    manifest["files"][rel].update(sha256=sha256_file(path), size=path.stat().st_size)
    (target / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return target


def test_a_damaged_bundle_is_reported_with_its_reason(hash_bundle: Path, tmp_path: Path) -> None:
    damaged = resealed_copy(hash_bundle, tmp_path / "damaged", "keyword/vocab.txt")
    with stdio_client_for(["atlas-mcp", "--bundle", str(damaged)]) as client:
        result = call(client, "search_docs", {"query": "find assets", "mode": "keyword"})
        message = error_text(result)
        # The reason, not the SDK's bare "Error executing tool search_docs".
        assert message.strip() != GENERIC and len(message) > len(GENERIC) + 20, message
        assert "Traceback" not in message
        # The server keeps serving what does not need the damaged file.
        assert structured(call(client, "list_publications"))["count"] >= 1


@pytest.fixture
def in_process(hash_bundle: Path) -> Any:
    """The real server object, connected in-process through the SDK client: the only way to make
    the engine itself raise on demand (monkeypatched below) while the host handles it."""
    from mcp.client import Client

    from atlas_ls.mcp.options import ServerOptions
    from atlas_ls.mcp.server import build_server

    server = build_server(ServerOptions(bundles=(str(hash_bundle),)))
    return lambda: Client(server, mode="legacy")


async def test_bundle_errors_reach_the_client_as_message_and_hint(
    in_process: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from atlas_core.engine import Engine
    from atlas_core.errors import BundleError

    def damaged(*args: object, **kwargs: object) -> None:
        raise BundleError(
            "keyword/vocab.txt: line 7 is not UTF-8", hint="run `atlas verify` on the bundle"
        )

    for method in ("search", "lookup"):
        monkeypatch.setattr(Engine, method, damaged)
    async with in_process() as client:
        for name, arguments in (
            ("search_docs", {"query": "assets"}),
            ("search_code", {"query": "assets"}),
            ("lookup_identifier", {"identifier": "findAssets"}),
        ):
            result = await client.call_tool(name, arguments)
            assert result.is_error, name
            text = result.content[0].text
            assert "keyword/vocab.txt: line 7 is not UTF-8" in text, text
            assert "atlas verify" in text, text


async def test_unexpected_errors_are_logged_and_named(
    in_process: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from atlas_core.engine import Engine

    def broken(*args: object, **kwargs: object) -> None:
        raise IndexError("index 99 is out of bounds for axis 0 with size 10")

    monkeypatch.setattr(Engine, "search", broken)
    async with in_process() as client:
        result = await client.call_tool("search_docs", {"query": "assets"})
        assert result.is_error
        text = result.content[0].text
        assert "search_docs failed" in text and "IndexError" in text, text
        assert "Traceback" not in text and 'File "' not in text
        # The server keeps serving.
        assert not (await client.call_tool("get_bundle_info", {})).is_error
    failures = [r for r in caplog.records if r.levelname == "ERROR" and r.exc_info]
    assert failures and "search_docs" in failures[0].getMessage()
    assert failures[0].exc_info[0] is IndexError
