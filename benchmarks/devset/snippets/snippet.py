"""A snippet's code with marked cursor texts, and the pieces every style writes."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

from benchmarks.devset.casing import snake
from benchmarks.devset.snippets.values import Key, value_code
from benchmarks.devset.spec import Op

_MARK_RE = re.compile(r"⟦(\d+)\|([^⟧]*)⟧")


class Snippet:
    """Code lines with marked cursor texts; `⟦i|text⟧` ties a text to expectation i."""

    def __init__(self) -> None:
        self.expects: list[dict[str, str]] = []

    def mark(self, text: str, op: Op, name: str, role: str) -> str:
        self.expects.append({"method": op.method, "path": op.path, "name": name, "role": role})
        return f"⟦{len(self.expects) - 1}|{text}⟧"

    def endpoint(self, text: str, op: Op) -> str:
        return self.mark(text, op, op.operation_id, "endpoint")

    def render(self, lines: list[str]) -> tuple[str, list[dict[str, Any]]]:
        out: list[str] = []
        cursors: list[dict[str, Any]] = []
        for number, line in enumerate(lines):
            while m := _MARK_RE.search(line):
                text = m.group(2)
                line = line[: m.start()] + text + line[m.end() :]
                cursors.append(
                    {
                        "line": number,
                        "character": m.start() + len(text) // 2,
                        "text": text,
                        "expect": self.expects[int(m.group(1))],
                    }
                )
            out.append(line)
        return "\n".join(out) + "\n", cursors


def dict_lines(
    keys: list[Key],
    op: Op,
    s: Snippet,
    lang: str,
    rng: random.Random,
    variables: list[str],
    indent: str,
    quote_keys: bool = True,
    strings: bool = False,
) -> list[str]:
    """`"key": value,` lines; `strings` renders values as URLSearchParams needs them."""
    lines = []
    for key in keys:
        name = s.mark(key.name, op, key.name, key.role)
        shown = (
            f'"{name}"' if quote_keys or not re.fullmatch(r"[A-Za-z_$][\w$]*", key.name) else name
        )
        if strings and key.schema.get("type") == "array":
            key = Key(key.name, key.role, key.schema.get("items") or {})
        value = value_code(key, lang, rng, variables)
        if strings and re.fullmatch(r"-?\d+|true|false", value):
            value = f'"{value}"'
        lines.append(f"{indent}{shown}: {value},")
    return lines


def path_text(op: Op, s: Snippet, param: Callable[[str], str]) -> str:
    """The operation's path with its last literal segment marked as the endpoint."""
    segments = op.path.strip("/").split("/")
    last = max(i for i, seg in enumerate(segments) if not seg.startswith("{"))
    shown = []
    for i, seg in enumerate(segments):
        if seg.startswith("{"):
            shown.append(param(seg[1:-1]))
        elif i == last:
            shown.append(s.endpoint(seg, op))
        else:
            shown.append(seg)
    return "/" + "/".join(shown)


def signature(variables: list[str]) -> str:
    return ", ".join(dict.fromkeys(variables))


def fn_name(op: Op, lang: str) -> str:
    return snake(op.operation_id) if lang == "python" else op.operation_id
