"""Fluent request chains in Java and Groovy: a generated client's request builder
(`FindAssetsRequest.builder().name(n)`), `java.net.http`'s ``HttpRequest.newBuilder(uri)``,
OkHttp's ``new Request.Builder().url(u)`` and `WebClient`'s ``post().uri(..)``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas_core.recognize.calls.jvm_helpers import Http as _Http
from atlas_core.recognize.calls.jvm_helpers import connection_method
from atlas_core.recognize.calls.site import HTTP_VERBS, url_join
from atlas_core.syntax import field as child
from atlas_core.syntax import is_field

if TYPE_CHECKING:
    from tree_sitter import Node

    from atlas_core.recognize.calls.jvm import JavaCalls

# Links of a request chain that take its URL: java.net.http (`uri`, `newBuilder(uri)`), OkHttp
# (`new Request.Builder().url(..)`).
URL_LINKS = frozenset({"uri", "newBuilder", "url"})
HTTP_BUILDERS = frozenset({"Request.Builder", "okhttp3.Request.Builder"})
BUILDER_STARTS = frozenset({"builder", "newBuilder"})
CHAIN_ENDS = frozenset({"build", "retrieve", "exchange", "bodyToMono", "block", "send"})


class Chain:
    """A fluent chain of method calls around one invocation: its links, what it starts from (a
    request builder, `HttpRequest.newBuilder()`, a `WebClient` verb) and where its result goes."""

    def __init__(self, reader: JavaCalls, invocation: Node) -> None:
        self.reader = reader
        self.top = invocation
        while self.top.parent is not None and self.top.parent.type == "method_invocation":
            if not is_field(self.top, "object"):
                break
            self.top = self.top.parent
        self.links: list[Node] = []  # innermost first
        node: Node | None = self.top
        while node is not None and node.type == "method_invocation":
            self.links.insert(0, node)
            node = child(node, "object")
        self.start = node  # what the innermost call is made on
        self.request_class = self._request_class()

    def names(self) -> list[str]:
        return [self.reader.text(child(link, "name")) for link in self.links]

    def _request_class(self) -> str:
        reader = self.reader
        names = self.names()
        if self.start is None or not names:
            return ""
        start = self.start
        if start.type == "identifier" and names[0] in BUILDER_STARTS:
            name = reader.text(start)
            return name if name != "HttpRequest" else ""
        if start.type == "object_creation_expression":
            kind = reader.text(child(start, "type"))
            if kind in HTTP_BUILDERS:
                return ""  # an HTTP client's request, not a generated client's
            return kind.removesuffix(".Builder") if kind.endswith(".Builder") else ""
        if start.type == "identifier":
            value = reader._definition(start)
            if value is not None and value.type == "method_invocation":
                return Chain(reader, value).request_class
        return ""

    def setters(self) -> tuple[str, ...]:
        return tuple(n for n in self.names() if n not in BUILDER_STARTS | CHAIN_ENDS)

    def operation(self) -> str:
        """The client method the built request is passed to, directly or through a variable."""
        reader = self.reader
        target: Node | None = self.top
        for _ in range(3):
            parent = target.parent if target is not None else None
            if parent is None:
                return ""
            if parent.type == "argument_list" and parent.parent is not None:
                return reader.sdk_operation(parent.parent)
            if parent.type == "variable_declarator":
                name = child(parent, "name")
                uses = reader.declared_uses(reader.text(name), parent) if name is not None else []
                target = uses[0] if uses else None
                continue
            return ""
        return ""

    def http(self) -> _Http | None:
        """``HttpRequest.newBuilder(uri?).uri(..).POST(..)`` or ``webClient.post().uri(..)``."""
        reader = self.reader
        names = self.names()
        url: Node | None = None
        method = ""
        for link, name in zip(self.links, names, strict=True):
            args = child(link, "arguments")
            first = args.named_children[0] if args is not None and args.named_child_count else None
            if name in URL_LINKS and first is not None:
                # WebClient's ``uri(b -> b.path(p).queryParam(k, v).build())``: the lambda's
                # chain builds the URL on a base the client holds (the lambda's builder).
                url = child(first, "body") if first.type == "lambda_expression" else first
            elif (name.lower() in HTTP_VERBS and name.isupper()) or (
                name in HTTP_VERBS and link is not self.links[-1]
            ):
                method = name.upper()
            elif name == "method" and first is not None:
                method = reader._value(first, 0).rsplit(".", 1)[-1].upper()
        start = self.start
        is_http = start is not None and (
            reader.text(start) == "HttpRequest"
            or (
                start.type == "object_creation_expression"
                and reader.text(child(start, "type")) in HTTP_BUILDERS
            )
        )
        if not is_http and not (method and url is not None):
            return None
        return _Http(method or "GET", url)


# Links that build a URL (Spring's UriComponentsBuilder, JAX-RS's WebTarget) and links that
# pass the URL they are called on through (`toUriString()`, `build().toUri()`).
URL_PARTS = frozenset(
    {
        "path",
        "pathSegment",
        "fromHttpUrl",
        "fromUriString",
        "fromPath",
        "target",
        "resolve",
        "parse",  # OkHttp's HttpUrl.parse(url).newBuilder()...
        "addPathSegment",
        "addPathSegments",
    }
)
# Links that add a query key (Spring's UriComponentsBuilder, Apache's URIBuilder, OkHttp's
# HttpUrl.Builder): their first argument is the key.
QUERY_LINKS = frozenset(
    {
        "queryParam",
        "addParameter",
        "setParameter",
        "addQueryParameter",
        "addEncodedQueryParameter",
        "setQueryParameter",
    }
)
# Classes whose construction starts a URL-building chain (``new URIBuilder(url)``).
URL_BUILDERS = frozenset({"URIBuilder", "org.apache.http.client.utils.URIBuilder"})
URL_PASS = (
    frozenset(
        {
            "toUriString",
            "toUri",
            "toURL",  # Groovy's `"${base}/assets".toURL()`
            "build",
            "encode",
            "expand",
            "buildAndExpand",
            "toString",
            "newBuilder",
        }
    )
    | QUERY_LINKS
)
_MAX_APPENDS = 64


def chain_top(reader: JavaCalls, call: Node) -> Node:
    """The last link of a URL-building chain `call` is in (``fromHttpUrl(b).path(p).build()``)."""
    top = call
    while (
        top.parent is not None
        and top.parent.type == "method_invocation"
        and is_field(top, "object")
        and reader.text(child(top.parent, "name")) in URL_PARTS | URL_PASS
    ):
        top = top.parent
    return top


def request_http(reader: JavaCalls, target: Node) -> _Http | None:
    """JAX-RS: ``target.register(..).request(..).get()``, ``.post(entity)``, ``.method("PATCH",
    entity)``, ``.build("PATCH", entity).invoke()``; None when no ``request()`` link follows."""
    link, requested = target, False
    while link.parent is not None and link.parent.type == "method_invocation":
        if not is_field(link, "object"):
            break
        link = link.parent
        name = reader.text(child(link, "name"))
        if not requested:
            requested = name == "request"
            continue
        verb = name.removeprefix("build").lower()
        if verb in HTTP_VERBS:
            return _Http(verb.upper(), target)
        args = child(link, "arguments")
        if name in ("method", "build") and args is not None and args.named_child_count:
            value = reader._value(args.named_children[0], 0)
            return _Http(value.upper() if value.lower() in HTTP_VERBS else "", target)
    return None


def chain_value(reader: JavaCalls, node: Node, depth: int) -> str | None:
    """The URL a link of a URL-building chain (or a StringBuilder's `toString()`) holds, or
    None when `node` is no such link."""
    name = reader.text(child(node, "name"))
    target = child(node, "object")
    args = child(node, "arguments")
    values = args.named_children if args is not None else []
    if name in ("fromHttpUrl", "fromUriString", "fromPath", "target", "parse") and values:
        return reader._value(values[0], depth + 1)
    if target is None:
        return None
    if name == "resolve" and values:  # java.net.URI
        return url_join(reader._value(target, depth + 1), reader._value(values[0], depth + 1))
    if name == "path" and values:
        base, part = reader._value(target, depth + 1), reader._value(values[0], depth + 1)
        return base.rstrip("/") + "/" + part.lstrip("/") if part else base
    if name in ("pathSegment", "addPathSegment", "addPathSegments"):
        segments = "/".join(reader._value(v, depth + 1) for v in values)
        return reader._value(target, depth + 1).rstrip("/") + "/" + segments
    if name in QUERY_LINKS and values:
        base = reader._value(target, depth + 1)
        key = reader._value(values[0], depth + 1)
        return f"{base}{'&' if '?' in base else '?'}{key}={{}}"
    if name in URL_PASS:
        if target.type == "identifier":
            built = _builder_value(reader, target, depth)
            if built is not None:
                return built
        return reader._value(target, depth + 1)
    return None


def _builder_value(reader: JavaCalls, use: Node, depth: int) -> str | None:
    """A StringBuilder's text where `use` reads it: its start and every ``append`` before."""
    declaration = reader._definition(use)
    if declaration is None or declaration.type != "object_creation_expression":
        return None
    if reader.text(child(declaration, "type")) not in ("StringBuilder", "StringBuffer"):
        return None
    args = child(declaration, "arguments")
    first = args.named_children[0] if args is not None and args.named_child_count else None
    out = reader._value(first, depth + 1) if first is not None else ""
    name = reader.text(use)
    uses = reader.named_nodes(name, declaration.end_byte, use.start_byte, _is_ident)
    for count, other in enumerate(uses):
        if count >= _MAX_APPENDS:
            return None
        link = other
        while link.parent is not None and link.parent.type == "method_invocation":
            if not is_field(link, "object") or reader.text(child(link.parent, "name")) != "append":
                break
            link = link.parent
            appended = child(link, "arguments")
            if appended is None or not appended.named_child_count:
                return None
            out += reader._value(appended.named_children[0], depth + 1)
    return out


def builder_uses(reader: JavaCalls, append: Node) -> list[Node]:
    """Where the StringBuilder an ``append(..)`` call adds to is read as text (``toString()``)."""
    start = append
    while start.type == "method_invocation" and child(start, "object") is not None:
        start = child(start, "object") or start
        if start.type == "identifier":
            break
    if start.type != "identifier":
        return []
    declaration = reader._definition(start)
    if declaration is None or reader.text(child(declaration, "type")) not in (
        "StringBuilder",
        "StringBuffer",
    ):
        return []
    out = []
    for use in reader.declared_uses(reader.text(start), declaration):
        call = use.parent
        if (
            call is not None
            and call.type == "method_invocation"
            and is_field(use, "object")
            and reader.text(child(call, "name")) == "toString"
        ):
            out.append(call)
    return out


def _is_ident(node: Node) -> bool:
    return node.type == "identifier"


# What reads a URL's content (a GET): Groovy's `url.getText()`, Java's `url.openStream()`.
_READS = frozenset({"getText", "openStream", "withReader", "withInputStream", "newReader"})


def url_object_http(reader: JavaCalls, root: Node, parent: Node) -> _Http | None:
    """The request of a URL expression `root` used as the object of `parent` (a method call or a
    field): ``new URL(u).openConnection()`` (with the method set on the connection), Groovy's
    ``new URL(u).text`` and ``url.getText()`` (GETs), JAX-RS's ``target(u).request().get()``."""
    if parent.type == "field_access":
        text = reader.text(child(parent, "field")) == "text"
        return _Http("GET", root) if text and _is_url(reader, root) else None
    name = reader.text(child(parent, "name"))
    if name in _READS:
        return _Http("GET", root) if _is_url(reader, root) else None
    if name == "openConnection":
        method, method_node = connection_method(reader, parent)
        return _Http(method, root, method_node=method_node)
    return request_http(reader, root)


def _is_url(reader: JavaCalls, node: Node) -> bool:
    """Whether `node` makes a URL object (``new URL(..)``, ``"..".toURL()``) or names one."""
    if node.type == "object_creation_expression":
        return reader.text(child(node, "type")) in ("URL", "java.net.URL")
    if node.type == "method_invocation":
        return reader.text(child(node, "name")) == "toURL"
    return node.type == "identifier"
