"""The checks every snippet passes before it is written."""

from __future__ import annotations

import ast
import re
from typing import Any


def validate_snippet(record: dict[str, Any]) -> list[str]:
    """Problems with one snippet: it must parse (Python) or balance its brackets (others), and
    each cursor must sit inside its text."""
    problems: list[str] = []
    code: str = record["code"]
    lines = code.split("\n")
    if record["language"] == "python":
        try:
            ast.parse(code)
        except SyntaxError as exc:
            problems.append(f"python does not parse: {exc}")
    else:
        stripped = re.sub(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', '""', code)
        stripped = re.sub(r"`(?:\\.|[^`\\])*`", '""', stripped)
        stripped = re.sub(r"//[^\n]*", "", stripped)
        for open_, close in ("()", "[]", "{}"):
            if stripped.count(open_) != stripped.count(close):
                problems.append(f"unbalanced {open_}")
    if not 2 <= len(record["cursors"]) <= 5:
        problems.append(f"{len(record['cursors'])} cursors")
    for cursor in record["cursors"]:
        line = lines[cursor["line"]]
        text = cursor["text"]
        start = cursor["character"] - len(text) // 2
        if line[start : start + len(text)] != text or not text:
            problems.append(f"cursor {cursor} is not on its text")
    return problems
