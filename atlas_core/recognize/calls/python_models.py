"""Request bodies and params made from a model class: a pydantic ``BaseModel`` dumped
(``json=req.model_dump()``, ``.dict()``, ``model_dump(by_alias=True)``) or a ``@dataclass`` turned
into a dict (``json=asdict(req)``). The keys are the class's fields, each read at its
declaration (the alias string where the dump asks for aliases), so a misspelt field is shown
where it is written.

Precision first: a model is read only when the document shows the class (its fields, its bases up
to a pydantic ``BaseModel``) and exactly one call it is sent to. A config that renames or adds
keys (``alias_generator``, ``serialize_by_alias``, ``extra="allow"``), a custom serializer, or a
dump that picks fields (``include=``, ``exclude=``) says nothing; a base the document does not
show, ``exclude_none`` and a dumped dict changed before it is sent leave the keys checked but not
complete (no missing-required finding).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from atlas_core.recognize.calls.walk import KeyContext
from atlas_core.syntax import field as child
from atlas_core.syntax import is_field

if TYPE_CHECKING:
    from tree_sitter import Node

    from atlas_core.recognize.calls.python import PythonCalls
    from atlas_core.recognize.calls.site import CallSite

_PYDANTIC_BASES = frozenset({"BaseModel", "pydantic.BaseModel"})
_DATACLASS = frozenset({"dataclass", "dataclasses.dataclass", "pydantic.dataclasses.dataclass"})
_MODEL_DUMPS = frozenset({"model_dump", "dict", "model_dump_json", "json"})
_AS_DICT = frozenset({"asdict", "dataclasses.asdict"})
_ALIAS_KEYWORDS = ("serialization_alias", "alias")
# Dump keywords that pick which fields are sent, and those that may leave some out.
_PICKING = frozenset({"include", "exclude"})
_DROPPING = frozenset({"exclude_none", "exclude_unset", "exclude_defaults"})
_MAX_BASES = 3  # classes of the document followed up one model's bases
_MAX_USES = 32  # reads of the class's name (or of a variable holding one) looked at
_MAX_FIELDS = 200


@dataclass(frozen=True, slots=True)
class _Field:
    name: str
    alias: str
    name_node: Node
    alias_node: Node | None


@dataclass(frozen=True, slots=True)
class _Sent:
    """A model's fields and the one call its dump is sent in."""

    fields: tuple[_Field, ...]
    context: KeyContext
    by_alias: bool
    complete: bool


def model_field_site(reader: PythonCalls, node: Node) -> CallSite | None:
    """The site of a model field under the cursor: its name (``domainId: str``) or its alias
    string (``Field(alias="domainId")``), when the document sends the model in one call."""
    declaration = _declaration(node)
    if declaration is None:
        return None
    klass = _class_of_field(declaration)
    if klass is None:
        return None
    memo = reader.memo
    if memo is None:
        sent = _read_sent(reader, klass)
    else:  # the fields of one class share their call: found out once per class in a scan
        sent = memo.remember(("model", klass.id), lambda: _read_sent(reader, klass))
    if sent is None:
        return None
    target = child(declaration, "left")
    field = next((f for f in sent.fields if f.name_node == target), None)
    if field is None:
        return None
    aliased = sent.by_alias and field.alias_node is not None
    if (node == field.alias_node) != aliased:
        return None  # the key is the other spelling of this field
    keys = tuple(f.alias if sent.by_alias and f.alias else f.name for f in sent.fields)
    span = reader.content_span(node) if aliased else (node.start_byte, node.end_byte)
    name = field.alias if aliased else field.name
    return reader.context_site(sent.context, name, span, keys, complete=sent.complete)


def _declaration(node: Node) -> Node | None:
    """The annotated assignment in a class body that `node` names or gives the alias of."""
    parent = node.parent
    if node.type == "identifier":
        if parent is not None and parent.type == "assignment" and is_field(node, "left"):
            return parent if child(parent, "type") is not None else None
        return None
    if node.type != "string" or parent is None or parent.type != "keyword_argument":
        return None
    call = parent.parent.parent if parent.parent is not None else None
    assignment = call.parent if call is not None else None
    if call is None or assignment is None or assignment.type != "assignment":
        return None
    typed = child(assignment, "type") is not None
    return assignment if typed and is_field(call, "right") else None


