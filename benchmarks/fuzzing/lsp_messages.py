"""Hostile LSP messages for the `lsp_wire` class: requests and notifications with positions,
URIs, params and settings of every wrong kind, broken envelopes and bytes, and broken framing.

URIs may hold placeholders that the running class fills in: SAMPLE_URI (the open document),
FILE, FIFO, DIR and BIG (files in its folder) and LONG (a URI of megabytes).
"""

from __future__ import annotations

import json
import random
from typing import Any

from benchmarks.fuzzing import junk

SAMPLE = 'page = api.findAssets(limit=5)\nurl = "/rest/2.0/assets/{assetId}"\n'
REQUESTS = [
    "textDocument/hover",
    "textDocument/hover",
    "textDocument/definition",
    "textDocument/completion",
    "textDocument/codeAction",
    "workspace/symbol",
    "workspace/executeCommand",
    "textDocument/documentSymbol",
    "textDocument/references",
    "completionItem/resolve",
    "$/unknown",
    "initialize",
]
NOTIFICATIONS = [
    "textDocument/didOpen",
    "textDocument/didChange",
    "textDocument/didClose",
    "textDocument/didSave",
    "workspace/didChangeConfiguration",
    "$/cancelRequest",
    "$/setTrace",
]
NUMBERS: list[Any] = [
    0,
    1,
    -1,
    -5,
    2**31 - 1,
    2**31,
    2**53,
    -(2**31),
    10**6,
    1.5,
    "0",
    None,
    True,
    [],
    {},
]
# Placeholders filled in where the server runs: SAMPLE_URI (the open document), FILE (an unopened
# regular file), FIFO, DIR and BIG (a 64 MB sparse file) in the class's folder.
URIS = [
    "SAMPLE_URI",
    "FILE",
    "FIFO",
    "DIR",
    "BIG",
    "file:///proc/self/fd/0",
    "file:///proc/self/mem",
    "file:///dev/zero",
    "file:///dev/urandom",
    "file:///dev/stdin",
    "file:///tmp/\ud800\udfff\ud800.py",
    "untitled:Untitled-1",
    "file://host/share/x.py",
    "file:relative.py",
    "",
    "file:///%ff%fe.py",
    "file:///etc/passwd",
    "http://example.invalid/x.py",
    "file:///nowhere/x.py",
    "LONG",
    5,
    None,
]
SETTINGS: list[Any] = [
    {"atlas": {"workspaceSymbols": {"maxResults": "x"}}},
    {"atlas": {"workspaceSymbols": {"maxResults": 1e308}}},
    {"atlas": {"workspaceSymbols": {"maxResults": -1}}},
    {"atlas": {"diagnostics": {"debounceMs": "9" * 100_000}}},
    {"atlas": {"diagnostics": {"enabled": "yes"}}},
    {"atlas": {"bundle": 5}},
    {"atlas": {"bundle": {"a": [1]}}},
    {"atlas": {"recognizers": "all"}},
    {"atlas": {"recognizers": {"enabled": 7}}},
    {"atlas": "x"},
    {"atlas": [1, 2]},
    {"workspaceSymbols.maxResults": None},
    "NESTED",
    None,
    [1],
]


def _position(rng: random.Random) -> Any:
    if rng.random() < 0.15:
        return rng.choice(
            [None, [], "0:0", {"line": 0}, {"character": 0}, {"line": 0, "character": 0, "x": 1}]
        )
    line = rng.choice(NUMBERS) if rng.random() < 0.6 else rng.randrange(0, 3)
    return {"line": line, "character": rng.choice(NUMBERS) if rng.random() < 0.5 else 12}


def _document(rng: random.Random) -> Any:
    uri = rng.choice(URIS)
    return {"uri": uri} if rng.random() < 0.9 else rng.choice([None, [], {"url": uri}, uri])


def _other_uri(rng: random.Random) -> Any:
    """Any URI but the good document's: notifications that change it would change the hover."""
    return rng.choice([u for u in URIS if u != "SAMPLE_URI"])


def _params(method: str, rng: random.Random) -> Any:
    if rng.random() < 0.1:
        return rng.choice([None, [1, 2], "x", 5, True, {}, "DEEP"])
    if method in (
        "textDocument/hover",
        "textDocument/definition",
        "textDocument/completion",
        "textDocument/references",
    ):
        return {"textDocument": _document(rng), "position": _position(rng)}
    if method == "textDocument/codeAction":
        return {
            "textDocument": _document(rng),
            "range": {"start": _position(rng), "end": _position(rng)}
            if rng.random() < 0.8
            else None,
            "context": {
                "diagnostics": rng.choice([[], None, [{"range": None, "message": 5}]]),
                "only": rng.choice([None, ["quickfix"], [5], "x"]),
            },
        }
    if method == "workspace/symbol":
        return {"query": junk.text(rng) if rng.random() < 0.9 else rng.choice([None, 5, []])}
    if method == "workspace/executeCommand":
        return {
            "command": rng.choice(
                ["atlas.openDocs", "atlas.openWeb", "atlas.debugInfo", "no.such", 5]
            ),
            "arguments": rng.choice(
                [[], ["file:///x", "y"], [None], [junk.text(rng)], "x", None, [{"a": 1}] * 3]
            ),
        }
    if method == "textDocument/didOpen":
        text = rng.choice(
            [
                SAMPLE,
                junk.text(rng, long=0.3),
                "x" * rng.randrange(1, 5_000_000),
                SAMPLE + "\x00\r\n\ud800",
                5,
                None,
            ]
        )
        return {
            "textDocument": {
                "uri": _other_uri(rng),
                "languageId": rng.choice(["python", "json", "", 5]),
                "version": rng.choice(NUMBERS),
                "text": text,
            }
        }
    if method == "textDocument/didChange":
        change = rng.choice(
            [
                {"text": junk.text(rng)},
                {"range": {"start": _position(rng), "end": _position(rng)}, "text": "x"},
                {"range": None, "text": None},
                5,
            ]
        )
        return {
            "textDocument": {"uri": _other_uri(rng), "version": rng.choice(NUMBERS)},
            "contentChanges": rng.choice([[change], change, None]),
        }
    if method in ("textDocument/didClose", "textDocument/didSave"):
        return {"textDocument": {"uri": _other_uri(rng)} if rng.random() < 0.9 else None}
    if method == "textDocument/documentSymbol":
        return {"textDocument": _document(rng)}
    if method == "workspace/didChangeConfiguration":
        return {"settings": rng.choice(SETTINGS)}
    if method == "$/cancelRequest":
        return {"id": rng.choice([*NUMBERS, "x"])}
    if method == "$/setTrace":
        return {"value": rng.choice(["off", "verbose", 5, None])}
    if method == "initialize":
        return {
            "processId": rng.choice([None, -1, "x"]),
            "capabilities": rng.choice([{}, None, []]),
            "rootUri": rng.choice(URIS),
        }
    return {"x": junk.text(rng, long=0)}


