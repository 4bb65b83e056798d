"""What the MCP server costs an agent: `tools/list` and a typical `search_docs` answer, in
characters and in tokens.

    uv run python benchmarks/agent_surface.py --json [--bundle DIR] [--queries 20]

The bundle defaults to the demo bundle (what `atlas demo` builds; built here on first use). The
server is `atlas-mcp --bundle DIR` over stdio, spoken to in raw JSON-RPC so the sizes are those of
the messages on the wire: `tools_list_chars` is the `tools/list` result as compact JSON, and a
search answer's size is the characters of its text content (what a model reads).

The queries are drawn from the bundle itself, so the same bundle always gives the same ones: the
section headings of its mirror's pages (levels 2 and deeper, outside code blocks), unique and
sorted, and of those every k-th so that `--queries` are taken. `search_docs` runs with each at its
defaults (hybrid, the default top_k), and the median answer is reported.

Tokens are counted with the embedding model's tokenizer (tokenizer.json of all-MiniLM-L6-v2, a
WordPiece vocabulary, through `tokenizers`): a model-independent yardstick, not any agent's count.

Keys: tools_list_chars, tools_list_tokens, tools, search_docs_median_chars,
search_docs_median_tokens, search_docs_max_chars, queries, bundle, tokenizer.
Not a test: prints one JSON object (with --json) and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this file's folder comes first on sys.path, where mcp.py would hide the SDK.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "benchmarks"]
BIN = Path(sys.executable).parent
HEADING = re.compile(r"^(#{2,6})\s+(.+?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")


def draw_queries(mirror: Path, count: int) -> list[str]:
    """Every k-th of the mirror's unique section headings (level 2+), sorted: see the module doc."""
    headings: set[str] = set()
    for page in sorted(mirror.rglob("*.md")):
        in_code = False
        for line in page.read_text(encoding="utf-8").splitlines():
            if FENCE.match(line):
                in_code = not in_code
                continue
            match = None if in_code else HEADING.match(line)
            if match:
                headings.add(match.group(2).strip("`* "))
    ordered = sorted(h for h in headings if h)
    if len(ordered) <= count:
        return ordered
    return [ordered[i * len(ordered) // count] for i in range(count)]


class RawServer:
    """`atlas-mcp` over stdio, one JSON-RPC request at a time."""

    def __init__(self, bundle: Path) -> None:
        self.proc = subprocess.Popen(
            [str(BIN / "atlas-mcp"), "--bundle", str(bundle)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
        )
        self.next_id = 0
        self.request(
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "agent-surface", "version": "0"},
            },
        )
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _send(self, message: dict[str, Any]) -> None:
        stdin: IO[str] | None = self.proc.stdin
        assert stdin is not None
        stdin.write(json.dumps(message) + "\n")
        stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        self._send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"atlas-mcp closed stdout during {method}")
            reply = json.loads(line)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method} failed: {reply['error']}")
                return reply["result"]

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def measure(bundle: Path, count: int) -> dict[str, Any]:
    from tokenizers import Tokenizer

    from atlas_core.embed.model_config import default_model_files

    tokenizer_path = default_model_files()[1]
    tokenizer = Tokenizer.from_file(str(tokenizer_path))
    tokenizer.no_truncation()

    def tokens(text: str) -> int:
        return len(tokenizer.encode(text, add_special_tokens=False).ids)

    queries = draw_queries(bundle / "mirror", count)
    server = RawServer(bundle)
    try:
        listed = json.dumps(
            server.request("tools/list", {}), separators=(",", ":"), ensure_ascii=False
        )
        answers = []
        for query in queries:
            result = server.request(
                "tools/call", {"name": "search_docs", "arguments": {"query": query}}
            )
            answers.append("".join(c.get("text", "") for c in result["content"]))
    finally:
        server.close()
    sizes = [len(a) for a in answers]
    return {
        "tools_list_chars": len(listed),
        "tools_list_tokens": tokens(listed),
        "tools": len(json.loads(listed)["tools"]),
        "search_docs_median_chars": round(statistics.median(sizes)) if sizes else 0,
        "search_docs_median_tokens": round(statistics.median(tokens(a) for a in answers))
        if answers
        else 0,
        "search_docs_max_chars": max(sizes, default=0),
        "queries": queries,
        "bundle": str(bundle),
        "tokenizer": str(tokenizer_path),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bundle", type=Path, help="a bundle directory (default: the demo)")
    parser.add_argument("--queries", type=int, default=20, help="search_docs queries to draw")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    bundle = args.bundle
    if bundle is None:
        from atlas_core.demo import ensure_demo_bundle

        bundle = ensure_demo_bundle(progress=False)
    figures = measure(bundle, max(1, args.queries))
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for key, value in figures.items():
            if key != "queries":
                print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
