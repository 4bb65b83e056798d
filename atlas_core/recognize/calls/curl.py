"""HTTP command lines in shell scripts and markdown code blocks, read as text: curl here, wget
and HTTPie through `shell_tools`.

A command may span lines joined by a trailing backslash. Its words are split the way a shell
splits them (quotes, escapes), each character remembering its line and column, so a key inside
``-d '{"name": "x"}'`` or ``--data-urlencode "name=x"`` maps back to where it is written.
"""

from __future__ import annotations

import re
from dataclasses import replace

from atlas_core.recognize.calls.curl_words import Command as _Command
from atlas_core.recognize.calls.curl_words import Word as _Word
from atlas_core.recognize.calls.curl_words import is_json, json_key_at
from atlas_core.recognize.calls.curl_words import tail as _tail
from atlas_core.recognize.calls.curl_wrappers import COMMAND_WORD, expand_variables, shell_wrappers
from atlas_core.recognize.calls.shell_tools import (
    BODY_ITEM,
    QUERY_ITEM,
    item_key,
    parse_httpie,
    parse_wget,
)
from atlas_core.recognize.calls.site import (
    BODY,
    ENDPOINT,
    HEADER,
    HTTP,
    QUERY,
    UNKNOWN,
    CallSite,
    query_key_at,
    tidy_url,
)
from atlas_core.syntax import Document

_MAX_LINES = 60  # of one command, either way from the cursor
_MAX_CHARS = 20_000
# Short options that take a value (``-X POST``, ``-uuser:pw``); the others are switches, so in a
# group (``-sSfL``, ``-skLu user:pw``) only the last letter may take the next word.
_TAKES_VALUE = frozenset("XHduFoAebcTwxKEmrzDYyCUQtP")
_LONG_WITH_VALUE = frozenset(
    {
        "request",
        "header",
        "data",
        "data-raw",
        "data-binary",
        "data-ascii",
        "data-urlencode",
        "json",
        "form",
        "form-string",
        "user",
        "url",
        "output",
        "cookie",
        "cookie-jar",
        "user-agent",
        "referer",
        "upload-file",
        "write-out",
        "proxy",
        "config",
        "cert",
        "key",
        "cacert",
        "max-time",
        "connect-timeout",
        "retry",
        "oauth2-bearer",
        "resolve",
    }
)
_DATA_SHORT = frozenset("dF")
_DATA_LONG = frozenset(
    {
        "data",
        "data-raw",
        "data-binary",
        "data-ascii",
        "data-urlencode",
        "json",
        "form",
        "form-string",
    }
)
_SEPARATORS = frozenset({"|", "||", "&&", ";", "&", ">", ">>", "<", "2>", ")"})
# What a command substituted into a word starts after (``TOKEN=$(curl``, ``x=`curl``).
_SUBSTITUTED = re.compile(r"\$\(|`")
_FORM_KEY = re.compile(r"[\w.\-\[\]]+$")  # a form field's name (``limit``, ``ids[]``)
# A word that expands to a list of words, options or not (``"${args[@]}"``, ``"$@"``): no URL.
_SPREAD = re.compile(r"^\$(?:@|\*|\{\w+\[[@*]\]\})$")


def read_curl(document: Document, line: int, column: int, language: str) -> CallSite | None:
    first = next(
        (
            n
            for n in range(line, max(line - _MAX_LINES, -1), -1)
            if COMMAND_WORD.search(document.line(n))
        ),
        None,
    )
    words, last = _split(document, first) if first is not None else ([], -1)
    if first is None or line > last:  # no command, or the nearest above ended before the cursor
        return _wrapped(document, line, column, language)
    command = _parse(words)
    if command is None or command.curl is None:
        return None
    method = _method(command, document, first)
    if not method:
        return None  # ``-X "$METHOD"`` set where the script does not show
    url = expand_variables(command.url.value, document, first) if command.url else ""
    if url and not url.replace(UNKNOWN, "").strip():
        return None  # a URL the script does not show (``curl "$1"``)
    site = _Answer(method, tidy_url(url), line, column, language)
    if command.url is not None and site.on(command.url):
        return site.on_url(command.url)
    if site.on(command.curl) or (command.method_word and site.on(command.method_word)):
        word = command.curl if site.on(command.curl) else command.method_word
        if word is not None:
            return site.make(ENDPOINT, "", *site.span(word, 0, len(word.value)))
    for option, word in command.data:
        if site.on(word):
            if option in (QUERY_ITEM, BODY_ITEM):
                return site.on_item(word, option, command)
            role = QUERY if command.get else BODY
            return site.on_data(word, role, option)
    for word in command.headers:
        if site.on(word):
            name = word.value.split(":", 1)[0].strip()
            if name and site.index(word) <= len(name):
                return site.make(HEADER, name, *site.span(word, 0, len(name)))
    return None


