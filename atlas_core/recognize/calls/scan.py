"""Every API call in a whole document: the call reader asked at each place a call could show.

`scan_calls` is what whole-document checks start from. Instead of a second reader that would
have to agree with the hover one on every call shape, it asks the same readers at each string
that could be a URL or a request key (found by a tree-sitter query, in C) and keeps what they
answer for real HTTP calls: an endpoint (a URL literal of a call, with the call's method) or a
query or body key (with its value when the value is a literal on the same line). Strings no
recognised call takes, comments, docstrings and generated-client calls give nothing: a check
that cannot see the call does not guess.

One scan shares a `NameMemo`, so following ``BASE`` or ``session`` back to their assignments
costs one search of the document per name instead of one per call.

What a scan keeps and where in a string it asks are in `scan_sites`; the scans of shell scripts,
text-read languages and request lines in `scan_text`.
"""

from __future__ import annotations

import re
import time
from bisect import bisect_left
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from atlas_core.recognize.calls.ansible import ansible_lines
from atlas_core.recognize.calls.generic import is_generic
from atlas_core.recognize.calls.markdown import block_language, fenced_blocks, prose_commands
from atlas_core.recognize.calls.request_lines import (
    labelled_requests,
    postman_lines,
    table_row_line,
)
from atlas_core.recognize.calls.scan_sends import (
    built_call,
    in_dict_call,
    module_sends,
    on_client,
    sent,
    shared_constants,
    shared_sends,
)
from atlas_core.recognize.calls.scan_sites import Located
from atlas_core.recognize.calls.scan_sites import keep as _keep
from atlas_core.recognize.calls.scan_sites import probes as _probes
from atlas_core.recognize.calls.scan_text import scan_request_lines as _request_lines
from atlas_core.recognize.calls.scan_text import scan_shell as _scan_shell
from atlas_core.recognize.calls.scan_text import scan_text as _scan_text
from atlas_core.recognize.calls.site import ENDPOINT
from atlas_core.recognize.calls.text_calls import TEXT_LANGUAGES
from atlas_core.recognize.calls.tree_reader import TREE_LANGUAGES, NameMemo, reader_for
from atlas_core.recognize.calls.windows import is_windowed, outline_of, window
from atlas_core.recognize.text_scan import normalize_language
from atlas_core.syntax import Document, load_language, parse_once

if TYPE_CHECKING:
    from tree_sitter import Node, Tree

# A whole-document scan gives up (keeping what it found) past this many seconds or sites.
SCAN_BUDGET_S = 1.0
MAX_SITES = 5000
# Fenced blocks in markdown are scanned one by one; a block longer than this is skipped.
MAX_BLOCK_CHARS = 64 * 1024

