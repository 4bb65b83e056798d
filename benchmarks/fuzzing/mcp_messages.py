"""Hostile MCP messages for the `mcp_wire` class: real requests edited at the JSON level (version,
id, method, params, tool arguments, nesting, size) and then maybe at the byte level.
"""

from __future__ import annotations

import json
import random
from typing import Any

from benchmarks.fuzzing import junk
from benchmarks.fuzzing.core import clip

INITIALIZE = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "atlas-fuzz", "version": "0"},
}


def _tool(name: str, arguments: Any) -> dict[str, Any]:
    return {"method": "tools/call", "params": {"name": name, "arguments": arguments}}


TEMPLATES: list[dict[str, Any]] = [
    {"method": "ping"},
    {"method": "tools/list"},
    {"method": "resources/list"},
    {"method": "resources/templates/list"},
    {"method": "prompts/list"},
    {"method": "resources/read", "params": {"uri": "atlas://docs/rest-core/assets-api.md"}},
    {"method": "initialize", "params": INITIALIZE},
    {"method": "logging/setLevel", "params": {"level": "debug"}},
    {
        "method": "completion/complete",
        "params": {
            "ref": {"type": "ref/prompt", "name": "x"},
            "argument": {"name": "a", "value": "b"},
        },
    },
    {"method": "notifications/cancelled", "params": {"requestId": 1}},
    {"method": "notifications/initialized"},
    {"method": "no/such/method", "params": {}},
    _tool("search_docs", {"query": "find assets", "mode": "keyword", "top_k": 3}),
    _tool("search_code", {"query": "findAssets"}),
    _tool("lookup_identifier", {"identifier": "findAssets"}),
    _tool("get_chunk", {"chunk_id": "0000000000000000"}),
    _tool("list_publications", {}),
    _tool("list_files", {"publication": "rest-core"}),
    _tool("read_file", {"path": "rest-core/assets-api.md"}),
    _tool("search_text", {"pattern": "asset", "max_results": 3}),
    _tool("get_bundle_info", {}),
    _tool(
        "check_api_call",
        {"method": "GET", "path": "/rest/2.0/assets", "params": {"nameMatchMode": "EXACT"}},
    ),
    _tool("no_such_tool", {}),
    {"result": {}, "response": True},
]
JSONRPC: list[Any] = ["1.0", 2.0, None, "2.0 ", "2", "", "DROP"]
IDS: list[Any] = [
    0,
    -1,
    2**31,
    2**53 + 1,
    2**70,
    -(2**63),
    1.5,
    1.0,
    True,
    False,
    None,
    {"a": 1},
    [1],
    "",
    "x" * 300,
    "\ud800",
    "\udfff-id",
    "DROP",
]
METHODS: list[Any] = [5, None, "", "x" * 10_000, "tools/call\x00", "PING", "DROP", ["ping"]]
PARAMS: list[Any] = [None, [1, 2], "x", 5, True, {}, "DROP"]
ARGUMENTS: list[Any] = [
    None,
    [1],
    "x",
    5,
    {"path": 5},
    {"query": None},
    {"top_k": "x"},
    {"top_k": -1},
    {"top_k": 10**30},
    {"mode": "nope"},
    {"query": "a", "extra": {"deep": [1] * 10}},
]


def message(rng: random.Random, msg_id: Any) -> tuple[bytes, list[str]]:
    """One message (no newline inside) and what was done to it."""
    template = json.loads(json.dumps(rng.choice(TEMPLATES)))
    response = template.pop("response", False)
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, **template}
    if template.get("method", "").startswith("notifications/"):
        message.pop("id")
    done: list[str] = [template.get("method", "response") if not response else "response"]
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        field = rng.choice(
            ["jsonrpc", "id", "method", "params", "params", "arguments", "nest", "huge", "extra"]
        )
        if (
            field == "arguments"
            and message.get("method") == "tools/call"
            and isinstance(message.get("params"), dict)
        ):
            message["params"]["arguments"] = rng.choice([*ARGUMENTS, junk.text(rng)])
        elif field == "nest":
            depth = rng.choice([10, 100, 300, 1000, 5000, 100_000])
            message["params"] = {"a": f"NEST:{depth}"}  # spliced in after json.dumps
        elif field == "huge":
            size = rng.choice([10_000, 500_000, 3_000_000, 12_000_000])
            message.setdefault("params", {})
            if isinstance(message["params"], dict):
                message["params"]["x"] = "a" * size
            field = f"huge {size}"
        elif field == "extra":
            message[rng.choice(["result", "error", "params2", "id2"])] = junk.text(rng, long=0)
        elif field in ("jsonrpc", "id", "method", "params"):
            value = rng.choice(
                {"jsonrpc": JSONRPC, "id": IDS, "method": METHODS, "params": PARAMS}[field]
            )
            if value == "DROP":
                message.pop(field, None)
            else:
                message[field] = value
            field = f"{field}={clip(repr(value), 30)}"
        done.append(field)
    ascii_only = rng.random() < 0.7
    text = json.dumps(message, ensure_ascii=ascii_only)
    for marker in set(part for part in text.split('"') if part.startswith("NEST:")):
        depth = int(marker[5:])
        text = text.replace(f'"{marker}"', "[" * depth + "]" * depth)
    raw = text.encode("utf-8", "surrogatepass")
    if rng.random() < 0.3:
        raw, what = damage_bytes(rng, raw)
        done.append(what)
    return raw.replace(b"\n", b" ").replace(b"\r", b" "), done


def damage_bytes(rng: random.Random, raw: bytes) -> tuple[bytes, str]:
    how = rng.choice(
        [
            "bad-utf8-in-string",
            "bad-utf8",
            "surrogate-escape",
            "cut",
            "garbage",
            "batch",
            "empty-batch",
            "scalar",
            "bom",
            "spaces",
            "duplicate-id",
            "random",
        ]
    )
    quote = raw.find(b'"', 1)
    if how == "bad-utf8-in-string" and quote > 0:
        raw = (
            raw[: quote + 1]
            + rng.choice([b"\xff\xfe", b"\xc0", b"\xed\xa0\x80"])
            + raw[quote + 1 :]
        )
    elif how == "bad-utf8":
        at = rng.randrange(len(raw) + 1)
        raw = raw[:at] + b"\xff" + raw[at:]
    elif how == "surrogate-escape" and quote > 0:
        raw = raw[: quote + 1] + b"\\ud800" + raw[quote + 1 :]
    elif how == "cut":
        raw = raw[: rng.randrange(len(raw))]
    elif how == "garbage":
        raw += rng.choice([b"}", b"]", b",", b"x", b"\x00"])
    elif how == "batch":
        raw = b"[" + raw + b"," + raw + b"]"
    elif how == "empty-batch":
        raw = b"[]"
    elif how == "scalar":
        raw = rng.choice([b"42", b"null", b'"ping"', b"true", b"{}", b"[[]]"])
    elif how == "bom":
        raw = b"\xef\xbb\xbf" + raw
    elif how == "spaces":
        raw = b"  \t" + raw + b"  "
    elif how == "duplicate-id":
        raw = raw[:-1] + b',"id":"dup"}' if raw.endswith(b"}") else raw
    else:
        raw = bytes(rng.randrange(1, 256) for _ in range(rng.randrange(1, 200)))
    return raw, how
