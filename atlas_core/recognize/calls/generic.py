"""Calls in languages with no dedicated reader (C#, Ruby, PHP, Kotlin, Scala, Rust, Swift, Dart,
Elixir, Ballerina, CoffeeScript, ...), read as text and only where the code is unambiguous:

- a call named for an HTTP verb (``client.get(``, ``GetAsync(``, ``$client->post(``,
  ``RestClient.get``, ``reqwest::get(``, ``HTTPoison.get!(``, ``clientEp->get(``);
- a request naming its verb (``request("POST", url)``, ``HttpRequestMessage(HttpMethod.Put,
  url)``, ``Net::HTTP::Get.new(uri)``, ``HttpGet(url)``);
- a URL handed to a builder whose chain names the verb (``HttpRequest.newBuilder().uri(...)
  .POST(..)``, ``msg.http(url).post(..)``, ``curl_init(url)`` with ``CURLOPT_CUSTOMREQUEST``),

whose URL (a literal, an interpolated string, or a name the file assigns one) visibly targets
Collibra: a ``/rest/`` path, a ``collibra`` host, or a path from ``/`` on a client-like receiver
(the engine then judges only paths whose first segment the API documents). Route definitions
(``get("/x") { ... }``) and comments give nothing."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

from atlas_core.recognize.calls.generic_text import Code
from atlas_core.recognize.calls.site import CallSite
from atlas_core.recognize.calls.text_calls import Part, joined, url_sites
from atlas_core.syntax import Document

# Ids read by other readers or holding no code worth reading as calls.
NOT_GENERIC = frozenset(
    {
        "", "json", "yaml", "toml", "xml", "plaintext", "text", "txt", "csv", "ini", "properties",
        "graphql", "css", "scss", "less", "diff", "log", "restructuredtext", "latex", "bibtex",
        "dotenv", "ignore", "markdown", "html", "http", "shell", "go", "powershell", "python",
        "javascript", "typescript", "java", "groovy",
    }
)  # fmt: skip
MAX_TEXT_CHARS = 16 * 1024 * 1024
MAX_CALLS = 5000  # candidate calls looked at per document

_VERB = r"(?:get|post|put|patch|delete|head)"
_SUFFIX = r"(?:_?(?:string|stream|bytearray|fromjson|asjson|forobject|forentity|json|response))?"
# A call whose name is a verb, its receiver before it; or a request naming its verb.
_CALL = re.compile(
    rf"(?<![\w$])(?:(?P<verb>(?i:{_VERB}{_SUFFIX}(?:_?async)?))[!?]?"
    r"|(?P<req>(?i:request(?:message|async)?|httprequestmessage|restrequest|fetch|build))"
    r"|Net::HTTP::(?P<cls>Get|Post|Put|Patch|Delete)\.new"
    r"|Http(?P<apache>Get|Post|Put|Patch|Delete)"
    r"|(?P<later>http|uri|url|curl_init))"
    r"\s*(?:<[\w.<>\[\], ?]{0,80}>\s*)?(?P<open>\(|[ \t]+(?=[\"'@$]))"
)
# A URL worth reading: a REST path (perhaps relative to a base ending in its slash, as RestSharp's
# ``new RestRequest("rest/2.0/assets")`` writes it), Collibra, or a quoted absolute path.
_RELATIVE_REST = re.compile(r"rest/\d+(?:\.\d+)*/")
_CANDIDATE = re.compile(r"(?i)/rest/|[\"'`@$]rest/\d|collibra|[\"'`]/\w")
_RECEIVER = re.compile(r"([@$]?[A-Za-z_]\w*)\s*(?:\(\s*\))?[!?]?\s*(?:\.|\?\.|::|->)\s*$")
_CLIENT_LIKE = re.compile(r"(?i)client|api|collibra|dgc|http|rest|conn|session|agent|resource")
_ROUTE_RECEIVER = re.compile(r"(?i)^(?:app|router|routes?|routing|server|r|mux|sinatra)$")
_BLOCK_AFTER = re.compile(r"\s*(?:do\b|\{|->|=>)")
_METHOD_ARG = re.compile(
    r"""\s*(?:["'](?P<q>(?i:get|post|put|patch|delete|head))["']|:(?P<sym>get|post|put|patch"""
    r"""|delete|head)\b|(?:[\w.]*::)?(?:[\w.]*\.)?(?:Http)?Methods?(?:\.|::)(?P<en>(?i:get|post"""
    r"""|put|patch|delete|head))\b|method:\s*["':](?P<kw>(?i:get|post|put|patch|delete|head)))"""
)
_CHAIN_VERB = re.compile(
    r"\.\s*(?P<v>GET|POST|PUT|PATCH|DELETE|get|post|put|patch|delete|del)\s*\("
    r"|\.\s*method\s*\(\s*\"(?P<m>[A-Z]+)\""
    r"|(?P<end>;|\n\s*\n|\n(?![ \t]*[.)]))"
)
_CURL_OPTION = re.compile(
    r"CURLOPT_CUSTOMREQUEST\s*,\s*[\"']([A-Z]+)[\"']|CURLOPT_(POST)\s*,\s*(?:1|true)\b"
)
_METHOD_OPTION = re.compile(
    r"""(?i)\bmethod["']?\s*(?::|=>?)\s*["':]?(get|post|put|patch|delete|head)\b"""
)
_BUILDER = re.compile(r"newBuilder|Builder\s*\(|HttpRequest|Request")


def is_generic(language: str) -> bool:
    """Whether a (normalised) language id is read by this reader."""
    return (
        language not in NOT_GENERIC and re.fullmatch(r"[a-z][\w+#.-]{0,30}", language) is not None
    )


def generic_calls(
    document: Document, language: str, deadline: float, first: int, last: int
) -> Iterator[tuple[int, CallSite]]:
    """The calls whose text starts between lines `first` and `last` (see the module's doc)."""
    text = document.text
    if len(text) > MAX_TEXT_CHARS or _CANDIDATE.search(text) is None:
        return
    code = _code(text, language)
    start = code.lines.offset(first)
    end = code.lines.offset(last) if last < document.line_count else len(text)
    for count, m in enumerate(_CALL.finditer(code.code, start, end)):
        if count >= MAX_CALLS or time.monotonic() > deadline:
            return
        if code.string_at(m.start()) is not None:
            continue  # inside a string: text, not a call
        found = _request(code, m)
        if found is not None:
            method, parts = found
            yield from url_sites(code.lines, method, parts, language)


_LAST: list[Code] = []  # the last document read: a hover reads the same text again and again


def _code(text: str, language: str) -> Code:
    if _LAST and _LAST[0].text is text and _LAST[0].language == language:
        return _LAST[0]
    code = Code(text, language)
    _LAST[:] = [code]
    return code


def _request(code: Code, m: re.Match[str]) -> tuple[str, list[Part]] | None:
    """The method and URL of the call `m` found, when its URL visibly targets Collibra."""
    receiver_m = _RECEIVER.search(code.code, max(0, m.start() - 120), m.start())
    receiver = receiver_m.group(1) if receiver_m is not None else ""
    args = _arguments(code, m)
    if args is None:
        return None
    arguments, after = args
    method = ""
    if m.group("verb"):
        if _is_route(code, receiver, arguments, after):
            return None
        method = _verb_of(m.group("verb"))
    elif m.group("cls") or m.group("apache"):
        method = (m.group("cls") or m.group("apache")).upper()
    elif m.group("req"):
        verbs = [_method_arg(code, a) for a in arguments]
        method = next((v for v in verbs if v), "")
        if not method and arguments:  # `fetch(url, {method: "POST"})`
            option = _METHOD_OPTION.search(code.code, arguments[0][0], arguments[-1][1])
            method = option.group(1).upper() if option is not None else ""
        if not method and m.group("req").lower() not in ("fetch", "restrequest"):
            return None
        method = method or "GET"
        arguments = [a for a, v in zip(arguments, verbs, strict=True) if not v]
    else:
        method = _chain_method(code, m, after)
        if not method:
            return None
    for arg in arguments[:3]:
        parts = code.value(*arg, m.start())
        if not any(p.span is not None and "/" in p.text for p in parts):
            continue
        parts = _slash_after_base(parts)
        return (method, parts) if _collibra_like(joined(parts), receiver) else None
    return None


def _arguments(code: Code, m: re.Match[str]) -> tuple[list[tuple[int, int]], int] | None:
    """The argument spans of the call and where its text ends; a call without parentheses
    (``RestClient.get "url"``) takes the string that follows it."""
    opening = m.start("open")
    if code.code[opening] == "(":
        close = code.closing(opening)
        if close < 0:
            return None
        return code.split(opening + 1, close, ","), close + 1
    if not m.group("verb"):
        return None  # only a verb is called without parentheses (`RestClient.get "url"`)
    at = m.end("open")
    while code.code[at : at + 1] in ("@", "$") or code.code[at : at + 1].isalpha():
        at += 1  # a string's prefix
    found = code.string_at(at)
    if found is None or found[0] != at:
        return None
    end = code.skip_string(at)
    return [(m.end("open"), end)], end


def _is_route(code: Code, receiver: str, arguments: list[tuple[int, int]], after: int) -> bool:
    """A route a server defines (``get("/assets") { ... }``, ``app.get '/x' do``), not a call."""
    if receiver and not _ROUTE_RECEIVER.match(receiver):
        return False
    if _BLOCK_AFTER.match(code.code, after):
        return True
    return any(re.search(r"->|=>|\bdo\b|\bfn\b", code.code[a:b]) for a, b in arguments[1:])


def _verb_of(name: str) -> str:
    found = re.match(_VERB, name, re.I)
    return found.group().upper() if found else ""


def _method_arg(code: Code, span: tuple[int, int]) -> str:
    found = _METHOD_ARG.match(code.code, span[0], span[1])
    if found is None:
        return ""
    verb = found.group("q") or found.group("sym") or found.group("en") or found.group("kw")
    return verb.upper()


def _chain_method(code: Code, m: re.Match[str], after: int) -> str:
    """The verb a request builder's chain names after (or, for a builder, around) the URL:
    ``msg.http(url).post(..)``, ``.uri(URI.create(u)).POST(..)``, ``curl_setopt(...)``."""
    name = m.group("later")
    if name in ("uri", "url"):
        before = code.code[max(0, m.start() - 300) : m.start()]
        statement = re.split(r"[;{}]|\n\s*\n", before)[-1]
        if _BUILDER.search(statement) is None:
            return ""
        verb = _CHAIN_VERB.search(statement)
        if verb is not None and verb.group("v"):
            return _verb_of(verb.group("v"))
    if name == "curl_init":
        return _curl_method(code, after)
    limit = min(len(code.code), after + 600)
    for verb in _CHAIN_VERB.finditer(code.code, after, limit):
        if code.string_at(verb.start()) is not None:
            continue
        if verb.group("end"):
            break
        word = verb.group("v") or verb.group("m")
        return "DELETE" if word.lower() == "del" else word.upper()
    # hubot's `msg.http(url)` sends nothing until a verb is called; a builder sends a GET
    return "" if name == "http" else "GET"


def _curl_method(code: Code, after: int) -> str:
    """PHP's ``curl_init(url)``: the method its options set before ``curl_exec``."""
    end = code.code.find("curl_exec", after, after + 3000)
    if end < 0:
        return ""
    found = _CURL_OPTION.search(code.code, after, end)
    if found is None:
        return "GET"
    return (found.group(1) or found.group(2)).upper()


def _slash_after_base(parts: list[Part]) -> list[Part]:
    """``base + "rest/2.0/assets"``: an unknown base and a path written without its slash; or
    the path alone, relative to a base ending in its slash (RestSharp's ``new
    RestRequest("rest/2.0/assets", Method.Get)`` on a client holding the base)."""
    out = list(parts)
    for i in range(len(out)):
        part = out[i]
        after_base = i > 0 and out[i - 1].span is None and part.text.startswith("rest/")
        alone = i == 0 and _RELATIVE_REST.match(part.text) is not None
        if part.span is not None and (after_base or alone):
            out[i] = Part("/" + part.text, part.span)
    return out


def _collibra_like(url: str, receiver: str) -> bool:
    if "/rest/" in url or "collibra" in url.lower().split("/rest/")[0]:
        return True
    path = url.removeprefix("{}")
    return path.startswith("/") and bool(receiver) and _CLIENT_LIKE.search(receiver) is not None
