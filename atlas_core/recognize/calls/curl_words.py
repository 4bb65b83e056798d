"""The words of a shell command line and the HTTP request a command tool makes of them (`curl`,
`shell_tools`): each character of a word remembers its line and column, so a key inside
``-d '{"name": "x"}'`` maps back to where it is written."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field


@dataclass(slots=True)
class Word:
    value: str = ""
    at: list[tuple[int, int]] = field(default_factory=list)  # (line, column) of each character


@dataclass(slots=True)
class Command:
    method: str = ""
    get: bool = False
    head: bool = False
    upload: bool = False
    url: Word | None = None
    data: list[tuple[str, Word]] = field(default_factory=list)  # (option, value)
    headers: list[Word] = field(default_factory=list)
    method_word: Word | None = None
    curl: Word | None = None  # the command's own word (curl, wget, http)


def tail(word: Word, start: int) -> Word:
    return Word(word.value[start:], word.at[start:])


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def json_key_at(text: str, index: int) -> tuple[int, int, tuple[str, ...], bool] | None:
    """(start, end, keys of the same object, whether that object is inside another) of the JSON
    key `index` is on, or None."""
    stack: list[int] = []
    objects = 0
    keys: dict[int, list[str]] = {}
    hit: tuple[int, int, int, bool] | None = None
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == '"':
            m = _JSON_STRING.match(text, i)
            end = m.end() if m else len(text)
            after = text[end : end + 64].lstrip()
            if after.startswith(":") and stack:
                keys.setdefault(stack[-1], []).append(text[i + 1 : end - 1])
                if i <= index < end:
                    hit = (i + 1, end - 1, stack[-1], len(stack) > 1)
            i = end
            continue
        if ch == "{":
            objects += 1
            stack.append(objects)
        elif ch == "}" and stack:
            stack.pop()
        i += 1
    if hit is None:
        return None
    start, end, owner, nested = hit
    return start, end, tuple(dict.fromkeys(keys.get(owner, []))), nested
