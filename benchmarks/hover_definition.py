"""Hover and go-to-definition on the held-out identifiers, through the real server over stdio.

    uv run python benchmarks/hover_definition.py --bundle /tmp/qbundle [--json] [--show dev]

Each name of `benchmarks/identifiers_heldout/cases.jsonl` is written the way it is met (an
operation called on a client, a schema constructed, a parameter or property as a quoted key, an
enum value as a string, a path in a URL string, a concept in backticks in a markdown note), opened
in ``python -m atlas_ls --bundle DIR``, hovered and asked for its definition. Per split:

  hover_hit         hover's first page (its first file link, the one a reader meets first) is
                    the case's `primary`
  definition_hit    the definition's page is the case's `primary`
  agreement         the definition's page and line are hover's first page and line (every
                    case where either answers; both silent counts as agreeing)
  cases / with_primary  cases hovered, and those with a `primary` (the hits count over these)

Not a test: it prints numbers and asserts nothing. Decide on dev, report test beside it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.lsp import Client, server_env, stop

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "benchmarks" / "identifiers_heldout" / "cases.jsonl"
SPLITS = ("train", "dev", "test")
# A file link of a hover, `[relpath:line](uri#Lline)`: its first one is the page it shows first.
_FILE_LINK = re.compile(r"\[([^\]\n]+?):(\d+)\]\((file://[^)#\s]+)#L\d+\)")


def document(case: dict[str, Any]) -> tuple[str, str, int, int]:
    """(language, text, line, character) of a short document that uses the case's name."""
    name, cls = case["identifier"], case["class"]
    if cls == "concept":
        text = f"# Notes\n\nCall `{name}` as the guide shows.\n"
        return "markdown", text, 2, text.split("\n")[2].index(name) + 1
    if cls == "operation":
        line = f"result = client.{name}(limit=5)"
    elif cls == "schema":
        line = f"request = {name}()"
    elif cls == "path":
        line = f'url = "{name}"'
    else:  # parameter, property, enum: written quoted, as code writes keys and values
        line = f'payload = {{"{name}": value}}' if cls != "enum" else f'mode = "{name}"'
    return "python", f"import client\n\n{line}\n", 2, line.index(name) + 1


def mirror_relpath(uri: str) -> str:
    """The mirror-relative path of a file URI into a bundle's mirror."""
    path = unquote(urlparse(uri).path)
    return path.split("/mirror/", 1)[1] if "/mirror/" in path else path


def hover_place(hover: Any) -> tuple[str, int] | None:
    """(page, line) of the page a hover shows first: its first file link, read top to bottom."""
    if not hover:
        return None
    match = _FILE_LINK.search(hover["contents"]["value"])
    if match is None:
        return None
    return mirror_relpath(match.group(3)), int(match.group(2))


def definition_place(result: Any) -> tuple[str, int] | None:
    if not result:
        return None
    location = result[0] if isinstance(result, list) else result
    uri = location.get("uri") or location.get("targetUri")
    rng = location.get("range") or location.get("targetSelectionRange")
    return mirror_relpath(uri), rng["start"]["line"] + 1


async def start(bundle: Path, home: Path) -> Client:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "atlas_ls", "--bundle", str(bundle),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL, env=server_env(home),
    )  # fmt: skip
    client = Client(proc)
    await client.request(
        "initialize",
        {"processId": os.getpid(), "rootUri": home.as_uri(), "capabilities": {
            "textDocument": {"hover": {"contentFormat": ["markdown"]}}}},
    )  # fmt: skip
    client.notify("initialized", {})
    return client


async def measure(bundle: Path, home: Path) -> list[dict[str, Any]]:
    cases = [json.loads(line) for line in CASES.read_text().splitlines() if line.strip()]
    client = await start(bundle, home)
    rows = []
    try:
        for number, case in enumerate(cases):
            language, text, line, character = document(case)
            suffix = "md" if language == "markdown" else "py"
            uri = (home / f"case{number}.{suffix}").as_uri()
            client.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": language, "version": 1, "text": text}})  # fmt: skip
            where = {
                "textDocument": {"uri": uri},
                "position": {"line": line, "character": character},
            }
            hover = await client.request("textDocument/hover", where)
            definition = await client.request("textDocument/definition", where)
            client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
            shown, landed = hover_place(hover), definition_place(definition)
            rows.append({"id": case["id"], "identifier": case["identifier"],
                         "class": case["class"], "split": case["split"],
                         "primary": case.get("primary"), "hover": shown, "definition": landed})  # fmt: skip
    finally:
        await stop(client)
    return rows


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for split in SPLITS:
        mine = [r for r in rows if r["split"] == split]
        primary = [r for r in mine if r["primary"]]

        def rate(hits: int, total: int) -> float:
            return round(hits / total, 3) if total else 0.0

        hover_hit = sum(1 for r in primary if r["hover"] and r["hover"][0] == r["primary"])
        def_hit = sum(1 for r in primary if r["definition"] and r["definition"][0] == r["primary"])
        agree = sum(1 for r in mine if r["hover"] == r["definition"])
        out[split] = {
            "cases": len(mine),
            "with_primary": len(primary),
            "hover_hit": rate(hover_hit, len(primary)),
            "definition_hit": rate(def_hit, len(primary)),
            "agreement": rate(agree, len(mine)),
            "disagreeing": len(mine) - agree,
        }
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--bundle", type=Path, required=True)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--show", choices=SPLITS, help="list that split's disagreements")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="atlas-hover-def-") as tmp:
        rows = asyncio.run(measure(args.bundle.resolve(), Path(tmp)))
    result = summary(rows)
    if args.show:
        result["disagreements"] = [
            r for r in rows if r["split"] == args.show and r["hover"] != r["definition"]
        ]
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for split in SPLITS:
            print(split, result[split])
        for r in result.get("disagreements", []):
            print(" ", r["identifier"], r["class"], "hover", r["hover"], "def", r["definition"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
