"""What every syntax-tree reader shares: the cursor, node text, columns on the cursor's line, and
finding a name's definitions and uses by text first and by tree second."""

from __future__ import annotations

import bisect
import importlib
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from atlas_core.recognize.calls.site import (
    ENDPOINT,
    HTTP,
    OPERATION,
    PATH,
    QUERY,
    SDK,
    CallSite,
    query_key_at,
    tidy_url,
)
from atlas_core.recognize.text_scan import find_path, method_hint
from atlas_core.syntax import Document, occurrences

if TYPE_CHECKING:
    from tree_sitter import Node

T = TypeVar("T")

# How far a value is followed through names (`url = f"{API}/x"`, `API = BASE + "/rest/2.0"`, ...).
MAX_DEPTH = 8


class TreeReader:
    """One read of one cursor position. Subclasses know one language's node types."""

    def __init__(
        self,
        document: Document,
        root: Node,
        language: str,
        line: int,
        offset: int,
        *,
        memo: NameMemo | None = None,
    ) -> None:
        self.memo = memo
        self.document = document
        self.language = language
        self.root = root
        self.data = document.data
        self.line = line
        self.offset = offset

    def read(self) -> CallSite | None:
        """The call site at the cursor; each language's reader answers."""
        raise NotImplementedError

    def text(self, node: Node | None) -> str:
        if node is None:
            return ""
        return self.document.text_between(node.start_byte, node.end_byte)

    def node_at(self, offset: int) -> Node | None:
        return self.root.named_descendant_for_byte_range(offset, offset)

    def columns(self, start_byte: int, end_byte: int) -> tuple[int, int]:
        return self.document.columns_on_line(start_byte, end_byte, self.line)

    def site(
        self,
        *,
        method: str,
        url: str,
        role: str,
        name: str,
        span: tuple[int, int],
        client: str,
        operation: str = "",
        keys: tuple[str, ...] = (),
        nested: bool = False,
        complete: bool = False,
    ) -> CallSite:
        start, end = self.columns(*span)
        return CallSite(
            method=method.upper(),
            url=tidy_url(url) if url else "",
            role=role,
            name=name,
            start=start,
            end=end,
            client=client,
            language=self.language,
            operation=operation,
            path_keys=keys,
            nested=nested,
            complete=complete,
        )

    def operation_site(self, operation: str, span: tuple[int, int]) -> CallSite:
        """The cursor on a generated client's method, `operation`, written at `span`."""
        return self.site(
            method="",
            url="",
            role=OPERATION,
            name=operation,
            span=span,
            client=SDK,
            operation=operation,
        )

    def key_site(
        self,
        role: str,
        name: str,
        span: tuple[int, int],
        keys: tuple[str, ...],
        *,
        http: tuple[str, str] | None,
        operation: str,
        nested: bool = False,
        complete: bool = False,
    ) -> CallSite:
        """A key of a call's query or body: of an HTTP call (`http`: its method and URL), else of
        the client method `operation`."""
        if http is not None:
            method, url = http
            return self.site(
                method=method,
                url=url,
                role=role,
                name=name,
                span=span,
                client=HTTP,
                keys=keys,
                nested=nested,
                complete=complete,
            )
        return self.site(
            method="",
            url="",
            role=role,
            name=name,
            span=span,
            client=SDK,
            operation=operation,
            keys=keys,
        )

    def loose_string_site(
        self, content: str, span: tuple[int, int], string: Node
    ) -> CallSite | None:
        """A code string (its `content`, at `span`) holding a REST path that no recognised call
        takes: the text reader's answer, for clients written in ways this reader does not know."""
        match = find_path(content)
        if match is None or ("/" not in match.raw[1:] and "rest" not in content):
            return None
        line = self.document.line(self.line)
        start, _ = self.columns(string.start_byte, string.end_byte)
        method = method_hint([line[:start]], line[start:], line)
        site = self.site(method=method, url=content, role=ENDPOINT, name="", span=span, client=HTTP)
        return replace(site, loose=True)

    def url_site(
        self,
        node: Node,
        method: str,
        url: str,
        *,
        literal: tuple[int, int] | None,
        leftmost: bool,
    ) -> CallSite:
        """The answer for a cursor on part of a call's URL expression.

        On a string literal (`literal` is its content span): a key of its query string, else the
        endpoint. On a name in the expression: the endpoint when the name starts it (the base
        URL), else a path parameter named as the code names it.
        """
        if literal is not None:
            text = self.text(node)
            query = query_key_at(text, self.offset - node.start_byte)
            if query is not None:
                start, end = query
                span = (node.start_byte + start, node.start_byte + end)
                name = text[start:end]
                return self.site(
                    method=method, url=url, role=QUERY, name=name, span=span, client=HTTP
                )
            return self.site(
                method=method, url=url, role=ENDPOINT, name="", span=literal, client=HTTP
            )
        role, name = (ENDPOINT, "") if leftmost else (PATH, self.text(node))
        span = (node.start_byte, node.end_byte)
        return self.site(method=method, url=url, role=role, name=name, span=span, client=HTTP)

    def named_nodes(
        self,
        name: str,
        start: int,
        end: int,
        accept: Callable[[Node], bool],
        *,
        reverse: bool = False,
        limit: int = 64,
    ) -> Iterator[Node]:
        """Nodes spelling `name` in ``[start, end)`` that `accept` takes, nearest first when
        `reverse`."""
        if self.memo is not None:
            yield from self.memo.nodes(self, name, accept, start, end, reverse, limit)
            return
        for pos in occurrences(self.data, name, start, end, reverse=reverse, limit=limit):
            node = self.root.named_descendant_for_byte_range(pos, pos + len(name.encode()))
            if node is not None and node.start_byte == pos and accept(node):
                yield node


