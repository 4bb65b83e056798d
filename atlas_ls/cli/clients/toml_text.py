"""Codex's `config.toml`: the `[mcp_servers.atlas]` table is written as text, so every other table,
comment and blank line of the file stays byte for byte as it was.

The standard library reads TOML (tomllib) but does not write it. The entry holds only strings,
arrays and small tables, which `value` below writes; the result is read back before it is saved.
"""

from __future__ import annotations

import json
import re
import tomllib
from datetime import date, datetime, time
from typing import Any

from atlas_core.errors import ConfigError
from atlas_ls.cli.clients import limits

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
# A table or array-of-tables header on a line of its own (a nested array inside a multi-line value
# starts with `[` too, but is followed by a comma or more values). A line ends at "\n" or, in a
# Windows file, at "\r\n": `$` alone stops before the "\n", so the "\r" is matched explicitly.
_ANY_HEADER = re.compile(r"^[ \t]*\[\[?[^\[\]\r\n]+\]\]?[ \t]*(?:#[^\r\n]*)?\r?$", re.MULTILINE)
# A dotted key of more parts than a config may nest, at the start of a line or a header or after
# `{` or `,` (inline tables): tomllib builds it without recursing but takes time that grows with
# the square of its parts, so it is refused before tomllib sees it.
_PART = r"""(?:[A-Za-z0-9_-]++|"[^"\\\r\n]*+(?:\\.[^"\\\r\n]*+)*+"|'[^'\r\n]*+')"""
_DEEP_KEY = re.compile(
    rf"(?:^|[{{,])[ \t]*+\[*+[ \t]*+{_PART}(?:[ \t]*+\.[ \t]*+{_PART}){{{limits.MAX_DEPTH}}}",
    re.MULTILINE,
)


def _header(table: str, name: str) -> re.Pattern[str]:
    quoted = rf"(?:{re.escape(name)}|\"{re.escape(name)}\"|'{re.escape(name)}')"
    return re.compile(
        rf"^[ \t]*\[[ \t]*{re.escape(table)}[ \t]*\.[ \t]*{quoted}[ \t]*\]"
        r"[ \t]*(?:#[^\r\n]*)?\r?$",
        re.MULTILINE,
    )


def key(name: str) -> str:
    return name if _BARE_KEY.fullmatch(name) else json.dumps(name, ensure_ascii=False)


def value(item: Any) -> str:
    """One TOML value on one line (JSON's string escapes are a subset of TOML's basic strings)."""
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, int | float):
        return repr(item)
    if isinstance(item, str):
        return json.dumps(item, ensure_ascii=False)
    if isinstance(item, datetime | date | time):
        return item.isoformat()
    if isinstance(item, list):
        return "[" + ", ".join(value(v) for v in item) + "]"
    if isinstance(item, dict):
        if not item:
            return "{}"
        return "{ " + ", ".join(f"{key(k)} = {value(v)}" for k, v in item.items()) + " }"
    raise TypeError(f"no TOML form for {type(item).__name__}")


def read(text: str, *, where: str) -> dict[str, Any]:
    """The parsed file; a ConfigError naming the file, or limits.LimitError past the limits."""
    deep = _DEEP_KEY.search(text)
    if deep:
        raise limits.too_deep(text.count("\n", 0, deep.start()) + 1)
    try:
        return tomllib.loads(text)
    except RecursionError:  # arrays or inline tables inside one another, read recursively
        raise limits.too_deep() from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"{where} is not valid TOML: {exc}",
            hint="fix the file by hand (Codex cannot read it either), then run atlas setup again",
            path=where,
        ) from None
    except ValueError as exc:  # int() past sys.get_int_max_str_digits, the one other ValueError
        digits = re.search(r"has (\d+) digits", str(exc))
        raise limits.number_too_long(int(digits.group(1)) if digits else 0) from None


def set_entry(text: str, table: str, name: str, entry: dict[str, Any], *, where: str) -> str:
    """`text` with `[table.name]` holding `entry`; other tables untouched.

    A table written any other way (an inline table, dotted keys) is left to the user: the edit
    cannot replace it without rewriting text it does not own.
    """
    body = "".join(f"{key(k)} = {value(v)}\n" for k, v in entry.items() if not isinstance(v, dict))
    match = _header(table, name).search(text)
    if match is None:
        data = read(text, where=where)
        if isinstance(data.get(table), dict) and name in data[table]:
            raise ConfigError(
                f"{where} defines {table}.{name} in a form atlas setup does not edit "
                "(an inline table or dotted keys)",
                hint=f"replace it by hand with a [{table}.{name}] table, or remove it and run "
                "atlas setup again",
                path=where,
            )
        lead = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
        return f"{text}{lead}[{table}.{name}]\n{body}"
    start = match.end() + 1 if match.end() < len(text) else len(text)
    following = _ANY_HEADER.search(text, start)
    end = following.start() if following else len(text)
    old_body = text[start:end]
    trailing = old_body[len(old_body.rstrip()) :]
    kept_blank = trailing.split("\n", 1)[1] if "\n" in trailing else ""
    # Subtables such as [mcp_servers.atlas.env] follow the body and stay; keys set in the body
    # itself that atlas does not manage are written back.
    try:
        own = tomllib.loads(old_body) if old_body.strip() else {}
    except tomllib.TOMLDecodeError:
        raise ConfigError(
            f"atlas setup could not find where [{table}.{name}] ends in {where}; "
            "it was left unchanged",
            hint=f"edit the [{table}.{name}] table by hand",
            path=where,
        ) from None
    merged = {k: entry[k] for k in entry if k in own or not isinstance(entry[k], dict)}
    body = "".join(f"{key(k)} = {value(v)}\n" for k, v in merged.items())
    if start == len(text) and not text.endswith("\n"):
        body = "\n" + body
    return text[:start] + body + (kept_blank if following else "") + text[end:]