# The nodes worth asking about: strings (a URL, a quoted key) and unquoted object keys; and a
# name a verb-named call sends as its URL (`axios.delete(url)`), where one URL literal reaches
# several calls (`const url = ...; get(url); delete(url)`): the literal reads as one of them, the
# name at each call as that call.
_SENT_NAME = "({call} arguments: ({args} . (identifier) @n))"
# A URL built by a call the code's own function makes (`http.delete(paths.mapping(id))`): that
# call's name is asked about too, as a sent name is, for the request it builds the URL of.
_BUILT_URL = (
    " (call_expression arguments: (arguments . (call_expression function: ["
    "(identifier) @b (member_expression property: (property_identifier) @b)])))"
)
_JS_QUERY = (
    "(string) @s (template_string) @s (pair key: (property_identifier) @s)"
    " (object (shorthand_property_identifier) @s) "  # `{ name, domainId }`
    + _SENT_NAME.format(call="call_expression", args="arguments")
    + _BUILT_URL
)
_QUERIES = {
    "python": "(string) @s "
    + _SENT_NAME.format(call="call", args="argument_list")
    # a URL builder's call sent as a URL (`s.delete(urls.mapping(i))`): each is its call's
    + " (call arguments: (argument_list . (call) @c))"
    # a model's fields (``domainId: str``): the keys of a body or params dumped from it
    + " (class_definition body: (block (expression_statement"
    " (assignment left: (identifier) @s type: (type)))))"
    # a map made by ``dict(name=n, domainId=d)``: its keyword names are its keys
    " (call function: (identifier)"
    " arguments: (argument_list (keyword_argument name: (identifier) @m)))",
    "javascript": _JS_QUERY,
    "typescript": _JS_QUERY,
    "java": "(string_literal) @s",
    "groovy": "(string_literal) @s (map_item key: (identifier) @s)",
}
# Generated-client calls (`api.find_assets(name_match_mode=...)`, `assetsApi.findAssets(...)`):
# a method called on a client names the operation, and in Python its keyword arguments are the
# operation's parameters. Only generated-client answers are kept from these captures (`@k`), and
# only where the receiver reads as a client (`_CLIENT_RECEIVER`), so ordinary method calls cost a
# regex, not a read.
_SDK_QUERIES = {
    "python": "(call function: (attribute attribute: (identifier) @k))"
    " (keyword_argument name: (identifier) @k)",
    "javascript": "(call_expression function: (member_expression property: (property_identifier) @k))",
    "typescript": "(call_expression function: (member_expression property: (property_identifier) @k))",
    "java": "(method_invocation name: (identifier) @k) (method_reference (identifier) @k .)",
}
_QUERY_CACHE: dict[str, Any] = {}  # compiled queries by language
_TABLE_ROW = re.compile(r"^\s*\||\s\|\s")


def scan_calls(
    text: str,
    language: str,
    *,
    budget_s: float = SCAN_BUDGET_S,
    limit: int = MAX_SITES,
    parsed: tuple[Document, Tree | None] | None = None,
    cache: ScanCache | None = None,
) -> list[Located]:
    """The HTTP call endpoints and keys of a document, in text order. `parsed` is the text's
    document and syntax tree when the caller keeps one up to date (`CallReader.scan`), `cache`
    what the scan of its previous version found (only changed definitions are read again)."""
    deadline = time.monotonic() + budget_s
    lang = normalize_language(language)
    if lang == "markdown":
        return _scan_markdown(text, deadline, limit)
    if lang == "shell":
        return _scan_shell(Document(text), deadline, limit)
    if lang == "http":  # a REST client's .http file: one request line per request
        return _request_lines(list(enumerate(text.split("\n"))), lang, deadline, limit)
    if lang == "json":  # a Postman collection's requests (any other JSON has none)
        return _request_lines(postman_lines(text), lang, deadline, limit)
    if lang == "yaml":  # an Ansible playbook's `uri` tasks (any other YAML has none)
        return _request_lines(ansible_lines(text), lang, deadline, limit)
    if lang in TEXT_LANGUAGES:
        return _scan_text(Document(text), lang, deadline, limit)
    if lang == "html":
        from atlas_core.recognize.calls.js_html import script_text  # for HTML documents only

        return scan_calls(script_text(text), "javascript", budget_s=budget_s, limit=limit)
    if lang in TREE_LANGUAGES:
        if parsed is None and is_windowed(lang, text):
            return _scan_windows(text, lang, deadline, limit, cache)
        document, tree = parsed if parsed is not None else parse_once(text, lang)
        return _scan_tree(document, tree, lang, deadline, limit, cache)
    if is_generic(lang):  # C#, Ruby, PHP, Kotlin, Rust, ...: verb calls read as text
        return _scan_text(Document(text), lang, deadline, limit)
    return []


class ScanCache:
    """What the last scan of one document found per top-level statement, so that the next scan
    after an edit reads again only the statements that changed.

    A call's reading depends on its own statement (a function, a class with its base URL and
    wrapper methods) and on the module's top-level assignments (``BASE = ...``,
    ``session = requests.Session()``), so a statement's sites are reused when its text and the
    text of those assignments are unchanged. Sites are kept with lines relative to the
    statement."""

    def __init__(self) -> None:
        # (language, statement, context, ...): a windowed scan adds the statements read beside it
        self._blocks: dict[tuple[Any, ...], list[Located]] = {}

    def take(self, key: tuple[Any, ...]) -> list[Located] | None:
        return self._blocks.get(key)

    def keep(self, blocks: dict[tuple[Any, ...], list[Located]]) -> None:
        self._blocks = blocks  # only the current version's blocks: the cache never grows


