"""The stdio transport owns fd 0 and fd 1 while it serves (it took them over from the SDK to write each
message in one trip): a tool's print, a raw write to fd 1 and a child process's output all go to
stderr, so stdout carries protocol messages only, and fd 1 is the process's again afterwards."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.mcp_client import server_env

SERVER = """
import os, subprocess
import anyio
from atlas_ls.mcp._sdk import MCPServer
from atlas_ls.mcp.transport.stdio import run_stdio

server = MCPServer("stray")

@server.tool()
def shout() -> str:
    \"\"\"Writes to stdout three ways.\"\"\"
    print("stray print", flush=True)
    os.write(1, b"stray fd write\\n")
    subprocess.run(["echo", "stray child"], check=True)
    return "done"

anyio.run(run_stdio, server)
os.write(1, b"after serving\\n")
"""

MESSAGES = [
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
        "params": {"name": "shout", "arguments": {}},
    },
]


def test_stray_output_goes_to_stderr_and_stdout_is_restored(tmp_path: Path) -> None:
    script = tmp_path / "stray_server.py"
    script.write_text(SERVER, encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, str(script)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=server_env(),
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    replies: dict[int, dict] = {}
    try:
        for message in MESSAGES:
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
            while "id" in message and message["id"] not in replies:
                line = proc.stdout.readline()
                assert line, "server closed stdout"
                parsed = json.loads(line)  # a stray line fails here
                if "id" in parsed:
                    replies[parsed["id"]] = parsed
    finally:
        proc.stdin.close()
        rest = proc.stdout.read()
        stderr = proc.stderr.read()
        proc.wait(30)
    assert replies[2]["result"]["content"][0]["text"] == "done"
    assert rest == "after serving\n"  # fd 1 is stdout again once the transport is done
    for stray in ("stray print", "stray fd write", "stray child"):
        assert stray in stderr