def message(rng: random.Random, msg_id: Any) -> dict[str, Any]:
    notify = rng.random() < 0.35
    method = rng.choice(NOTIFICATIONS if notify else REQUESTS)
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": _params(method, rng)}
    if not notify:
        message["id"] = msg_id
    if rng.random() < 0.2:
        field = rng.choice(["jsonrpc", "id", "method", "params"])
        value = rng.choice(
            {
                "jsonrpc": ["1.0", 2.0, None, "DROP"],
                "id": [1.5, True, None, {"a": 1}, [1], "\ud800", "x" * 300, 2**70, "DROP"],
                "method": [5, None, "", "DROP"],
                "params": ["DROP", None, [1]],
            }[field]
        )
        if value == "DROP":
            message.pop(field, None)
        else:
            message[field] = value
    return message


def encode(message: dict[str, Any], rng: random.Random) -> tuple[bytes, str]:
    text = json.dumps(message, ensure_ascii=rng.random() < 0.7)
    text = text.replace('"NESTED"', '{"a": ' * 10_000 + "1" + "}" * 10_000)
    depth = rng.choice([100, 1000, 100_000])
    text = text.replace('"DEEP"', "[" * depth + "]" * depth)
    uri_long = "file:///" + "a" * rng.choice([10_000, 1_000_000])
    text = text.replace('"LONG"', json.dumps(uri_long))
    raw = text.encode("utf-8", "surrogatepass")
    if rng.random() > 0.15:
        return raw, ""
    how = rng.choice(["bad-utf8", "cut", "batch", "scalar", "garbage", "empty"])
    if how == "bad-utf8":
        at = rng.randrange(len(raw) + 1)
        raw = raw[:at] + rng.choice([b"\xff", b"\xc0\xaf", b"\xed\xa0\x80"]) + raw[at:]
    elif how == "cut":
        raw = raw[: rng.randrange(len(raw))]
    elif how == "batch":
        raw = b"[" + raw + b"]"
    elif how == "scalar":
        raw = rng.choice([b"5", b"null", b'"x"', b"[]"])
    elif how == "garbage":
        raw += b"}"
    else:
        raw = b""
    return raw, how


def framing(rng: random.Random, body: bytes) -> tuple[bytes, str, bool]:
    """A broken frame around `body`; whether a server may carry on after it as if whole."""
    n = len(body)
    how = rng.choice(
        [
            "longer",
            "shorter",
            "padded",
            "text",
            "negative",
            "huge",
            "missing",
            "junk-line",
            "many-headers",
            "long-header",
            "lf-only",
            "content-type",
            "zero",
        ]
    )
    k = rng.randrange(1, 20)
    frames = {
        "longer": (b"Content-Length: %d\r\n\r\n" % (n + k) + body, False),
        "shorter": (b"Content-Length: %d\r\n\r\n" % max(0, n - k) + body, False),
        "padded": (b"Content-Length: %d\r\n\r\n" % (n + k) + body + b" " * k, True),
        "text": (b"Content-Length: ten\r\n\r\n" + body, False),
        "negative": (b"Content-Length: -%d\r\n\r\n" % n + body, False),
        "huge": (b"Content-Length: %d\r\n\r\n" % rng.choice([2**40, 10**15, 2**63]) + body, False),
        "missing": (
            b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + body,
            False,
        ),
        "junk-line": (b"hello\r\nContent-Length: %d\r\n\r\n" % n + body, False),
        "many-headers": (
            b"Content-Type: x\r\n" * 40 + b"Content-Length: %d\r\n\r\n" % n + body,
            False,
        ),
        "long-header": (
            b"X-"
            + b"a" * rng.choice([2_000, 1_000_000])
            + b": 1\r\nContent-Length: %d\r\n\r\n" % n
            + body,
            False,
        ),
        "lf-only": (b"Content-Length: %d\n\n" % n + body, True),
        "content-type": (
            b"content-length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"
            % n
            + body,
            True,
        ),
        "zero": (b"Content-Length: 0\r\n\r\n" + body, False),
    }
    frame, whole = frames[how]
    return frame, how, whole
