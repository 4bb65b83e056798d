"""The other HTTP command lines of shell scripts: ``wget`` and HTTPie (``http``/``https``), read
into the same command `curl` reads (method, URL word, data words, headers).

HTTPie's request items carry the keys: ``name=x`` and ``domainId:=1`` are body keys (a JSON
body), ``name==x`` a query parameter, ``Accept:x`` a header; any data item makes the default
method POST.
"""

from __future__ import annotations

import re

from atlas_core.recognize.calls.curl_words import Command, Word, tail

# wget's short options that take the next word (``-O file``, ``-U agent``).
_WGET_SHORT_VALUE = frozenset("OoaUtTPeiBwQDAlRIX")
_WGET_LONG_VALUE = frozenset(
    {
        "method",
        "post-data",
        "post-file",
        "body-data",
        "body-file",
        "header",
        "output-document",
        "output-file",
        "user",
        "password",
        "http-user",
        "http-password",
        "user-agent",
        "tries",
        "timeout",
        "directory-prefix",
        "load-cookies",
        "save-cookies",
        "ca-certificate",
        "certificate",
        "private-key",
    }
)
_WGET_DATA = frozenset({"post-data", "body-data"})
# HTTPie's options that take the next word (``-a user:pw``, ``--auth-type bearer``).
_HTTPIE_VALUE = frozenset(
    {
        "-a",
        "--auth",
        "-A",
        "--auth-type",
        "-o",
        "--output",
        "--session",
        "--session-read-only",
        "--verify",
        "--cert",
        "--cert-key",
        "--timeout",
        "--proxy",
        "--pretty",
        "-s",
        "--style",
        "-p",
        "--print",
        "--format-options",
        "--max-redirects",
    }
)
_HTTPIE_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"})
# A request item: the key, then its separator (query ``==``, raw JSON ``:=``, file ``@``,
# string ``=``, header ``:``).
_ITEM = re.compile(r"^([A-Za-z_][\w.\-\[\]]*)(==|:=@|:=|=@|@|=|:)")
QUERY_ITEM = "httpie-query"
BODY_ITEM = "httpie-body"


def parse_wget(words: list[Word], start: int, separators: frozenset[str]) -> Command:
    """The wget command whose word ``wget`` is `words[start]`."""
    command = Command(curl=words[start])
    i = start + 1
    while i < len(words):
        word = words[i]
        value = word.value
        if value in separators:
            break
        nxt = words[i + 1] if i + 1 < len(words) else None
        if value.startswith("--") and len(value) > 2:
            name, eq, _ = value[2:].partition("=")
            if name in _WGET_LONG_VALUE:
                arg = tail(word, len(name) + 3) if eq else nxt
                _wget_option(command, name, arg)
                i += 1 if eq else 2
                continue
        elif value.startswith("-") and len(value) > 1:
            if value[-1] in _WGET_SHORT_VALUE and len(value) == 2:
                i += 2
                continue
        elif command.url is None:
            command.url = word
        i += 1
    if not command.method and (command.data or command.upload):
        command.method = "POST"
    return command


def _wget_option(command: Command, name: str, arg: Word | None) -> None:
    if arg is None:
        return
    if name == "method":
        command.method, command.method_word = arg.value, arg
    elif name == "header":
        command.headers.append(arg)
    elif name in _WGET_DATA:
        command.data.append(("data", arg))
    elif name in ("post-file", "body-file"):
        command.upload = True


def parse_httpie(words: list[Word], start: int, separators: frozenset[str]) -> Command:
    """The HTTPie command whose word ``http`` or ``https`` is `words[start]`: options, an
    optional method, the URL, then request items."""
    command = Command(curl=words[start])
    scheme = "https://" if words[start].value.endswith("https") else "http://"
    i = start + 1
    while i < len(words):
        word = words[i]
        value = word.value
        if value in separators:
            break
        if value.startswith("-") and command.url is None:
            name = value.partition("=")[0]
            i += 2 if name in _HTTPIE_VALUE and "=" not in value else 1
            continue
        if command.url is None:
            if value.upper() in _HTTPIE_METHODS and value.isalpha() and not command.method:
                command.method, command.method_word = value.upper(), word
            else:
                command.url = _with_scheme(word, scheme)
        else:
            m = _ITEM.match(value)
            if m is not None and m.group(2) == "==":
                command.data.append((QUERY_ITEM, word))
            elif m is not None and m.group(2) in ("=", ":=", "=@", ":=@"):
                command.data.append((BODY_ITEM, word))
            elif m is not None and m.group(2) == ":":
                command.headers.append(word)
        i += 1
    if not command.method:
        command.method = "POST" if any(o == BODY_ITEM for o, _ in command.data) else "GET"
    return command


def _with_scheme(word: Word, scheme: str) -> Word:
    """HTTPie's shorthand URLs (``:8080/x`` is localhost, a bare host takes the scheme)."""
    value = word.value
    if value.startswith(("http://", "https://", "$")) or "://" in value:
        return word
    prefix = f"{scheme}localhost" if value.startswith(":") else scheme
    return Word(prefix + value, [word.at[0]] * len(prefix) + word.at) if word.at else word


def item_key(word: Word) -> tuple[int, int] | None:
    """The bounds of an HTTPie request item's key in `word`."""
    m = _ITEM.match(word.value)
    return (0, m.end(1)) if m is not None else None