# Top-level statements that give names values other statements' calls may read (``BASE = ...``,
# ``const api = axios.create(...)``): the module's context, which every cached block depends on.
_DEFINING = {
    "python": frozenset({"assignment", "augmented_assignment"}),
    "javascript": frozenset({"lexical_declaration", "variable_declaration"}),
    "typescript": frozenset({"lexical_declaration", "variable_declaration"}),
    "java": frozenset({"field_declaration", "local_variable_declaration"}),
    "groovy": frozenset({"local_variable_declaration", "assignment_expression"}),
}
_MAX_CONTEXT_BYTES = 1 << 16  # past this, the module's context is not worth comparing


def _defines(node: Node, kinds: frozenset[str]) -> bool:
    if node.type in kinds:
        return True
    # ``BASE = "..."`` is an expression statement holding the assignment.
    return node.type == "expression_statement" and any(c.type in kinds for c in node.named_children)


def _scan_tree(
    document: Document,
    tree: Tree | None,
    language: str,
    deadline: float,
    limit: int,
    cache: ScanCache | None = None,
) -> list[Located]:
    if tree is None or load_language(language) is None:
        return []
    root = tree.root_node
    blocks = root.named_children
    kinds = _DEFINING[language]
    context = b"\0".join(
        document.data[b.start_byte : b.end_byte] for b in blocks if _defines(b, kinds)
    )
    if len(context) > _MAX_CONTEXT_BYTES:
        cache = None
    memo = NameMemo()
    # the names several module-level calls send are the module's: a block read with others is stale
    context += b"\0" + b",".join(sorted(module_sends(document, root, memo)))
    context += b"\0" + b",".join(sorted(shared_constants(document, root, memo)))
    found: dict[tuple[int, int, int, str, str], Located] = {}
    kept: dict[tuple[Any, ...], list[Located]] = {}
    for block in blocks:
        first_line = block.start_point[0]
        key = (language, document.data[block.start_byte : block.end_byte], context)
        reused = cache.take(key) if cache is not None else None
        if reused is not None:
            kept[key] = reused
            _reuse(found, reused, first_line)
            continue
        read = _read_block(document, root, [block], language, found, deadline, limit, memo)
        if read is not None and not _sent_elsewhere(document, block, read, kinds):
            kept[key] = [replace(item, line=item.line - first_line) for item in read]
    if cache is not None:
        cache.keep(kept)
    return sorted(found.values(), key=lambda f: (f.line, f.site.start))


def _sent_elsewhere(
    document: Document, block: Node, read: list[Located], kinds: frozenset[str]
) -> bool:
    """Whether what a top-level statement holds may be sent by a call in another statement (a
    module-level dict or URL a function sends, a model class whose fields a function dumps, a
    class with no call of its own): its sites change with that statement, so it is read again on
    every scan rather than kept with its own text. A statement making its own calls is kept."""
    if _defines(block, kinds):
        # A name holding a string is read where it is sent (its sites' methods and checks are
        # the sending call's, whose own statement is read); one holding a map may hold keys.
        text = document.data[block.start_byte : block.end_byte]
        return b"{" in text or b"dict(" in text or b"Map" in text
    data_class = block.type in ("class_definition", "class_declaration") or (
        block.type == "decorated_definition"
        and b"class " in document.data[block.start_byte : block.end_byte]
    )
    return data_class and not any(item.site.role == ENDPOINT for item in read)


def _reuse(
    found: dict[tuple[int, int, int, str, str], Located], reused: list[Located], first_line: int
) -> None:
    """Put a cached block's sites (lines relative to the block) back at `first_line`."""
    for item in reused:
        moved = replace(item, line=item.line + first_line)
        site = moved.site
        found[(moved.line, site.start, site.end, site.role, site.name)] = moved


