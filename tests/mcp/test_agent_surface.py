"""The agent surface through the SDK client: a compact tools/list that still describes and
validates every result, each tool's text held to its budget by input that would exceed it, the
resource templates and the prompt; and the benchmark that reports their cost on the demo bundle."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from mcp.client import Client
from mcp.shared.exceptions import MCPError

from atlas_ls.mcp.budgets import TEXT_BUDGETS
from atlas_ls.mcp.options import ServerOptions
from atlas_ls.mcp.server import FS_TOOLS, RAG_TOOLS, build_server
from tests.mcp_client import McpClient, stdio_client_for, structured

ROOT = Path(__file__).resolve().parents[2]
TOOLS_LIST_LIMIT = 8_000
SEARCH_MEDIAN_LIMIT = 2_500
CUT = re.compile(r"\[answer cut at ([\d,]+) of ([\d,]+) characters; ")


def text_of(result: Any) -> str:
    structured(result)  # not an error
    return result.content[0].text


def test_tools_list_is_compact_and_describes_every_tool(client: McpClient) -> None:
    listed = client.run(lambda s: s.list_tools())
    wire = listed.model_dump_json(by_alias=True, exclude_none=True)
    assert len(wire) <= TOOLS_LIST_LIMIT, len(wire)
    assert len(listed.tools) == len(TEXT_BUDGETS) == 12
    by_name = {t.name: t for t in listed.tools}
    for tool in listed.tools:
        assert len(tool.description) > 40 and tool.title
        assert tool.output_schema["type"] == "object" and tool.output_schema["required"]
        assert "$defs" not in json.dumps(tool.output_schema)
        assert '"title"' not in json.dumps(tool.input_schema)
    # The descriptions say which tool to use when.
    docs = by_name["search_docs"].description
    assert all(name in docs for name in ("read_file", "lookup_identifier", "search_text"))
    assert "search_docs" in by_name["lookup_identifier"].description
    assert by_name["search_docs"].output_schema["required"] == [
        "query",
        "mode",
        "count",
        "hits",
        "note",
    ]


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search_docs", {"query": "find assets", "top_k": 2}),
    ("search_code", {"query": "groovy script", "top_k": 2}),
    ("lookup_identifier", {"identifier": "nameMatchMode"}),
    ("check_api_call", {"method": "GET", "path": "/assets", "params": {"nameMatchMode": "X"}}),
    ("check_code", {"code": "requests.get(BASE + '/asset')", "language": "python"}),
    ("get_bundle_info", {}),
    ("list_publications", {}),
    ("list_files", {"publication": "rest-core"}),
    ("read_file", {"path": "rest-core/assets-api.md", "max_lines": 5}),
    ("search_text", {"pattern": "nameMatchMode"}),
    ("get_release_info", {}),
]


def output_models() -> dict[str, Any]:
    """Each tool's full output model, from its function's return annotation."""
    return {
        fn.__name__: typing.get_type_hints(fn, include_extras=True)["return"].__metadata__[0]
        for fn, _ in RAG_TOOLS + FS_TOOLS
    }


def test_full_results_fit_the_compact_schemas_and_the_full_models(
    client: McpClient, tools: dict[str, Any]
) -> None:
    # The server validates results against neither (they are dumps of the full models): this is
    # where a result that does not fit would show.
    models = output_models()
    assert set(models) == set(tools)
    chunk = structured(client.call("search_docs", {"query": "assets", "top_k": 1}))["hits"][0]
    for name, args in [*CALLS, ("get_chunk", {"chunk_id": chunk["chunk_id"]})]:
        data = structured(client.call(name, args))
        jsonschema.validate(data, tools[name].output_schema)
        assert list(data) == tools[name].output_schema["required"], name
        models[name].model_validate(data, strict=True)


# Each asks for more text than its tool's budget: 50 passages of up to 20,000 characters, every
# candidate of a common word, a request with 60 unknown parameters (a finding each).
OVER_BUDGET: list[tuple[str, dict[str, Any]]] = [
    ("search_docs", {"query": "assets", "mode": "keyword", "top_k": 50, "max_chars": 20_000}),
    ("search_code", {"query": "assets", "mode": "keyword", "top_k": 50, "max_chars": 20_000}),
    (
        "check_api_call",
        {
            "method": "GET",
            "path": "/assets",
            "params": {f"someUnknownParameterWithALongName{i:03d}": "x" for i in range(60)},
        },
    ),
]


@pytest.fixture(scope="module")
def demo_bundle() -> Path:
    """The demo docs built with the hash model (cached for the session like `atlas demo`'s)."""
    from atlas_core.demo import ensure_demo_bundle

    return ensure_demo_bundle(progress=False, model="hash")


@pytest.fixture(scope="module")
def demo_client(demo_bundle: Path) -> Iterator[McpClient]:
    with stdio_client_for(["atlas-mcp", "--bundle", str(demo_bundle)]) as c:
        yield c


@pytest.mark.parametrize(("name", "args"), OVER_BUDGET, ids=[c[0] for c in OVER_BUDGET])
def test_engine_tools_stay_within_their_budget(
    client: McpClient, name: str, args: dict[str, Any]
) -> None:
    assert_within_budget(name, client.call(name, args))


def test_lookup_stays_within_its_budget(demo_client: McpClient) -> None:
    # The demo's specs define `id` in many operations and schemas: 20 candidates, 30 definitions.
    assert_within_budget(
        "lookup_identifier",
        demo_client.call("lookup_identifier", {"identifier": "id", "limit": 20}),
    )


def assert_within_budget(name: str, result: Any) -> None:
    text = text_of(result)
    budget = TEXT_BUDGETS[name]
    assert len(text) <= budget
    if name.startswith("search_"):
        # 50 x 20,000 characters asked: the passages are shortened so all 50 fit.
        assert re.search(r"max_chars lowered to \d+ so \d+ results fit the answer", text)
        if "[answer cut at" not in text:
            return
    cut = CUT.search(text)
    assert cut is not None, text[-300:]
    assert int(cut.group(1).replace(",", "")) == budget
    assert int(cut.group(2).replace(",", "")) > budget  # the whole answer would not have fit


@pytest.fixture(scope="module")
def big_mirror(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A crawled mirror too big for any file tool's budget: 120 publications with long names,
    one of 300 files, one page of 3,000 lines that all mention nameMatchMode."""
    root = tmp_path_factory.mktemp("big-mirror")
    markdown = root / "markdown"
    sections = [
        f"publication-{i:03d}-with-a-name-long-enough-to-cost-something-" + "x" * 60
        for i in range(120)
    ]
    for section in sections:
        (markdown / section).mkdir(parents=True)
        (markdown / section / "overview.md").write_text(f"# {section}\n\nAbout it.\n")
    many = markdown / sections[0]
    for i in range(300):
        (many / f"a-page-about-assets-domains-and-communities-{i:03d}.md").write_text(
            f"# Assets, domains and communities, part {i}\n\nText.\n"
        )
    lines = [
        f"Line {n}: nameMatchMode takes START, END, ANYWHERE or EXACT here." for n in range(3000)
    ]
    (markdown / sections[1] / "huge.md").write_text("# Huge\n\n" + "\n".join(lines) + "\n")
    meta = {
        "format": 1,
        "source_url": "https://big.example.invalid/llms.txt",
        "finished_at": "2025-03-10T08:00:42Z",
        "sections": {s: {"found": 1} for s in sections},
    }
    (root / "crawl_meta.json").write_text(json.dumps(meta))
    return root


@pytest.fixture(scope="module")
def fs_client(big_mirror: Path) -> Iterator[McpClient]:
    with stdio_client_for(["collibra-fs", "--mirror", str(big_mirror)]) as c:
        yield c


def test_file_tools_stay_within_their_budget(fs_client: McpClient, big_mirror: Path) -> None:
    first, second = sorted(p.name for p in (big_mirror / "markdown").iterdir())[:2]
    calls: list[tuple[str, dict[str, Any]]] = [
        ("list_publications", {}),
        ("list_files", {"publication": first, "limit": 1000}),
        ("search_text", {"pattern": "nameMatchMode", "max_results": 500}),
        ("get_release_info", {}),
    ]
    for name, args in calls:
        text = text_of(fs_client.call(name, args))
        assert len(text) <= TEXT_BUDGETS[name], name
        cut = CUT.search(text)
        assert cut is not None and int(cut.group(2).replace(",", "")) > TEXT_BUDGETS[name], name
    # read_file holds itself to its budget, and says where to read on.
    huge = f"{second}/huge.md"
    assert (big_mirror / "markdown" / huge).stat().st_size > TEXT_BUDGETS["read_file"]
    result = fs_client.call("read_file", {"path": huge, "max_lines": 2000})
    text, data = text_of(result), structured(result)
    assert len(text) <= TEXT_BUDGETS["read_file"] and data["truncated"]
    assert f"start_line={data['line_end'] + 1})" in text


def test_the_mcp_page_documents_each_budget() -> None:
    readme = (ROOT / "docs" / "mcp.md").read_text(encoding="utf-8")
    section = readme.split("**Answer budgets.**", 1)[1].split("\n\n", 1)[0]
    documented = {
        name: int(value.replace(",", ""))
        for name, value in re.findall(r"`(\w+)` ([\d,]+)", section)
    }
    assert documented == TEXT_BUDGETS


def test_resource_templates_are_listed_and_read(client: McpClient, hash_bundle: Path) -> None:
    templates = client.run(lambda s: s.list_resource_templates()).resource_templates
    assert {t.uri_template for t in templates} == {
        "atlas://docs/{+path}",
        "atlas://identifier/{name}",
    }
    read = client.run(lambda s: s.read_resource("atlas://identifier/findAssets"))
    text = read.contents[0].text
    head, _, section = text.partition("\n\n")
    assert head.startswith("# findAssets (") and "GET /assets" in head and "nameMatchMode" in head
    where = re.search(r"^(\S+\.md):(\d+)-(\d+)$", head, re.M)
    assert where is not None, head
    page = (hash_bundle / "mirror" / where.group(1)).read_text(encoding="utf-8").split("\n")
    start, end = int(where.group(2)), int(where.group(3))
    assert section.rstrip("\n") == "\n".join(page[start - 1 : end]).rstrip("\n")
    # An endpoint, URL-encoded: slashes are part of the name, not a path.
    endpoint = client.run(lambda s: s.read_resource("atlas://identifier/GET%20%2Fassets"))
    assert "GET /assets" in endpoint.contents[0].text.split("\n", 1)[0]
    for bad, reason in [
        ("atlas://identifier/zzqxNothingLikeIt", "no documented identifier"),
        ("atlas://docs/..%2F..%2Fetc%2Fpasswd", ""),
        ("atlas://docs/%2Fetc%2Fpasswd", ""),
    ]:
        with pytest.raises(MCPError) as raised:
            client.run(lambda s, uri=bad: s.read_resource(uri))
        assert reason in str(raised.value)


def test_the_answer_prompt(client: McpClient) -> None:
    (prompt,) = client.run(lambda s: s.list_prompts()).prompts
    assert prompt.name == "answer_from_docs" and "citations" in (prompt.title or "")
    (argument,) = prompt.arguments or []
    assert argument.name == "question" and argument.required and argument.description
    question = "How do I find assets by name?"
    got = client.run(lambda s: s.get_prompt("answer_from_docs", {"question": question}))
    text = got.messages[0].content.text
    assert got.messages[0].role == "user" and question in text
    assert "search_docs" in text and "read_file" in text and "cite" in text
    with pytest.raises(MCPError):
        client.run(lambda s: s.get_prompt("answer_from_docs", {}))


def test_the_benchmark_reports_the_costs_on_the_demo_bundle(demo_bundle: Path) -> None:
    bundle = demo_bundle
    argv = ["--bundle", str(bundle), "--queries", "20", "--json"]
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "agent_surface.py"), *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    figures = json.loads(proc.stdout)
    assert figures["tools"] == 12 and len(figures["queries"]) == 20
    assert 0 < figures["tools_list_tokens"] < figures["tools_list_chars"] <= TOOLS_LIST_LIMIT
    assert 0 < figures["search_docs_median_tokens"] < figures["search_docs_median_chars"]
    assert figures["search_docs_median_chars"] <= SEARCH_MEDIAN_LIMIT
    # The queries are drawn from the bundle alone: the same bundle, the same queries.
    from benchmarks.agent_surface import draw_queries

    assert draw_queries(bundle / "mirror", 20) == figures["queries"]


@pytest.mark.parametrize("budget", [10, 60, 100, 1_000])
def test_a_cut_answer_is_never_over_its_budget(budget: int) -> None:
    from atlas_ls.mcp.budgets import cut

    text = "\n".join(f"line {n} of a long answer" for n in range(200))
    shown = cut(text, budget, "ask for less")
    assert len(shown) <= budget
    if budget >= 100:  # room for the note and some lines: whole lines, then the note
        kept, _, note = shown.partition("\n[answer cut at")
        assert text.startswith(kept + "\n") and note.endswith("ask for less]")
    assert cut("short", budget, "ask for less") == "short"


async def test_a_call_is_validated_once_and_bad_arguments_are_invalid_params(
    hash_bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = build_server(ServerOptions(bundles=(str(hash_bundle),)))
    arg_model = server._tool_manager.get_tool("search_docs").fn_metadata.arg_model
    validations: list[Any] = []
    original = arg_model.model_validate

    def counted(data: Any, **kwargs: Any) -> Any:
        validations.append(data)
        return original(data, **kwargs)

    monkeypatch.setattr(arg_model, "model_validate", counted)
    async with Client(server, mode="legacy") as client:
        for query in ("find assets", "domains"):
            result = await client.call_tool("search_docs", {"query": query, "top_k": 2})
            assert not result.is_error and structured(result)["count"] == 2
        assert [v["query"] for v in validations] == ["find assets", "domains"]
        with pytest.raises(MCPError) as refused:
            await client.call_tool("search_docs", {"query": "x", "top_k": 0})
        assert refused.value.error.code == -32602 and "top_k" in refused.value.error.message