def _wrapped(document: Document, line: int, column: int, language: str) -> CallSite | None:
    """A call of a shell function that runs an HTTP command with its arguments
    (``api_get "/rest/2.0/assets"``, `curl_wrappers`): the argument the command's URL reads is
    the endpoint, one its data reads the body."""
    call, _ = _split(document, line)
    wrapper = shell_wrappers(document).get(call[0].value) if call else None
    command = _parse(_split(document, wrapper.command)[0]) if wrapper is not None else None
    if wrapper is None or command is None or command.url is None:
        return None
    args = [w.value for w in call[1:]]
    used: set[int] = set()
    url = expand_variables(command.url.value, document, wrapper.command, args, used)
    method = _method(command, document, wrapper.command, args)
    if not method:
        return None
    site = _Answer(method, tidy_url(url), line, column, language)
    for index in used:
        if index + 1 < len(call) and site.on(call[index + 1]):
            return site.on_url(call[index + 1])
    for option, word in command.data:
        read: set[int] = set()
        expand_variables(word.value, document, wrapper.command, args, read)
        for index in read:
            if index + 1 < len(call) and site.on(call[index + 1]):
                return site.on_data(call[index + 1], QUERY if command.get else BODY, option)
    return None


def _method(
    command: _Command, document: Document, line: int, positional: list[str] | None = None
) -> str:
    """The method a command sends: its ``-X`` word (through a variable set above it, or a
    wrapper's argument: `positional`, ``api GET /rest/2.0/x``) or the one its options imply; ""
    when a variable's value cannot be seen."""
    method = command.method
    if "$" in method:
        method = expand_variables(method, document, line, positional).strip("\"'")
    if not method:
        return _implied_method(command)
    return method.upper() if method.isalpha() else ""


def _implied_method(command: _Command) -> str:
    if command.head:
        return "HEAD"
    if command.get:
        return "GET"
    if command.data:
        return "POST"
    return "PUT" if command.upload else "GET"


# --- the command under the cursor ---------------------------------------------------------------


def _split(document: Document, first: int) -> tuple[list[_Word], int]:
    """Shell words of the command starting on line `first`, quotes removed, each character's
    position kept, and the command's last line. A command goes on past a line ending in a
    backslash or inside an open quote (a JSON body written over several lines)."""
    words: list[_Word] = []
    current: _Word | None = None
    budget = _MAX_CHARS
    quote = ""
    number = first
    while number < document.line_count and number - first < _MAX_LINES and budget > 0:
        text = document.line(number).rstrip("\r")[:budget]
        budget -= len(text)
        i, n = 0, len(text)
        while i < n:
            ch = text[i]
            if not quote and ch in " \t":
                current = None
            elif not quote and ch in ")`":
                # the end of a substitution (``TOKEN=$(curl ... "$URL")``): no part of a word
                current = None
                words.append(_Word(")", [(number, i)]))
            elif not quote and ch == "#" and current is None:
                break  # a comment runs to the end of the line
            else:
                if current is None:
                    current = _Word()
                    words.append(current)
                if quote and ch == quote:
                    quote = ""
                elif not quote and ch in "'\"":
                    quote = ch
                elif (
                    ch == "\\"
                    and i + 1 < n
                    and (not quote or (quote == '"' and text[i + 1] in '"\\$`'))
                ):
                    i += 1
                    current.value += text[i]
                    current.at.append((number, i))
                else:
                    current.value += ch
                    current.at.append((number, i))
            i += 1
        # A backslash ending the line outside quotes (``}' \``, after a quote the line closed
        # too) goes on to the next line.
        continued = not quote and _ends_with_backslash(words, number, n)
        if quote and current is not None:
            current.value += "\n"
            current.at.append((number, n))
        elif not continued:
            return words, number
        else:
            current = None
        number += 1
    return words, number - 1


def _ends_with_backslash(words: list[_Word], number: int, n: int) -> bool:
    """Whether line `number` (`n` characters) ends in a bare backslash, the last character of the
    last word: it is taken off that word (the word too, when nothing else is in it)."""
    last = words[-1] if words else None
    if last is None or not last.at or last.at[-1] != (number, n - 1) or last.value[-1:] != "\\":
        return False
    last.value = last.value[:-1]
    last.at.pop()
    if not last.value:
        words.pop()
    return True


def _tool(words: list[_Word], i: int) -> str:
    """The HTTP tool `words[i]` runs (curl, wget, http, https), else "". HTTPie's ``http`` counts
    only where a command starts: as a later word it is anything's argument."""
    name = _SUBSTITUTED.split(words[i].value)[-1].rsplit("/", 1)[-1]
    if name in ("curl", "wget"):
        return name
    if name in ("http", "https"):
        starts = i == 0 or words[i - 1].value in _SEPARATORS or words[i].value.startswith("$(")
        return name if starts else ""
    return ""


