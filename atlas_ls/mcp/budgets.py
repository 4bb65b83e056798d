"""How much text each tool may answer with, enforced in one place for every tool.

A model pays for every character of a tool's text. The tools already size their answers (per-result
`max_chars`, page limits); this is the last word: an answer over its tool's budget is cut at a line
break and ends with a note naming the budget and how to get the rest. The structured content is
left whole. The budgets are documented in the README's MCP section (a test keeps the two equal).
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import ParamSpec

from atlas_ls.mcp._sdk import CallToolResult, TextContent

P = ParamSpec("P")

TEXT_BUDGETS: dict[str, int] = {
    "search_docs": 8_000,
    "search_code": 8_000,
    "lookup_identifier": 5_000,
    "check_api_call": 6_000,
    "check_code": 8_000,
    "get_chunk": 10_000,
    "get_bundle_info": 4_000,
    "list_publications": 6_000,
    "list_files": 10_000,
    "read_file": 40_000,
    "search_text": 10_000,
    "get_release_info": 6_000,
}

# What to do when an answer was cut, per tool.
_RETRY: dict[str, str] = {
    "search_docs": "ask for fewer results (top_k) or shorter passages (max_chars)",
    "search_code": "ask for fewer results (top_k) or shorter passages (max_chars)",
    "lookup_identifier": "ask for fewer candidates (limit) or a more exact identifier",
    "check_api_call": "fix the findings shown, then check again",
    "check_code": "fix the findings shown, or check a smaller part of the code",
    "get_chunk": "read on with read_file(path, start_line)",
    "get_bundle_info": "the structured content has every field",
    "list_publications": "the structured content lists every publication",
    "list_files": "page with a smaller limit and offset, or narrow with glob",
    "read_file": "read fewer lines (max_lines) and page on with start_line",
    "search_text": "narrow with publication or a longer pattern, or lower max_results",
    "get_release_info": "the structured content has every field",
}


def budget_of(tool: str) -> int:
    return TEXT_BUDGETS[tool]


def bounded(
    tool: str, fn: Callable[P, Awaitable[CallToolResult]]
) -> Callable[P, Awaitable[CallToolResult]]:
    """`fn` with its text answer held to `tool`'s budget."""
    budget = TEXT_BUDGETS[tool]
    retry = _RETRY[tool]

    @functools.wraps(fn)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> CallToolResult:
        result = await fn(*args, **kwargs)
        result.content = [
            TextContent(type="text", text=cut(part.text, budget, retry))
            if isinstance(part, TextContent)
            else part
            for part in result.content
        ]
        return result

    return wrapper


def cut(text: str, budget: int, retry: str) -> str:
    """`text` if it fits `budget`, else its first lines and a note; never over `budget`."""
    if len(text) <= budget:
        return text
    note = f"\n[answer cut at {budget:,} of {len(text):,} characters; {retry}]"
    room = max(0, budget - len(note))
    end = text.rfind("\n", 0, room)
    if end < room // 2:
        end = room
    return text[:end] + note[: budget - end]
