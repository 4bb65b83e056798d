"""One request as a snippet writes it, the values of its keys, and how each language spells a
value, a path and the planted text's mark."""

from __future__ import annotations

import json
import random
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

from benchmarks.devset.apicases.spec import ApiOp, Field
from benchmarks.devset.casing import snake

# The planted text is wrapped in these while rendering; `locate` finds and removes them.
OPEN, CLOSE = "\u27e6", "\u27e7"
_MARK = re.compile(f"{OPEN}([^{CLOSE}]*){CLOSE}")
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")


def mark(text: str) -> str:
    return f"{OPEN}{text}{CLOSE}"


@dataclass(slots=True)
class Request:
    op: ApiOp  # the operation the code means to call (names the function)
    method: str
    segments: list[str]  # literal segments, `{param}` for a path parameter
    query: dict[str, Any] = field(default_factory=dict)
    body_kind: str = "none"
    body: Any = None  # dict, list of dicts, list of ids; None for none/opaque/form
    prose: str = ""  # a sentence for a comment or docstring naming an endpoint in prose

    @property
    def params(self) -> list[str]:
        return [s[1:-1] for s in self.segments if s.startswith("{")]

    @property
    def sends_body(self) -> bool:
        return self.body_kind != "none"


_STRINGS = {
    "name": "Customer ID",
    "displayName": "Customer identifier",
    "description": "Synced from the CRM",
    "value": "42",
    "email": "jane.doe@acme.com",
    "content": "Reviewed by the data office",
    "comment": "Reviewed by the data office",
    "tagNames": "reviewed",
    "userName": "jane.doe",
    "firstName": "Jane",
    "lastName": "Doe",
}


def new_id(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def value(f: Field, rng: random.Random) -> Any:
    """A plausible literal for a field: a valid enum value, an id, a number, a word."""
    schema = f.schema
    kind = schema.get("type")
    if f.enum:
        picked = rng.choice(f.enum)
        return [picked] if kind == "array" else picked
    if kind == "array":
        item = Field(f.name.removesuffix("s"), schema.get("items") or {}, False, False)
        return [value(item, rng)]
    if schema.get("format") == "uuid" or (kind == "string" and re.search(r"I[dD]s?$", f.name)):
        return new_id(rng)
    if kind == "boolean":
        return rng.choice([True, False])
    if kind in ("integer", "number"):
        if f.name in ("limit", "countLimit"):
            return 100
        return 0 if f.name == "offset" else rng.choice([1, 10])
    if kind == "object" or "additionalProperties" in schema or schema.get("properties"):
        return {}
    if schema.get("format") == "date-time":
        return "2026-01-31T00:00:00Z"
    return _STRINGS.get(f.name, "Customer ID" if "name" in f.name.lower() else "nightly sync")


# --- spelling values ---------------------------------------------------------------------------


def py(v: Any, indent: str = "", multiline: bool = True) -> str:
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(py(x, indent, multiline) for x in v) + "]"
    if isinstance(v, dict):
        items = [f"{py(k)}: {py(x, indent + '    ', False)}" for k, x in v.items()]
        if not multiline or len(items) < 2:
            return "{" + ", ".join(items) + "}"
        inner = "".join(f"{indent}    {item},\n" for item in items)
        return "{\n" + inner + indent + "}"
    return "None"


def js_key(k: str) -> str:
    plain = k.replace(OPEN, "").replace(CLOSE, "")
    return k if _IDENT.fullmatch(plain) else json.dumps(k, ensure_ascii=False)


def js(v: Any, indent: str = "", multiline: bool = True) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(js(x, indent, multiline) for x in v) + "]"
    if isinstance(v, dict):
        items = [f"{js_key(k)}: {js(x, indent + '  ', False)}" for k, x in v.items()]
        if not items:
            return "{}"
        if not multiline or len(items) < 2:
            return "{ " + ", ".join(items) + " }"
        inner = "".join(f"{indent}  {item},\n" for item in items)
        return "{\n" + inner + indent + "}"
    return "null"


def groovy(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(groovy(x) for x in v) + "]"
    if isinstance(v, dict):
        if not v:
            return "[:]"
        return "[" + ", ".join(f"{js_key(k)}: {groovy(x)}" for k, x in v.items()) + "]"
    return "null"


def json_text(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False)


def query_string(query: dict[str, Any]) -> str:
    """`?a=1&b=x` as a URL holds it (first item of a list, spaces encoded)."""
    if not query:
        return ""
    parts = []
    for k, v in query.items():
        if isinstance(v, list):
            v = v[0] if v else ""
        text = "true" if v is True else "false" if v is False else str(v)
        parts.append(f"{k}={text.replace(' ', '%20')}")
    return "?" + "&".join(parts)


def query_strings(query: dict[str, Any]) -> dict[str, str]:
    """Query values as URLSearchParams takes them: strings."""
    out = {}
    for k, v in query.items():
        if isinstance(v, list):
            v = v[0] if v else ""
        out[k] = "true" if v is True else "false" if v is False else str(v)
    return out


# --- paths and names ---------------------------------------------------------------------------


def camel(name: str) -> str:
    return name[0].lower() + name[1:] if name else name


def path_with(segments: list[str], param: Any) -> str:
    """The path with each `{p}` replaced by `param(p)`."""
    return "/" + "/".join(param(s[1:-1]) if s.startswith("{") else s for s in segments)


def concat_path(segments: list[str], var: Any, quote: str = '"') -> str:
    """`"/assets/" + asset_id + "/tags"`: the path as string pieces joined to variables."""
    pieces: list[str] = []
    text = ""
    for s in segments:
        text += "/"
        if s.startswith("{"):
            pieces.append(f"{quote}{text}{quote}")
            pieces.append(var(s[1:-1]))
            text = ""
        else:
            text += s
    if text:
        pieces.append(f"{quote}{text}{quote}")
    return " + ".join(pieces)


def fn_name(op: ApiOp, lang: str) -> str:
    name = op.operation_id or re.sub(r"\W+", "_", f"{op.method.lower()}{op.path}")
    return snake(name) if lang == "python" else camel(name)


def class_name(op: ApiOp, suffix: str) -> str:
    words = re.findall(r"[A-Za-z0-9]+", op.tag) or ["Collibra"]
    return "".join(w[0].upper() + w[1:] for w in words) + suffix


def locate(code: str) -> tuple[str, int, str] | None:
    """Removes the mark: the clean code, the marked line (0-based) and the marked text."""
    lines = code.split("\n")
    for number, line in enumerate(lines):
        m = _MARK.search(line)
        if m:
            lines[number] = line[: m.start()] + m.group(1) + line[m.end() :]
            return "\n".join(lines), number, m.group(1)
    return None
