"""What the document scan (`scan`) asks about beyond strings: names a verb-named call sends as
its URL where one URL reaches several calls (a name two calls of a function send, the module's
own sends, module URL constants several functions send), URL-building calls, ``dict()`` keyword
keys, and generated-client calls. Each is found from the text once per scan, or by a cheap look
around one capture."""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING

from atlas_core.syntax import Document, ancestors

if TYPE_CHECKING:
    from tree_sitter import Node

    from atlas_core.recognize.calls.tree_reader import NameMemo

# The verb-named calls a sent name is asked about at (no query predicate: a tree parsed from a
# callback has no text for one to read).
_SEND_VERBS = rb"(?:get|post|put|patch|delete|fetch|request|ajax|axios)"
_SENDS = re.compile(rb"(?i)(?:^|[.])" + _SEND_VERBS + rb"$")
_FUNCTION_SCOPES = frozenset(
    {
        "function_declaration", "generator_function_declaration", "function_expression",
        "function", "arrow_function", "method_definition", "function_definition", "lambda",
    }
)  # fmt: skip
_DEFINITIONS = frozenset(
    {
        "function_declaration", "generator_function_declaration", "class_declaration",
        "function_definition", "class_definition", "decorated_definition",
    }
)  # fmt: skip
_SENT_NAME_TEXT = re.compile(
    rb"(?i)(?<![\w$])" + _SEND_VERBS + rb"\s*\(\s*([A-Za-z_$][\w$]*)\s*[,)]"
)
# `api.`, `client().`, and Java's method reference `assetApi::`
_CLIENT_RECEIVER = re.compile(
    rb"(?i)(?:api|client|service)(?:_instance)?\s*(?:\([^()\n]{0,80}\))?\s*(?:[.]|::)\s*$"
)


def shared_sends(
    document: Document,
    names: list[Node],
    module: frozenset[bytes],
    constants: frozenset[bytes] = frozenset(),
) -> list[Node]:
    """Of the captured first arguments of verb-named calls, those whose name two or more such
    calls of the same function send (or of the module's own code: `module`, or a module
    constant's several functions send: `constants`); a name one call sends is read at its URL's
    literal already."""
    sending = [
        (n, _scope(n), document.data[n.start_byte : n.end_byte]) for n in names if sent(document, n)
    ]
    counts = Counter((scope, text) for _, scope, text in sending)
    return [
        n
        for n, scope, text in sending
        if counts[(scope, text)] > 1 or (scope == -1 and text in module) or text in constants
    ]


def _scope(node: Node) -> int:
    """The id of the function `node` is in; -1 at module level."""
    found = next((a for a in ancestors(node) if a.type in _FUNCTION_SCOPES), None)
    return found.id if found is not None else -1


def module_sends(document: Document, root: Node, memo: NameMemo) -> frozenset[bytes]:
    """The names two or more verb-named calls of the module's own statements send (functions and
    classes left out), found once per scan from the text."""

    def read() -> frozenset[bytes]:
        counts: Counter[bytes] = Counter()
        for block in root.named_children:
            if block.type not in _DEFINITIONS:
                text = document.data[block.start_byte : block.end_byte]
                counts.update(m.group(1) for m in _SENT_NAME_TEXT.finditer(text))
        return frozenset(name for name, n in counts.items() if n > 1)

    return memo.remember(("module-sends", 0), read)


# A module-level assignment's name: ``ASSETS = ...``, ``export const ASSETS: string = ...``.
_ASSIGNED_NAME = re.compile(
    rb"(?:export\s+)?(?:const\s+|let\s+|var\s+)?([A-Za-z_$][\w$]*)\s*(?::[^=\n]{0,80})?=(?!=)"
)


# Around a name a verb-named call sends: ``get(`` before it (the name not part of a longer one),
# ``,`` or ``)`` after it.
_SENT_BEFORE = re.compile(rb"(?i)(?<![\w$])" + _SEND_VERBS + rb"\s*\(\s*$")
_SENT_AFTER = re.compile(rb"\s*[,)]")
_CONSTANT_OCCURRENCES = 5000  # past this, a long file's other constants are not looked for
_MAX_CONSTANTS = 64  # module-level URL constants looked for, the first ones written


def shared_constants(document: Document, root: Node, memo: NameMemo) -> frozenset[bytes]:
    """The module-level names that two or more verb-named calls anywhere in the document send
    (``ASSETS_URL = ...`` fetched by two functions): the constant's literal is no one call's,
    so each call is read at the name it sends. Found once per scan from the text: only the
    constants whose value writes a "/" are looked for, each where its name occurs."""
    data = document.data
    budget = [_CONSTANT_OCCURRENCES]  # occurrences looked at, all names together

    def sends(name: bytes) -> int:
        count, at = 0, data.find(name)
        while at >= 0 and count < 2 and budget[0] > 0:
            budget[0] -= 1
            end = at + len(name)
            opening = data.rfind(b"(", max(0, at - 8), at)
            if (
                opening >= 0
                and not data[opening + 1 : at].strip()
                and _SENT_AFTER.match(data, end) is not None
                and _SENT_BEFORE.search(data, max(0, opening - 40), opening + 1) is not None
            ):
                count += 1
            at = data.find(name, end)
        return count

    def read() -> frozenset[bytes]:
        declared: set[bytes] = set()
        for block in root.named_children:
            if block.type in _DEFINITIONS or data.find(b"/", block.start_byte, block.end_byte) < 0:
                continue
            m = _ASSIGNED_NAME.match(data, block.start_byte, block.end_byte)
            if m is not None:
                declared.add(m.group(1))
                if len(declared) >= _MAX_CONSTANTS:
                    break  # a file of many: data, not a client's few URLs
        return frozenset(name for name in declared if sends(name) > 1)

    return memo.remember(("shared-constants", 0), read)


def sent(document: Document, name: Node) -> bool:
    """Whether a captured first argument is a verb-named call's (`axios.delete(url)`)."""
    call = name.parent.parent if name.parent is not None else None
    function = call.child_by_field_name("function") if call is not None else None
    if function is None or function.end_byte - function.start_byte > 200:
        return False
    return bool(_SENDS.search(document.data[function.start_byte : function.end_byte]))


def in_dict_call(document: Document, keyword: Node) -> bool:
    """Whether a captured keyword name is one of ``dict(name=n, ...)``'s: a key of the map."""
    arguments = keyword.parent.parent if keyword.parent is not None else None
    call = arguments.parent if arguments is not None else None
    function = call.child_by_field_name("function") if call is not None else None
    return (
        function is not None and document.data[function.start_byte : function.end_byte] == b"dict"
    )


def built_call(name: Node) -> Node:
    """The URL-building call a captured function name (`@b`) is the callee of."""
    call = name.parent
    if call is not None and call.type == "member_expression":
        call = call.parent
    return call if call is not None else name


def on_client(document: Document, node: Node) -> bool:
    """Whether a captured method or keyword name is in a call on a generated client: the text
    just before the method name (or the call a keyword is in) ends in ``api.``, ``client.``,
    ``Service.``, ``api().``."""
    call = node.parent
    if call is not None and call.type == "keyword_argument":
        call = call.parent.parent if call.parent is not None else None  # arguments -> call
        function = call.child_by_field_name("function") if call is not None else None
        name = function.child_by_field_name("attribute") if function is not None else None
        if name is None:
            return False
        node = name
    start = max(0, node.start_byte - 80)
    return bool(_CLIENT_RECEIVER.search(document.data, start, node.start_byte))