def _class_of_field(declaration: Node) -> Node | None:
    statement = declaration.parent
    block = statement.parent if statement is not None else None
    klass = block.parent if block is not None else None
    if statement is None or statement.type != "expression_statement" or klass is None:
        return None
    return klass if klass.type == "class_definition" else None


# --- the class -------------------------------------------------------------------------------


def _read_sent(reader: PythonCalls, klass: Node) -> _Sent | None:
    kind = _kind(reader, klass)
    if kind is None:
        return None
    fields, complete = _fields(reader, klass, kind, 0)
    if fields is None or not fields:
        return None
    contexts = []
    for dump in _dumps(reader, klass, kind):
        keywords = {reader.text(child(k, "name")): child(k, "value") for k in reader._kwargs(dump)}
        if _PICKING & keywords.keys():
            return None
        context = reader._container(dump, 1)
        if context is None:
            continue
        by_alias = kind == "pydantic" and _is_true(keywords.get("by_alias"))
        whole = complete and context.direct and not _DROPPING & keywords.keys()
        contexts.append((context, by_alias, whole))
    if len(contexts) != 1:
        return None  # sent nowhere the reader sees, or in several calls: no one call's keys
    context, by_alias, whole = contexts[0]
    return _Sent(tuple(fields), context, by_alias, whole and not context.nested)


def _kind(reader: PythonCalls, klass: Node) -> str | None:
    """ "pydantic" for a visible ``BaseModel`` subclass, "dataclass" for a ``@dataclass``."""
    decorated = klass.parent
    if decorated is not None and decorated.type == "decorated_definition":
        for decorator in decorated.named_children:
            if decorator.type != "decorator":
                continue
            expression = decorator.named_child(0)
            if expression is not None and expression.type == "call":
                expression = child(expression, "function")
            if reader.text(expression) in _DATACLASS:
                return "dataclass"
    if _pydantic(reader, klass, 0):
        return "pydantic"
    return None


def _pydantic(reader: PythonCalls, klass: Node, depth: int) -> bool:
    for base in _bases(klass):
        name = reader.text(base)
        if name in _PYDANTIC_BASES:
            return True
        parent = reader._class_of(name) if depth < _MAX_BASES else None
        if parent is not None and parent != klass and _pydantic(reader, parent, depth + 1):
            return True
    return False


def _bases(klass: Node) -> list[Node]:
    superclasses = child(klass, "superclasses")
    if superclasses is None:
        return []
    return [b for b in superclasses.named_children if b.type in ("identifier", "attribute")]


def _fields(
    reader: PythonCalls, klass: Node, kind: str, depth: int
) -> tuple[list[_Field] | None, bool]:
    """The fields of `klass` (its own, then its bases'), and whether they are all its fields; None
    when the class renames or serializes its keys in a way the reader does not follow."""
    complete = True
    fields: list[_Field] = []
    inherited_fields: list[_Field] = []  # after the class's own: the first key is read here
    superclasses = child(klass, "superclasses")
    if superclasses is not None and any(
        b.type not in ("identifier", "attribute") for b in superclasses.named_children
    ):
        complete = False  # ``class M(BaseModel, extra="allow")`` and the like
    for base in _bases(klass):
        name = reader.text(base)
        if name in _PYDANTIC_BASES:
            continue
        parent = reader._class_of(name) if depth < _MAX_BASES else None
        if parent is None or parent == klass:
            complete = False  # fields of a class the document does not show
            continue
        inherited, whole = _fields(reader, parent, kind, depth + 1)
        if inherited is None:
            return None, False
        inherited_fields += inherited
        complete = complete and whole
    body = child(klass, "body")
    for statement in body.named_children if body is not None else []:
        if statement.type == "decorated_definition":
            decorators = reader.text(statement)[:200]
            if "serializer" in decorators:
                return None, False  # ``@model_serializer`` makes its own keys
            if "computed_field" in decorators:
                complete = False
            continue
        if statement.type == "class_definition":  # pydantic v1's ``class Config``
            if "alias" in reader.text(statement):
                return None, False
            complete = complete and "extra" not in reader.text(statement)
            continue
        assignment = statement.named_child(0) if statement.type == "expression_statement" else None
        if assignment is None or assignment.type != "assignment":
            continue
        target = child(assignment, "left")
        if target is None or target.type != "identifier":
            continue
        name = reader.text(target)
        annotation = child(assignment, "type")
        value = child(assignment, "right")
        if name == "model_config":
            if "alias" in reader.text(value):
                return None, False
            complete = complete and "extra" not in reader.text(value)
            continue
        if annotation is None or name.startswith("_"):
            continue
        if reader.text(annotation).startswith(("ClassVar", "typing.ClassVar", "InitVar")):
            continue
        field = _field(reader, name, target, value)
        if field is None:
            continue  # ``Field(exclude=True)``: never sent
        fields.append(field)
        if len(fields) > _MAX_FIELDS:
            return None, False
    return fields + inherited_fields, complete


