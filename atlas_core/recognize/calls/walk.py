"""The one walk every grammar's call reader shares: from the node under the cursor to the HTTP
call or generated-client method it belongs to.

`CallWalk` owns the algorithm: a URL part climbs to the whole URL expression (`url_root`), that
expression to the call that sends it, directly or through the names it is assigned to
(`url_call`); a method name is an HTTP call's endpoint or a client's operation (`callee_site`);
a key of a dict or object answers with the context its container ends up in (`context_site`).
A grammar's reader (`python`, `javascript`, `jvm`) subclasses it with hooks that know its node
types: which parents extend a URL expression (`url_step`), where a URL is an argument
(`url_in_call`), what an assignment binds (`assigned_uses`), which calls are HTTP calls (`http`),
how a receiver and method name read (`client_method`), and how a string literal reads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from atlas_core.recognize.calls.site import ENDPOINT, HTTP, HTTP_VERBS, CallSite
from atlas_core.recognize.calls.tree_reader import MAX_DEPTH, TreeReader
from atlas_core.syntax import is_field

if TYPE_CHECKING:
    from tree_sitter import Node


class HttpCall(Protocol):
    """What the walk asks of a grammar's HTTP call: its method and the URL argument's node."""

    method: str
    url: Node | None


# Steps one walk from a URL to its call may take (names assigned to each other many times).
_URL_STEPS = 256


@dataclass(slots=True)
class KeyContext:
    """The call a dict or object of keys ends up in, and as what."""

    role: str
    http: Any = None  # the grammar's HTTP call; None for a generated client's operation
    operation: str = ""
    nested: int = 0  # objects passed through below the call's own (0 for the body's own keys)
    direct: bool = True  # the object is written in the call itself, not reached through a name
    merged: bool = False  # its keys are merged with others (spread into an object): some, not all


class CallWalk(TreeReader):
    """The walk; subclasses supply the hooks below the line."""

    # A generated client's receiver: `assetApi`, `client`, `catalog_service`, and the
    # `api_instance` every OpenAPI Generator example names it.
    CLIENT_RECEIVER = re.compile(r"(?i)(?:api|client|service)(?:_instance)?$")
    # A string that is no call's URL may still be a path worth reading on its own.
    LOOSE_STRINGS = True

    # --- the walk ---------------------------------------------------------------------------

    def callee_site(self, call: Node, name: Node, http: HttpCall | None) -> CallSite | None:
        """The cursor on the method name of `call`: an HTTP call's endpoint (`http`) or a
        generated client's operation."""
        span = (name.start_byte, name.end_byte)
        if http is not None:
            return self.site(
                method=http.method,
                url=self.call_url(http),
                role=ENDPOINT,
                name="",
                span=span,
                client=HTTP,
            )
        operation = self.sdk_operation(call)
        if not operation:
            return None
        return self.operation_site(operation, span)

    def url_part_site(self, node: Node) -> CallSite | None:
        """The cursor on part of a URL: a literal, or a name holding one."""
        root = self.url_root(node)
        http = self.url_call(root, 0)
        if http is None:
            if self.LOOSE_STRINGS and self.is_string(node):
                return self.loose_string_site(self.literal(node), self.content_span(node), node)
            return None
        literal = self.content_span(node) if self.is_string(node) else None
        leftmost = self.is_leftmost(root, node)
        return self.url_site(
            node, http.method, self.call_url(http), literal=literal, leftmost=leftmost
        )

    def context_site(
        self,
        context: KeyContext,
        name: str,
        span: tuple[int, int],
        keys: tuple[str, ...],
        *,
        complete: bool = False,
    ) -> CallSite:
        """The cursor on key `name` of an object whose call is `context`."""
        http = context.http
        return self.key_site(
            context.role,
            name,
            span,
            keys,
            http=(http.method, self.call_url(http)) if http is not None else None,
            operation=context.operation,
            nested=context.nested > 0,
            complete=complete,
        )

    def url_root(self, node: Node) -> Node:
        """The whole URL expression `node` is part of."""
        while node.parent is not None:
            larger = self.url_step(node, node.parent)
            if larger is None:
                return node
            node = larger
        return node

    # The expressions one walk from a URL to its call has followed, with the least depth each
    # was followed at: names assigned to each other (``url = other + "/x"; other = url + "?y"``)
    # reach the same expressions many ways, and each is followed once per depth budget; a walk
    # taking more than `_URL_STEPS` steps reads as no call.
    _url_seen: dict[int, int] | None = None

    def url_call(self, root: Node, depth: int) -> HttpCall | None:
        """The HTTP call whose URL is the expression `root`, directly or through the names it is
        assigned to."""
        if depth > 0 and self._url_seen is not None:
            return self._url_step(root, depth)
        # A walk of its own, also one started inside another (a wrapper's summary): what the
        # outer walk has followed does not cut it short.
        outer, self._url_seen = self._url_seen, {-1: 0}
        try:
            return self._url_step(root, depth)
        finally:
            self._url_seen = outer

    def _url_step(self, root: Node, depth: int) -> HttpCall | None:
        seen = self._url_seen if self._url_seen is not None else {-1: 0}
        if seen.get(root.id, MAX_DEPTH + 1) <= depth:
            return None  # followed already, with as much depth left
        seen[root.id] = depth
        seen[-1] += 1  # the steps taken (no node has id -1)
        if seen[-1] > _URL_STEPS:
            return None
        return self._url_call(root, depth)

    def _url_call(self, root: Node, depth: int) -> HttpCall | None:
        parent = root.parent
        if parent is None or depth > MAX_DEPTH:
            return None
        handled, http = self.url_in_call(root, parent)
        if handled:
            return http
        uses = self.assigned_uses(root, parent)
        if uses is None:
            return None
        shared = len(uses) > 1 and self.shared_uses(parent, uses)
        sent = None
        for use in uses:
            found = self._url_step(self.use_root(use), depth + 1)
            if found is None:
                continue
            if not shared:
                return found
            if sent is not None and not _same_url(sent, found):
                return None  # a module or class constant many calls share is no one call's URL
            sent = found
        # At module level, a URL that one call sends (``fetch(url)``) and other lines only
        # touch (``url.searchParams.set(...)``, a log line) is that call's.
        return sent

    def sdk_operation(self, call: Node) -> str:
        """The generated-client method `call` calls (`assetApi.findAssets`), else ""."""
        found = self.client_method(call)
        if found is None:
            return ""
        receiver, name = found
        if self.is_transport_method(name) or not self.CLIENT_RECEIVER.search(receiver):
            return ""
        return name

    def declared_uses(self, name: str, declaration: Node) -> list[Node]:
        """Reads of `name` after `declaration`, in its scope, declarations of it left out."""
        scope = self.scope_of(declaration)
        end = scope.end_byte if scope is not None else self.root.end_byte
        return [
            use
            for use in self.named_nodes(name, declaration.end_byte, end, self.is_use)
            if not (
                use.parent and use.parent.type == "variable_declarator" and is_field(use, "name")
            )
        ]

    # --- hooks ------------------------------------------------------------------------------

    def http(self, call: Node) -> Any:
        """The grammar's HTTP call (an `HttpCall`) `call` is, or None."""
        raise NotImplementedError

    def call_url(self, http: Any) -> str:
        """The URL an HTTP call sends, rebuilt through the names it reads."""
        raise NotImplementedError

    def url_step(self, node: Node, parent: Node) -> Node | None:
        """The larger URL expression `node` is part of through `parent`, or None at its top."""
        raise NotImplementedError

    def url_in_call(self, root: Node, parent: Node) -> tuple[bool, HttpCall | None]:
        """(True, the call) where `parent` makes `root` a call's URL argument, (True, None)
        where it makes `root` an argument but not the URL; (False, None) elsewhere."""
        raise NotImplementedError

    def assigned_uses(self, root: Node, parent: Node) -> list[Node] | None:
        """Where `parent` assigns `root` to a name: the reads of that name; else None."""
        raise NotImplementedError

    def use_root(self, use: Node) -> Node:
        """The URL expression a read of a URL's name stands in."""
        return self.url_root(use)

    def shared_uses(self, parent: Node, uses: list[Node]) -> bool:
        """Whether the several `uses` of what `parent` assigns are each read as its own call,
        so that the URL itself is no one call's: a module constant's."""
        return self.scope_of(parent) is None

    def is_leftmost(self, root: Node, node: Node) -> bool:
        """Whether `node` starts the URL expression `root`."""
        raise NotImplementedError

    def scope_of(self, node: Node) -> Node | None:
        """The function (or method, or lambda) `node` is in; None at module level."""
        raise NotImplementedError

    def client_method(self, call: Node) -> tuple[str, str] | None:
        """(the receiver's last name, the method name) of a method call, else None."""
        raise NotImplementedError

    def is_transport_method(self, name: str) -> bool:
        """A method name an HTTP library uses, never a generated client's operation."""
        return name in HTTP_VERBS

    # Static, so that `self.is_use` is one object for every reader of a scan: the scan's
    # `NameMemo` keys its searches by the filter, and a bound method of each new reader would miss
    # every earlier search (a Java class of 2,000 methods took a minute).
    @staticmethod
    def is_use(node: Node) -> bool:
        """A node that reads a name (`declared_uses`)."""
        return node.type == "identifier"

    def is_string(self, node: Node) -> bool:
        raise NotImplementedError

    def literal(self, node: Node) -> str:
        """A string literal's text without its quotes."""
        raise NotImplementedError

    def content_span(self, node: Node) -> tuple[int, int]:
        """The bytes of a string literal's content (without quotes), or of the whole node."""
        raise NotImplementedError


def _same_url(one: HttpCall, other: HttpCall) -> bool:
    """Whether two reads of a name reach the same call (``url = ...; fetch(url)``)."""
    return one.url is not None and other.url is not None and one.url.id == other.url.id
