"""What a document scan keeps, and where it asks: a `Located` call site with the literal value
written for its key, the offsets worth asking the reader about in a captured string (`probes`),
and the filter that keeps real HTTP calls' sites (`keep`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from atlas_core.recognize.calls.site import BODY, ENDPOINT, HTTP, OPERATION, QUERY, SDK, CallSite
from atlas_core.syntax import Document

if TYPE_CHECKING:
    from tree_sitter import Node

# `${config.apiUrl}communities`: a base URL (ending in its slash) and a path with none.
_BASE_FIRST = re.compile(rb"`\$\{[^}]*\}[A-Za-z]")
_KEY_PARENTS = frozenset({"pair", "subscript", "map_item"})
_CONTENT = frozenset({"string_content", "string_fragment", "multiline_string_fragment"})
# A query string's key (``?name=``, ``&limit=``), in a document's bytes.
_QUERY_KEY_BYTES = re.compile(rb"[?&]([A-Za-z_][\w.\-\[\]]*)=")
# What follows a key's name on its line: the closing quote, ``:`` or ``=`` (``=>``), and a quoted
# value (group 2, its quote group 1), or the first of a list of them. A query-string key's value
# runs to the next ``&``.
_VALUE_AFTER = re.compile(r"""["'`]?\s*(?::|=>?)\s*(?:\[\s*)?(["'`])((?:(?!\1)[^\\\n]){0,200})\1""")
_QUERY_VALUE = re.compile(r"=([^&#\"'`\s{}$]{0,200})")


@dataclass(frozen=True, slots=True)
class Located:
    """A call site and the line it is on; for a key, the literal value written for it there."""

    line: int
    site: CallSite
    value: str = ""
    value_start: int = 0  # columns of `value` on `line` (0, 0 when there is none)
    value_end: int = 0
    # False for a request line in markdown prose: it describes a request, read for hover and
    # go-to-doc, but sends none, so the checks do not judge it.
    checked: bool = True


def probes(document: Document, node: Node) -> list[int]:
    """Byte offsets to ask about in one captured node: its first character of content; in a
    URL with a query string, each key of it too."""
    parent = node.parent
    is_key = parent is not None and parent.type in _KEY_PARENTS
    if node.type in ("property_identifier", "identifier", "shorthand_property_identifier"):
        return [node.start_byte]
    content = next((c for c in node.children if c.type in _CONTENT), None)
    start = content.start_byte if content is not None else node.start_byte + 1
    if is_key:
        return [start]
    data = document.data
    if (
        data.find(b"/", node.start_byte, node.end_byte) < 0
        and not _BASE_FIRST.match(data, node.start_byte, node.end_byte)
        and not _is_segment(document, node)
        and not _is_first_word(document, node, content)
        and not _is_glued_word(document, node, content)
    ):
        return _pathless_keys(document, node, start)
    keys = _QUERY_KEY_BYTES.finditer(data, node.start_byte, node.end_byte)
    return [start, *(m.start(1) for m in keys)]


def _pathless_keys(document: Document, node: Node, start: int) -> list[int]:
    """Query keys in a string with no path: a query string continued (``"&limit=" + n``,
    ``url += "?name=" + q``), or the name a JavaScript builder sets (``params.set("name", v)``,
    ``url.searchParams.append("name", v)``); the reader says which reach a call."""
    arguments = node.parent
    call = arguments.parent if arguments is not None else None
    function = call.child_by_field_name("function") if call is not None else None
    setter = function.child_by_field_name("property") if function is not None else None
    if (
        setter is not None
        and document.data[setter.start_byte : setter.end_byte] in (b"set", b"append")
        and arguments is not None
        and arguments.named_children[0].id == node.id
    ):
        return [start]
    keys = _QUERY_KEY_BYTES.finditer(document.data, node.start_byte, node.end_byte)
    return [m.start(1) for m in keys]


# Java methods whose string arguments are URL words without a slash: JAX-RS's
# ``target(base).path("assets")``, query keys (Spring's ``queryParam("name", n)``, Apache's
# ``addParameter``, OkHttp's ``addQueryParameter``), OkHttp's path segments, and a body map's keys
# (``Map.of("name", n)``, ``body.put("name", n)``); the reader says which reach a call.
_WORD_METHODS = frozenset(
    {
        b"path",
        b"of",
        b"put",
        b"queryParam",
        b"addParameter",
        b"setParameter",
        b"addQueryParameter",
        b"addEncodedQueryParameter",
        b"setQueryParameter",
        b"addPathSegment",
        b"addPathSegments",
    }
)


# A lone word: what a wrapper's path argument may be when the wrapper adds the slash itself;
# looked for among a call's first few arguments (``get(session, "assets", params)``).
_WORD = re.compile(rb"[A-Za-z][\w-]{1,63}")
_WORD_ARGUMENTS = 3


def _is_first_word(document: Document, node: Node, content: Node | None) -> bool:
    """A Python or JavaScript string of one word (perhaps with a query string, perhaps the start
    of a sum) among the first arguments of a call, or a Python keyword argument's: the path a
    wrapper joins to its base (``self._get("communities", params=p)`` on
    ``f"{base}/rest/2.0/{endpoint}"``); the reader says whether it reaches a request."""
    arguments = node.parent
    if node.type not in ("string", "template_string") or content is None or arguments is None:
        return False
    if arguments.type in ("binary_operator", "binary_expression") and arguments.children[0] == node:
        # ``"comments?baseResourceId=" + id``: the argument is the sum the word starts
        node, arguments = arguments, arguments.parent
        if arguments is None:
            return False
    if arguments.type == "keyword_argument":  # Python's ``self._get(endpoint="communities")``
        word = _WORD.fullmatch(document.data, content.start_byte, content.end_byte)
        return arguments.child_by_field_name("value") == node and word is not None
    if arguments.type not in ("argument_list", "arguments"):  # Python's, JavaScript's
        return False
    leading = arguments.named_children[:_WORD_ARGUMENTS]
    return any(a.id == node.id for a in leading) and (
        _GLUED.fullmatch(document.data, content.start_byte, content.end_byte) is not None
    )


# A word, then perhaps a query string: ``base + "userGroups?userId=" + uid``.
_GLUED = re.compile(rb"[A-Za-z][\w-]{1,63}(?:\?[^/]*)?")


def _is_glued_word(document: Document, node: Node, content: Node | None) -> bool:
    """A Python or JavaScript string of one word (and perhaps a query string) added to what comes
    before it: a path joined to a base that ends in its slash (``self.url_base +
    "userGroups?userId=" + uid``); the reader says whether it reaches a request."""
    parent = node.parent
    if (
        content is None
        or parent is None
        or parent.type not in ("binary_operator", "binary_expression")
    ):
        return False
    if parent.child_by_field_name("right") != node:
        return False
    return _GLUED.fullmatch(document.data, content.start_byte, content.end_byte) is not None


def _is_segment(document: Document, node: Node) -> bool:
    """A string argument of a Java method of `_WORD_METHODS`, or of Retrofit's ``@Query``; a
    word of a JavaScript array joined into a URL (``[BASE, "rest", "2.0", "assets"].join("/")``)."""
    arguments = node.parent
    call = arguments.parent if arguments is not None else None
    if arguments is not None and arguments.type == "array":
        # its first word only: one site per call, as for a URL written whole
        first = next((c for c in arguments.named_children if c.type == "string"), None)
        joins = call.child_by_field_name("property") if call is not None else None
        return (
            first is not None
            and first.id == node.id
            and joins is not None
            and document.data[joins.start_byte : joins.end_byte] == b"join"
        )
    if call is not None and call.type == "annotation":
        name = call.child_by_field_name("name")
        return name is not None and document.data[name.start_byte : name.end_byte] == b"Query"
    if call is None or call.type != "method_invocation":
        return False
    name = call.child_by_field_name("name")
    return name is not None and document.data[name.start_byte : name.end_byte] in _WORD_METHODS


def keep(
    found: dict[tuple[int, int, int, str, str], Located],
    document: Document,
    line: int,
    site: CallSite | None,
    *,
    sdk: bool = False,
) -> Located | None:
    """Record a site the reader answered, when it is a real HTTP call's (or, for a `sdk`
    capture, a generated client's operation or parameter) and new."""
    if site is None or site.loose:
        return None
    if sdk:
        if site.client != SDK or not site.operation or site.role not in (OPERATION, QUERY, BODY):
            return None
    elif site.client != HTTP or site.role not in (ENDPOINT, QUERY, BODY):
        return None
    key = (line, site.start, site.end, site.role, site.name)
    if key in found:
        return None
    item = found[key] = with_value(document.line(line), line, site)
    return item


def with_value(text: str, line: int, site: CallSite) -> Located:
    if site.role == ENDPOINT or not site.name:
        return Located(line, site)
    after = text[site.end : site.end + 400]
    m = _QUERY_VALUE.match(after) if text[site.start - 1 : site.start] in "?&" else None
    if m is not None and site.role == QUERY:
        return Located(line, site, m.group(1), site.end + m.start(1), site.end + m.end(1))
    m = _VALUE_AFTER.match(after)
    if m is None:
        return Located(line, site)
    return Located(line, site, m.group(2), site.end + m.start(2), site.end + m.end(2))