def _read_block(
    document: Document,
    root: Node,
    nodes: list[Node],
    language: str,
    found: dict[tuple[int, int, int, str, str], Located],
    deadline: float,
    limit: int,
    memo: NameMemo,
) -> list[Located] | None:
    """Ask the reader at every capture of one top-level statement (its `nodes`, in `root`'s
    tree); the new sites, with document lines, or None when the budget ran out before all."""
    from tree_sitter import QueryCursor

    reader = reader_for(language)
    assert reader is not None  # only languages of TREE_LANGUAGES come here
    query = _query(language)
    captured: list[tuple[Node, bool]] = []
    for node in nodes:
        captures = QueryCursor(query).captures(node)
        captured += [(c, False) for c in captures.get("s", [])]
        if "n" in captures:
            shared = module_sends(document, root, memo)
            constants = shared_constants(document, root, memo)
            sends = shared_sends(document, captures["n"], shared, constants)
            captured += [(c, False) for c in sends]
        captured += [(c, False) for c in captures.get("c", []) if sent(document, c)]
        captured += [(c, False) for c in captures.get("m", []) if in_dict_call(document, c)]
        built = captures.get("b", [])
        captured += [(c, False) for c in built if sent(document, built_call(c))]
        captured += [(c, True) for c in captures.get("k", []) if on_client(document, c)]
    captured.sort(key=lambda c: c[0].start_byte)
    out: list[Located] = []
    for node, sdk in captured:
        if len(found) >= limit or time.monotonic() > deadline:
            return None
        for offset in [node.start_byte] if sdk or node.type == "call" else _probes(document, node):
            line, _ = document.position(offset)
            site = reader(document, root, language, line, offset, memo=memo).read()
            item = _keep(found, document, line, site, sdk=sdk)
            if item is not None:
                out.append(item)
    return out


def _query(language: str) -> Any:
    query = _QUERY_CACHE.get(language)
    if query is None:
        from tree_sitter import Query

        grammar = load_language(language)
        assert grammar is not None  # the callers return early without one
        source = _QUERIES[language] + " " + _SDK_QUERIES.get(language, "")
        query = _QUERY_CACHE[language] = Query(grammar, source)
    return query


# Lines of statements shown per window in a windowed scan (beside the module's assignments): a
# window's tree (~2 KB a line) is what such a scan holds at once.
WINDOW_SCAN_LINES = 1500


def _scan_windows(
    text: str, language: str, deadline: float, limit: int, cache: ScanCache | None
) -> list[Located]:
    """`_scan_tree` for a document read through windows (`windows.is_windowed`), so no tree of
    the whole file is ever built. Each top-level statement is read beside the module's
    assignments and imports (its context, as in `ScanCache`); an assignment also beside the
    statements that use the name it assigns, since a string in it is read as the URL of the
    call it reaches. Statements not in `cache` are parsed a few hundred lines at a time."""
    if load_language(language) is None:
        return []
    outline = outline_of(text, language)
    context = outline.context()
    if len(context) > _MAX_CONTEXT_BYTES:
        cache = None
    kinds = _DEFINING[language]
    found: dict[tuple[int, int, int, str, str], Located] = {}
    kept: dict[tuple[Any, ...], list[Located]] = {}
    # Windows to parse: the statements read there (with their keys) and every statement shown.
    # Assignments come last, in windows of their own: what they need (the statements using the
    # names they assign) is mostly the same few statements for all of them.
    windows: list[tuple[list[tuple[int, int, tuple[Any, ...]]], dict[tuple[int, int], None]]] = []
    order = sorted(outline.statements, key=lambda st: outline.is_value(st[0]))
    read: list[tuple[int, int, tuple[Any, ...]]] = []
    shown: dict[tuple[int, int], None] = {}
    shown_lines = 0
    late = False  # past the deadline: what the cache holds is still used, nothing is read
    for start, end in order:
        needs = outline.needs(start, end)
        key = (language, outline.body(start, end), context)
        key += tuple(outline.body(s, e) for s, e in needs)
        reused = cache.take(key) if cache is not None else None
        if reused is not None:
            kept[key] = reused
            _reuse(found, reused, start)
            continue
        late = late or time.monotonic() > deadline
        if late:
            continue  # what is found so far is the answer, as in `_scan_tree`
        if read and (outline.is_value(start) != outline.is_value(read[-1][0])):
            windows.append((read, shown))
            read, shown, shown_lines = [], {}, 0
        read.append((start, end, key))
        for statement in ((start, end), *needs):
            if statement not in shown:
                shown[statement] = None
                shown_lines += statement[1] - statement[0]
        if shown_lines >= WINDOW_SCAN_LINES:
            windows.append((read, shown))
            read, shown, shown_lines = [], {}, 0
    if read:
        windows.append((read, shown))
    for statements_read, statements_shown in windows:
        if len(found) >= limit or time.monotonic() > deadline:
            break  # nothing more would be read: the window is not worth parsing
        lines = window(outline.lines, [*outline.values, *statements_shown])
        document, tree = parse_once("\n".join(lines), language)
        if tree is None:
            continue
        root = tree.root_node
        memo = NameMemo()
        tops = root.named_children
        top_lines = [n.start_point[0] for n in tops]  # in order: a statement's nodes by bisection
        for start, end, key in statements_read:
            nodes = tops[bisect_left(top_lines, start) : bisect_left(top_lines, end)]
            got = _read_block(document, root, nodes, language, found, deadline, limit, memo)
            if got is not None and not any(_sent_elsewhere(document, n, got, kinds) for n in nodes):
                kept[key] = [replace(item, line=item.line - start) for item in got]
    if cache is not None:
        cache.keep(kept)
    return sorted(found.values(), key=lambda f: (f.line, f.site.start))


