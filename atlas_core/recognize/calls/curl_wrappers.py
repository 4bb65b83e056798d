"""Shell variables in a command's URL, and shell functions that wrap an HTTP command::

    api_get() {
      local path="$1"
      curl -sf -H "Accept: application/json" "${BASE_URL}${path}"
    }
    api_get "/rest/2.0/assets?limit=10"

A call of such a function (`api_get "/rest/2.0/..."`) is the request its command makes with the
call's words as the positional parameters (``$1``, ``${2}``, and locals assigned from them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from atlas_core.recognize.calls.site import UNKNOWN
from atlas_core.syntax import Document

# A line where an HTTP command may start.
COMMAND_WORD = re.compile(r"(?:^|[\s;|&(`])(?:curl|wget|https?)(?=\s)")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*|\d+)[^}]*\}|\$([A-Za-z_][A-Za-z0-9_]*|\d)")
_SUBSTITUTION = re.compile(r"\$\([^()]*\)|`[^`]*`")
# `name() {`, `function name {`, `function name() {`, or a one-line body (group 3):
# `name() { curl ... "$1"; }`
_DEFINITION = re.compile(
    r"^\s*(?:function\s+([A-Za-z_][\w:.-]*)\s*(?:\(\s*\))?|([A-Za-z_][\w:.-]*)\s*\(\s*\))"
    r"\s*(?:\{?\s*(?:#.*)?|\{(\s.*\S)\s*\}\s*;?\s*(?:#.*)?)$"
)
# A declaration that may assign several names (`local method=$1 path=$2`), and one of them.
_DECLARATION = re.compile(r"^\s*(?:export|local|readonly|declare(?:\s+-\w+)?)\s+")
_ASSIGNED = re.compile(r"\s*([A-Za-z_]\w*)=(\"[^\"]*\"|'[^']*'|[^\s;]*)")
_MAX_FUNCTIONS = 64  # wrapper functions of one script
_MAX_BODY = 80  # lines from a function's name to the HTTP command it runs
_MAX_BACK = 500  # lines searched upwards for a variable's assignment
_MAX_DEPTH = 3  # variables expanded through variables


@dataclass(frozen=True, slots=True)
class Wrapper:
    """A shell function whose body runs an HTTP command."""

    name: str
    start: int  # the line that defines it
    command: int  # the line its HTTP command starts on


_cache: tuple[str, dict[str, Wrapper]] | None = None  # the last script's wrappers


def shell_wrappers(document: Document) -> dict[str, Wrapper]:
    """The functions of a script that run curl, wget or HTTPie, by name."""
    global _cache
    text = document.text
    if _cache is not None and _cache[0] is text:
        return _cache[1]
    found: dict[str, Wrapper] = {}
    if "(" in text or "function" in text:
        for number in range(document.line_count):
            m = _DEFINITION.match(document.line(number))
            if m is None:
                continue
            name = m.group(1) or m.group(2)
            if COMMAND_WORD.search(m.group(3) or ""):
                found[name] = Wrapper(name, number, number)  # `api() { curl ... "$1"; }`
                continue
            for inner in range(number + 1, min(number + _MAX_BODY, document.line_count)):
                body = document.line(inner)
                if body.startswith("}") or _DEFINITION.match(body):
                    break  # the function ended before running a command
                if COMMAND_WORD.search(body):
                    found[name] = Wrapper(name, number, inner)
                    break
            if len(found) >= _MAX_FUNCTIONS:
                break
    _cache = (text, found)
    return found


def expand_variables(
    url: str,
    document: Document,
    before: int,
    positional: list[str] | None = None,
    used: set[int] | None = None,
    depth: int = 0,
) -> str:
    """Shell variables in a URL, through ``NAME=value`` assignments above the command (and
    ``local``/``export`` ones); ``$1``... are `positional` where a wrapper's call gives them,
    their indices added to `used`."""

    def value(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        if depth > _MAX_DEPTH or (m.group(0).startswith("${") and m.group(0) != "${" + name + "}"):
            return UNKNOWN  # ${NAME:-default} and the like: whatever the environment says
        if name.isdigit():
            index = int(name) - 1
            if positional is None or not 0 <= index < len(positional):
                return UNKNOWN  # a function's or the script's argument
            if used is not None:
                used.add(index)
            return expand_variables(positional[index], document, before, None, None, depth + 1)
        assigned = _assignment(document, name, before)
        assigned = _SUBSTITUTION.sub(UNKNOWN, assigned)  # a command's output
        if "$(" in assigned or "`" in assigned or not assigned:
            return UNKNOWN
        return expand_variables(assigned, document, before, positional, used, depth + 1)

    return _VARIABLE.sub(value, url)


def _assignment(document: Document, name: str, before: int) -> str:
    pattern = re.compile(
        rf"^\s*(?:export\s+|local\s+|readonly\s+|declare\s+(?:-\w+\s+)?)?{re.escape(name)}=(.*)$"
    )
    for number in range(before - 1, max(before - _MAX_BACK, -1), -1):
        line = document.line(number)
        declared = _DECLARATION.match(line)
        if declared is not None and f"{name}=" in line:
            # `local method=$1 path=$2`: one of several names a declaration assigns
            word = _ASSIGNED.match(line, declared.end())
            while word is not None:
                if word.group(1) == name:
                    return word.group(2).strip("\"'")
                word = _ASSIGNED.match(line, word.end())
        m = pattern.match(line)
        if m:
            return m.group(1).strip().strip("\"'")
    return ""
