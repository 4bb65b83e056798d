"""How code writes a member: the realistic spellings of each class (method, step 4).

Each function lists a class's spellings as `(label, text)` in a fixed order; a case takes one of
them, drawn with `random.Random(f"{seed}:{class}:{name}")`, so adding a member never changes the
spelling of another.
"""

from __future__ import annotations

import random
import re
import uuid
from typing import Any

from benchmarks.devset.casing import snake

HOST = "https://acme.collibra.com"

Spelling = tuple[str, str]  # (label, text as code writes it)


def choose(seed: int, cls: str, name: str, spellings: list[Spelling]) -> Spelling:
    return random.Random(f"{seed}:{cls}:{name}").choice(spellings)


def path_spellings(method: str, path: str, base: str) -> list[Spelling]:
    """A spec path as a template, with the spec's base, with the method, or as a full URL; path
    parameters also as a literal UUID (names ending in Id) or `<snake_name>`."""
    variants = [("", path)]
    params = re.findall(r"\{([^}]+)\}", path)
    if params:
        literal = angle = path
        for name in params:
            value = (
                str(uuid.uuid5(uuid.NAMESPACE_URL, f"{method} {path} {name}"))
                if name.lower().endswith("id")
                else f"<{snake(name)}>"
            )
            literal = literal.replace("{" + name + "}", value)
            angle = angle.replace("{" + name + "}", f"<{snake(name)}>")
        variants = [(",braces", path), (",literal", literal), (",angle", angle)]
    return [
        (label + suffix, text)
        for suffix, p in dict.fromkeys(variants)
        for label, text in (
            ("template", p),
            ("base", base + p),
            ("method", f"{method} {p}"),
            ("method+base", f"{method} {base}{p}"),
            ("url", HOST + base + p),
        )
    ]


def called_path_spellings(verb: str, url: str) -> list[Spelling]:
    """A path only the written pages call: as written, with the method, or as a full URL."""
    return [("as-written", url), ("method", f"{verb} {url}"), ("url", HOST + url)]


def tag_receiver(tag: str) -> str:
    """The API object a generated JavaScript client names after a tag (`assetsApi`)."""
    words = re.findall(r"[A-Za-z0-9]+", tag) or ["api"]
    return words[0].lower() + "".join(w.capitalize() for w in words[1:]) + "Api"


def operation_spellings(name: str, receiver: str) -> list[Spelling]:
    return [("bare", name), ("call", name + "()"), ("receiver", f"{receiver}.{name}")]


def example_value(name: str, schema: dict[str, Any]) -> str:
    """A plausible wire value, for `name=value` spellings (deterministic)."""
    if schema.get("enum"):
        return str(schema["enum"][-1])
    if schema.get("format") == "uuid" or name.endswith("Id"):
        return str(uuid.uuid5(uuid.NAMESPACE_URL, name))
    kind = schema.get("type")
    if kind == "boolean":
        return "true"
    if kind == "integer":
        return "100" if name == "limit" else "0"
    return "Customer"


def parameter_spellings(name: str, loc: str, schema: dict[str, Any]) -> list[Spelling]:
    spellings = quoted_spellings(name)
    if loc == "query":
        spellings.append(("query-string", f"{name}={example_value(name, schema)}"))
    if loc == "path":
        spellings.append(("template", "{" + name + "}"))
    return spellings


def quoted_spellings(name: str) -> list[Spelling]:
    return [("bare", name), ("quoted", f'"{name}"')]


def constant_spellings(name: str, env: bool) -> list[Spelling]:
    """`env`: the pages assign it as an environment variable or read it as `$NAME`."""
    spellings = quoted_spellings(name)
    if env:
        spellings += [
            ("shell-var", f"${name}"),
            ("python-env", f'os.environ["{name}"]'),
            ("node-env", f"process.env.{name}"),
        ]
    return spellings


def type_spellings(name: str, has_model_page: bool) -> list[Spelling]:
    spellings = [("bare", name)]
    if has_model_page:
        spellings.append(("python-client", f"collibra_core.{name}"))
    if name.endswith("Request"):
        spellings.append(("builder", f"{name}.builder()"))
    return spellings


def command_spellings(command: str) -> list[Spelling]:
    return [("as-written", command), ("prompt", ("> " if "\\" in command else "$ ") + command)]


def as_written(token: str) -> list[Spelling]:
    return [("as-written", token)]