class NameMemo:
    """Where each name occurs in one version of a document, for many reads of it in a row (a
    whole-document scan): the first search for a name lists the nodes `accept` takes in the whole
    text, every later one is a bisection. Hover reads one cursor and needs none."""

    def __init__(self) -> None:
        self._found: dict[tuple[str, Callable[[Node], bool]], tuple[list[int], list[Node]]] = {}
        self._values: dict[tuple[str, int], Any] = {}

    def remember(
        self,
        key: tuple[str, int],
        read: Callable[[], T],
        cuts: Callable[[], int] | None = None,
    ) -> T:
        """`read()`, once per `key` (what a reader found out about one node) in this scan. With
        `cuts`, the count of readings cut short (a recursion or depth limit met in the middle of
        a chain of wrappers): what a cut reading found holds for that chain only, so it is not
        remembered for the next one."""
        if key in self._values:
            return self._values[key]
        before = cuts() if cuts is not None else 0
        value = read()
        if cuts is None or cuts() == before:
            self._values[key] = value
        return value

    def nodes(
        self,
        reader: TreeReader,
        name: str,
        accept: Callable[[Node], bool],
        start: int,
        end: int,
        reverse: bool,
        limit: int,
    ) -> Iterator[Node]:
        key = (name, accept)
        found = self._found.get(key)
        if found is None:
            starts: list[int] = []
            nodes: list[Node] = []
            size = len(reader.data)
            for pos in occurrences(reader.data, name, 0, size, limit=size):
                node = reader.root.named_descendant_for_byte_range(pos, pos + len(name.encode()))
                if node is not None and node.start_byte == pos and accept(node):
                    starts.append(pos)
                    nodes.append(node)
            found = self._found[key] = (starts, nodes)
        starts, nodes = found
        first = bisect.bisect_left(starts, start)
        last = bisect.bisect_left(starts, end - len(name.encode()) + 1) if end > start else first
        chosen = range(last - 1, first - 1, -1) if reverse else range(first, last)
        for count, index in enumerate(chosen):
            if count >= limit:
                return
            yield nodes[index]


# Each language's reader, as (module, class) under atlas_core.recognize.calls: a module is imported
# the first time a document of its language is read, so a language server that has only seen
# Python never compiles the JavaScript and JVM readers.
_LANGUAGE_READERS = {
    "python": ("python", "PythonCalls"),
    "javascript": ("javascript", "JavaScriptCalls"),
    "typescript": ("javascript", "JavaScriptCalls"),
    "java": ("jvm", "JavaCalls"),
    "groovy": ("jvm", "GroovyCalls"),
}
TREE_LANGUAGES = frozenset(_LANGUAGE_READERS)


def reader_for(language: str) -> type[TreeReader] | None:
    """The tree reader of `language` (normalised), or None for a language read as text."""
    where = _LANGUAGE_READERS.get(language)
    if where is None:
        return None
    module = importlib.import_module(f"atlas_core.recognize.calls.{where[0]}")
    return getattr(module, where[1])
