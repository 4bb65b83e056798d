"""The stdio transport owns fd 0 and fd 1 while it serves: a tool's print, a raw write to fd 1 and a
child process's output all go to stderr, so stdout carries protocol messages only, and fd 1 is the
process's again afterwards. Pipes are read and written on the event loop (lines split or batched
across reads, answers larger than a pipe holds), files in worker threads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from atlas_ls.mcp.transport.stdio import PipeLines
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


# A server with one tool whose answer is far larger than a pipe holds (64 KiB), and that reports
# afterwards whether it left its standard streams blocking, as it found them.
BIG_SERVER = """
import fcntl, os, sys
import anyio
from atlas_ls.mcp._sdk import MCPServer
from atlas_ls.mcp.transport import stdio
from atlas_ls.mcp.transport.stdio import run_stdio

stdio.EOF_DRAIN_S = float(os.environ.get("DRAIN_S", stdio.EOF_DRAIN_S))
server = MCPServer("big")

@server.tool()
def big(n: int) -> str:
    \"\"\"n characters.\"\"\"
    return "x" * n

anyio.run(run_stdio, server)
blocking = all(not fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_NONBLOCK for fd in (0, 1))
sys.stderr.write(f"blocking after serving: {blocking}\\n")
"""

BIG = 3_000_000


def _call(id_: int, n: int) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": id_,
        "method": "tools/call",
        "params": {"name": "big", "arguments": {"n": n}},
    }


def _ping(id_: int) -> dict:
    return {"jsonrpc": "2.0", "id": id_, "method": "ping"}


def _lines(*messages: dict) -> bytes:
    return b"".join(json.dumps(m).encode() + b"\n" for m in messages)


def _big_server(
    tmp_path: Path, drain_s: float = 30.0, **streams: object
) -> subprocess.Popen[bytes]:
    script = tmp_path / "big_server.py"
    script.write_text(BIG_SERVER, encoding="utf-8")
    env = {**server_env(), "DRAIN_S": str(drain_s)}
    return subprocess.Popen([sys.executable, str(script)], env=env, **streams)  # type: ignore[call-overload]


def _answers(raw: bytes) -> dict[int, dict]:
    return {m["id"]: m for m in map(json.loads, raw.splitlines()) if "id" in m}


def test_pipes_carry_split_batched_and_oversized_answers_in_order(tmp_path: Path) -> None:
    proc = _big_server(
        tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    # Three messages in one write; one split mid-line over three writes; blank lines; a call
    # whose answer is 45 pipe-fulls, then a ping, both sent before the client reads anything,
    # so the answer waits on a full pipe while the ping is read; a last line with no line break.
    first = _lines(MESSAGES[0], MESSAGES[1], _ping(10))
    split = json.dumps(_call(11, 5)).encode() + b"\n\n"
    proc.stdin.write(first + split[:7])
    proc.stdin.flush()
    time.sleep(0.2)
    proc.stdin.write(split[7:30])
    proc.stdin.flush()
    time.sleep(0.2)
    proc.stdin.write(split[30:] + _lines(_call(12, BIG), _ping(13)))
    proc.stdin.write(json.dumps(_ping(14)).encode())
    proc.stdin.flush()
    time.sleep(1.0)  # the server blocks on the full pipe meanwhile, and must keep serving
    proc.stdin.close()
    out = proc.stdout.read()
    err = proc.stderr.read().decode()
    assert proc.wait(30) == 0, err
    order = [m["id"] for m in map(json.loads, out.splitlines()) if "id" in m]
    assert sorted(order) == [1, 10, 11, 12, 13, 14]  # each exactly once, none lost or merged
    answers = _answers(out)
    assert answers[11]["result"]["content"][0]["text"] == "xxxxx"
    assert answers[12]["result"]["content"][0]["text"] == "x" * BIG
    assert answers[14]["result"] == {}
    assert "blocking after serving: True" in err


def test_files_for_stdin_and_stdout_are_served_too(tmp_path: Path) -> None:
    # Regular files cannot be waited on: the transport reads and writes them in worker threads.
    requests = tmp_path / "requests.jsonl"
    requests.write_bytes(_lines(MESSAGES[0], MESSAGES[1], _call(2, BIG), _ping(3)))
    answers_file = tmp_path / "answers.jsonl"
    with requests.open("rb") as stdin, answers_file.open("wb") as stdout:
        proc = _big_server(tmp_path, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    answers = _answers(answers_file.read_bytes())
    assert answers[2]["result"]["content"][0]["text"] == "x" * BIG
    assert answers[3]["result"] == {}


async def _read_all(lines: PipeLines) -> list[tuple[bytes, bool]]:
    found = []
    while (line := await lines.next_line()) is not None:
        found.append(line)
    return found


@pytest.mark.parametrize(
    ("chunks", "expected"),
    [
        pytest.param(
            [b"ab\ncd\n", b"\n"], [(b"ab\n", True), (b"cd\n", True), (b"\n", True)], id="batched"
        ),
        pytest.param(
            [b"a", b"b", b"c\nd"], [(b"abc\n", True), (b"d", True)], id="split, no last break"
        ),
        pytest.param(
            [b"x" * 10 + b"\n", b"ok\n"],
            [(b"x" * 10 + b"\n", True), (b"ok\n", True)],
            id="at the limit",
        ),
        pytest.param(
            [b"x" * 11 + b"\nok\n"], [(b"", False), (b"ok\n", True)], id="over, one chunk"
        ),
        pytest.param(
            [b"x" * 8, b"x" * 8, b"x" * 8, b"\nok\n"],
            [(b"", False), (b"ok\n", True)],
            id="over, chunks",
        ),
        pytest.param([b"ok\n", b"x" * 30], [(b"ok\n", True), (b"", False)], id="over at the end"),
        pytest.param([], [], id="nothing"),
    ],
)
async def test_pipe_lines_keep_lines_whole_and_drop_those_over_the_limit(
    chunks: list[bytes], expected: list[tuple[bytes, bool]]
) -> None:
    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, False)
    try:
        async with anyio.create_task_group() as tasks:
            found: list[list[tuple[bytes, bool]]] = []

            async def read() -> None:
                found.append(await _read_all(PipeLines(read_fd, limit=10)))

            tasks.start_soon(read)
            for chunk in chunks:
                os.write(write_fd, chunk)
                await anyio.sleep(0.01)  # each chunk arrives on its own
            os.close(write_fd)
        assert found == [expected]
    finally:
        os.close(read_fd)


def test_a_client_that_stops_reading_ends_the_server_quietly(tmp_path: Path) -> None:
    proc = _big_server(
        tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.write(_lines(MESSAGES[0]))
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["id"] == 1
    proc.stdout.close()  # the client is gone as far as answers go; stdin stays open
    proc.stdin.write(_lines(MESSAGES[1], _call(2, BIG)))
    proc.stdin.flush()
    assert proc.wait(30) == 0
    err = proc.stderr.read().decode()
    assert "Traceback" not in err and "blocking after serving: True" in err, err
    proc.stdin.close()


def test_a_client_that_closes_stdin_and_never_reads_does_not_keep_the_server(
    tmp_path: Path,
) -> None:
    proc = _big_server(
        tmp_path, drain_s=1.0, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.write(_lines(MESSAGES[0], MESSAGES[1], _call(2, BIG)))
    proc.stdin.close()  # and its answer, far larger than the pipe, is never read
    try:
        assert proc.wait(20) == 0  # the answer waits for one drain period, its writing another
    finally:
        proc.kill()
        proc.stdout.close()
    err = proc.stderr.read().decode()
    assert "Traceback" not in err and "blocking after serving: True" in err, err