def _field(reader: PythonCalls, name: str, target: Node, value: Node | None) -> _Field | None:
    alias, alias_node = "", None
    if value is not None and value.type == "call":
        for keyword in reader._kwargs(value):
            word = reader.text(child(keyword, "name"))
            given = child(keyword, "value")
            if word == "exclude" and _is_true(given):
                return None
            if (
                word in _ALIAS_KEYWORDS
                and given is not None
                and given.type == "string"
                and (alias_node is None or word == "serialization_alias")
            ):
                alias, alias_node = reader.literal(given), given
    return _Field(name, alias, target, alias_node)


def _is_true(node: Node | None) -> bool:
    return node is not None and node.type == "true"


# --- where it is sent ----------------------------------------------------------------------


def _dumps(reader: PythonCalls, klass: Node, kind: str) -> list[Node]:
    """The calls that turn an instance of `klass` into a dict: ``m.model_dump()`` and ``asdict(m)``
    for a parameter annotated with the class, a name assigned an instance, or an instance made
    right there (``Model(...).model_dump()``)."""
    name_node = child(klass, "name")
    if name_node is None:
        return []
    name = reader.text(name_node)
    found: list[Node] = []
    uses = reader.named_nodes(name, 0, len(reader.data), _is_identifier, limit=_MAX_USES)
    for use in uses:
        if use == name_node:
            continue
        for value in _instances(reader, use):
            dump = _dump_of(reader, value, kind)
            if dump is not None:
                found.append(dump)
    return found


def _instances(reader: PythonCalls, use: Node) -> list[Node]:
    """Expressions holding an instance of the class `use` names."""
    parent = use.parent
    if parent is None:
        return []
    if parent.type == "type":  # ``req: Model`` (a parameter or an annotated assignment)
        holder = parent.parent
        if holder is None:
            return []
        if holder.type in ("typed_parameter", "typed_default_parameter"):
            param = child(holder, "name") or holder.named_child(0)
            if param is None or param.type != "identifier":
                return []
            body = child(holder.parent.parent, "body") if holder.parent is not None else None
            if body is None:
                return []
            return _reads(reader, reader.text(param), body.start_byte, body.end_byte)
        if holder.type == "assignment" and is_field(parent, "type"):
            return _assigned(reader, holder)
        return []
    if parent.type == "call" and is_field(use, "function"):
        grand = parent.parent
        if grand is not None and grand.type == "assignment" and is_field(parent, "right"):
            return _assigned(reader, grand)
        return [parent]
    return []


def _assigned(reader: PythonCalls, assignment: Node) -> list[Node]:
    target = child(assignment, "left")
    if target is None or target.type != "identifier":
        return []
    scope = reader.scope_of(assignment)
    end = scope.end_byte if scope is not None else len(reader.data)
    return _reads(reader, reader.text(target), assignment.end_byte, end)


def _reads(reader: PythonCalls, name: str, start: int, end: int) -> list[Node]:
    return list(reader.named_nodes(name, start, end, _is_identifier, limit=_MAX_USES))


def _dump_of(reader: PythonCalls, value: Node, kind: str) -> Node | None:
    parent = value.parent
    if parent is None:
        return None
    if kind == "pydantic" and parent.type == "attribute" and is_field(value, "object"):
        call = parent.parent
        method = reader.text(child(parent, "attribute"))
        if call is not None and call.type == "call" and method in _MODEL_DUMPS:
            return call
        return None
    if kind == "dataclass" and parent.type == "argument_list":
        call = parent.parent
        if call is not None and reader.text(child(call, "function")) in _AS_DICT:
            return call if parent.named_child_count == 1 else None
    return None


def _is_identifier(node: Node) -> bool:
    return node.type == "identifier"
