"""Groovy and Java snippet styles: a request builder chain passed to a generated client."""

from __future__ import annotations

import random
import re

from benchmarks.devset.snippets.snippet import Snippet
from benchmarks.devset.snippets.values import Key, singular, value_code
from benchmarks.devset.spec import Op


def _singular_receiver(tag: str) -> tuple[str, str]:
    words = re.findall(r"[A-Za-z0-9]+", tag) or ["api"]
    words[-1] = singular(words[-1])
    type_name = "".join(w[0].upper() + w[1:] for w in words) + "Api"
    return type_name[0].lower() + type_name[1:], type_name


def _request_class(op: Op) -> str:
    if op.body_schema:
        return op.body_schema
    return op.operation_id[0].upper() + op.operation_id[1:] + "Request"


def _builder_lines(
    op: Op,
    keys: list[Key],
    s: Snippet,
    lang: str,
    rng: random.Random,
    variables: list[str],
    indent: str,
) -> list[str]:
    request = _request_class(op)
    lines = [f"{request}.builder()"]
    for key in keys:
        lines.append(
            f"{indent}.{s.mark(key.name, op, key.name, key.role)}"
            f"({value_code(key, lang, rng, variables)})"
        )
    lines.append(f"{indent}.build()")
    return lines


def style_groovy_builder(
    op: Op, query: list[Key], body: list[Key], s: Snippet, rng: random.Random
) -> tuple[str, list[str]]:
    receiver, _ = _singular_receiver(op.tag)
    variables: list[str] = []
    built = _builder_lines(op, body or query, s, "groovy", rng, variables, "        ")
    argument = "[request]" if body and op.body_is_array else "request"
    lines = [
        "// Script task: values come from the workflow's start form",
        *[f'def {v} = execution.getVariable("{v}")' for v in dict.fromkeys(variables)],
        f"def request = {built[0]}",
        *built[1:],
        f"def result = {receiver}.{s.endpoint(op.operation_id, op)}({argument})",
        'execution.setVariable("result", result)',
    ]
    return "groovy", lines


def style_java_builder(
    op: Op, query: list[Key], body: list[Key], s: Snippet, rng: random.Random
) -> tuple[str, list[str]]:
    receiver, type_name = _singular_receiver(op.tag)
    variables: list[str] = []
    built = _builder_lines(op, body or query, s, "java", rng, variables, "                ")
    request = _request_class(op)
    argument = "List.of(request)" if body and op.body_is_array else "request"
    cls = type_name.removesuffix("Api") + "Sync"
    params = ", ".join(f"String {v}" for v in dict.fromkeys(variables))
    lines = [
        "import java.util.List;",
        "import java.util.Map;",
        "import java.util.UUID;",
        "",
        f"public class {cls} {{",
        f"    private final {type_name} {receiver};",
        "",
        f"    public {cls}({type_name} {receiver}) {{",
        f"        this.{receiver} = {receiver};",
        "    }",
        "",
        f"    public Object run({params}) {{",
        f"        {request} request = {built[0]}",
        *built[1:-1],
        f"{built[-1]};",
        f"        return {receiver}.{s.endpoint(op.operation_id, op)}({argument});",
        "    }",
        "}",
    ]
    return "java", lines