# --- markdown --------------------------------------------------------------------------------


def _has_reader(language: str) -> bool:
    """Whether `scan_calls` reads documents of `language` (not ``text``, ``console``, ...)."""
    return language in ("markdown", "shell", "http", "json", "html") or (
        language in TEXT_LANGUAGES or language in TREE_LANGUAGES or is_generic(language)
    )


def _scan_markdown(text: str, deadline: float, limit: int) -> list[Located]:
    found: list[Located] = []
    code_lines: set[int] = set()  # lines of code blocks a code reader read
    for info, body_start, body_end in fenced_blocks(text):
        body = text[body_start:body_end]
        language = block_language(info, body)
        remaining = deadline - time.monotonic()
        if not _has_reader(language) or len(body) > MAX_BLOCK_CHARS or remaining <= 0:
            continue  # a ```text block's request lines are read as prose's
        first = text.count("\n", 0, body_start)
        code_lines.update(range(first, first + body.count("\n") + 1))
        for item in scan_calls(body, language, budget_s=remaining, limit=limit - len(found)):
            found.append(
                Located(item.line + first, item.site, item.value, item.value_start, item.value_end)
            )
    # Request lines in prose and blocks no code reader took (``GET /rest/2.0/assets``), and in a
    # README's table of the endpoints it calls (``| `GET` | `/rest/2.0/assets` | ... |``).
    lines = text.split("\n")
    commands, command_lines = prose_commands(lines, code_lines)  # `curl https://...` in prose
    if command_lines:
        found += _scan_shell(Document(commands), deadline, limit - len(found))
    taken = [
        (n, table_row_line(lines[n]) if _TABLE_ROW.search(lines[n]) else lines[n])
        for n in range(len(lines))
        if n not in code_lines and n not in command_lines
    ]
    bare = "/rest/2.0" in text  # a bare ``GET /users`` is Collibra's where the page says so
    found += [
        replace(item, checked=False)
        for item in _request_lines(taken, "markdown", deadline, limit - len(found), bare=bare)
    ]
    # ``Method: POST`` above ``URL: .../rest/2.0/assets``; a table's path cell before its method's
    raw = [(n, lines[n]) for n, _ in taken]
    found += [
        replace(item, checked=False) for item in labelled_requests(raw, "markdown", bare=bare)
    ]
    found.sort(key=lambda f: (f.line, f.site.start))
    return found
