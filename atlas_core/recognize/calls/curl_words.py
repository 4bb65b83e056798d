"""The words of a shell command line and the HTTP request a command tool makes of them (`curl`,
`shell_tools`): each character of a word remembers its line and column, so a key inside
``-d '{"name": "x"}'`` maps back to where it is written."""

from __future__ import annotations

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