def _parse(words: list[_Word]) -> _Command | None:
    start = next((i for i in range(len(words)) if _tool(words, i)), None)
    if start is None:
        return None
    tool = _tool(words, start)
    if tool == "wget":
        return parse_wget(words, start, _SEPARATORS)
    if tool in ("http", "https"):
        return parse_httpie(words, start, _SEPARATORS)
    word = words[start]
    cut = len(word.value) - len(_SUBSTITUTED.split(word.value)[-1])
    command = _Command(curl=_tail(word, cut) if cut else word)  # ``TOKEN=$(curl``: its curl
    i = start + 1
    while i < len(words):
        word = words[i]
        value = word.value
        if value in _SEPARATORS:
            break
        nxt = words[i + 1] if i + 1 < len(words) else None
        if value.startswith("--") and len(value) > 2:
            name, eq, attached = value[2:].partition("=")
            if name in _LONG_WITH_VALUE:
                arg = _tail(word, len(name) + 3) if eq else nxt
                _option(command, name, arg)
                i += 1 if eq else 2
                continue
            command.get |= name == "get"
            command.head |= name == "head"
        elif value.startswith("-") and len(value) > 1:
            for k, flag in enumerate(value[1:], start=1):
                if flag in _TAKES_VALUE:
                    attached = k + 1 < len(value)
                    arg = _tail(word, k + 1) if attached else nxt
                    _option(command, flag, arg)
                    i += 0 if attached else 1
                    break
                command.get |= flag == "G"
                command.head |= flag == "I"
        elif command.url is None and not _SPREAD.match(value):
            command.url = word
        i += 1
    return command


def _option(command: _Command, name: str, arg: _Word | None) -> None:
    if arg is None:
        return
    if name in ("X", "request"):
        command.method, command.method_word = arg.value, arg
    elif name in ("H", "header"):
        command.headers.append(arg)
    elif name in _DATA_SHORT or name in _DATA_LONG:
        command.data.append((name, arg))
    elif name == "url":
        command.url = arg
    elif name in ("T", "upload-file"):
        command.upload = True


# --- the answer ---------------------------------------------------------------------------------


class _Answer:
    def __init__(self, method: str, url: str, line: int, column: int, language: str) -> None:
        self.method, self.url = method, url
        self.line, self.column, self.language = line, column, language

    def index(self, word: _Word) -> int:
        """The cursor's index in `word`'s value, -1 when it is not on it."""
        for k, at in enumerate(word.at):
            if at == (self.line, self.column):
                return k
        if word.at and word.at[-1] == (self.line, self.column - 1):
            return len(word.at)  # just after the word, as on a closing quote
        return -1

    def on(self, word: _Word) -> bool:
        return self.index(word) >= 0

    def span(self, word: _Word, start: int, end: int) -> tuple[int, int]:
        cols = [c for (ln, c) in word.at[start:end] if ln == self.line]
        return (cols[0], cols[-1] + 1) if cols else (self.column, self.column)

    def make(
        self, role: str, name: str, start: int, end: int, keys: tuple[str, ...] = ()
    ) -> CallSite:
        return CallSite(
            method=self.method,
            url=self.url,
            role=role,
            name=name,
            start=start,
            end=end,
            client=HTTP,
            language=self.language,
            path_keys=keys,
        )

    def on_url(self, word: _Word) -> CallSite:
        query = query_key_at(word.value, self.index(word))
        if query is not None:
            return self.make(QUERY, word.value[query[0] : query[1]], *self.span(word, *query))
        return self.make(ENDPOINT, "", *self.span(word, 0, len(word.value)))

    def on_item(self, word: _Word, option: str, command: _Command) -> CallSite | None:
        """An HTTPie request item: its key, beside the keys of the items of the same kind."""
        bounds = item_key(word)
        if bounds is None or self.index(word) > bounds[1]:
            return None
        keys: dict[str, None] = {}
        for other, mate in command.data:
            found = item_key(mate) if other == option else None
            if found is not None:
                keys[mate.value[: found[1]]] = None
        role = QUERY if option == QUERY_ITEM else BODY
        return self.make(role, word.value[: bounds[1]], *self.span(word, *bounds), tuple(keys))

    def on_data(self, word: _Word, role: str, option: str) -> CallSite | None:
        index = self.index(word)
        text = word.value
        if text.lstrip().startswith(("{", "[")):
            found = json_key_at(text, index)
            if found is None:
                return None
            start, end, keys, nested = found
            site = self.make(
                BODY if option != "data-urlencode" else role,
                text[start:end],
                *self.span(word, start, end),
                keys,
            )
            return replace(site, nested=nested, complete=not nested and is_json(text))
        if text.startswith("@"):
            return None
        start = max(text.rfind("&", 0, index), -1) + 1
        end = start
        while end < len(text) and text[end] not in "=&":
            end += 1
        if not start <= index <= end or end == start or not _FORM_KEY.match(text[start:end]):
            return None  # ``-d "$BODY"``: a variable's value, not a key named "$BODY"
        keys = tuple(part.split("=", 1)[0] for part in text.split("&") if part)
        return self.make(role, text[start:end], *self.span(word, start, end), keys)
