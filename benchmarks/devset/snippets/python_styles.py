"""Python snippet styles: requests (session, plain, dict built before, client class) and httpx."""

from __future__ import annotations

import random
import re

from benchmarks.devset.casing import snake
from benchmarks.devset.snippets.snippet import Snippet, dict_lines, fn_name, path_text, signature
from benchmarks.devset.snippets.values import Key
from benchmarks.devset.spec import Op


def _py_call_args(
    op: Op,
    query: list[Key],
    body: list[Key],
    s: Snippet,
    rng: random.Random,
    variables: list[str],
    indent: str,
) -> list[str]:
    lines: list[str] = []
    if query:
        lines.append(f"{indent}params={{")
        lines += dict_lines(query, op, s, "python", rng, variables, indent + "    ")
        lines.append(f"{indent}}},")
    if body:
        open_, close = ("[{", "}]") if op.body_is_array else ("{", "}")
        lines.append(f"{indent}json={open_}")
        lines += dict_lines(body, op, s, "python", rng, variables, indent + "    ")
        lines.append(f"{indent}{close},")
    return lines


def style_python_session(
    op: Op, query: list[Key], body: list[Key], s: Snippet, rng: random.Random
) -> tuple[str, list[str]]:
    variables: list[str] = []
    url = path_text(op, s, lambda p: "{" + snake(p) + "}")
    variables += [snake(p) for p in re.findall(r"\{([^}]+)\}", op.path)]
    args = _py_call_args(op, query, body, s, rng, variables, "        ")
    lines = [
        "import requests",
        "",
        'BASE = "https://acme.collibra.com/rest/2.0"',
        "",
        "session = requests.Session()",
        'session.auth = ("svc-catalog", "change-me")',
        "",
        "",
        f"def {fn_name(op, 'python')}({signature(variables)}):",
        f"    response = session.{op.method.lower()}(",
        f'        f"{{BASE}}{url}",',
        *args,
        "    )",
        "    response.raise_for_status()",
        "    return response.json()",
    ]
    return "python", lines


def style_python_requests(
    op: Op, query: list[Key], body: list[Key], s: Snippet, rng: random.Random
) -> tuple[str, list[str]]:
    variables: list[str] = [snake(p) for p in re.findall(r"\{([^}]+)\}", op.path)]
    url = path_text(op, s, lambda p: '" + ' + snake(p) + ' + "')
    url_expr = f'BASE + "{url}"'.replace(' + ""', "")
    args = _py_call_args(op, query, body, s, rng, variables, "        ")
    lines = [
        "import requests",
        "",
        'BASE = "https://acme.collibra.com/rest/2.0"',
        'AUTH = ("svc-catalog", "change-me")',
        "",
        "",
        f"def {fn_name(op, 'python')}({signature(variables)}):",
        f"    response = requests.{op.method.lower()}(",
        f"        {url_expr},",
        *args,
        "        auth=AUTH,",
        "    )",
        "    return response.json()",
    ]
    return "python", lines


def style_python_dict_before(
    op: Op, query: list[Key], body: list[Key], s: Snippet, rng: random.Random
) -> tuple[str, list[str]]:
    variables: list[str] = [snake(p) for p in re.findall(r"\{([^}]+)\}", op.path)]
    url = path_text(op, s, lambda p: "{" + snake(p) + "}")
    body_lines: list[str] = []
    call = [f"requests.{op.method.lower()}(url"]
    if query:
        body_lines += [
            "    params = {",
            *dict_lines(query, op, s, "python", rng, variables, "        "),
            "    }",
        ]
        call.append("params=params")
    if body:
        entries = dict_lines(body, op, s, "python", rng, variables, "        ")
        if op.body_is_array:
            body_lines += ["    item = {", *entries, "    }", "    payload = [item]"]
        else:
            body_lines += ["    payload = {", *entries, "    }"]
        call.append("json=payload")
    lines = [
        "import requests",
        "",
        'COLLIBRA = "https://acme.collibra.com"',
        'API = COLLIBRA + "/rest/2.0"',
        "",
        "",
        f"def {fn_name(op, 'python')}({signature(variables)}):",
        *body_lines,
        f'    url = f"{{API}}{url}"',
        f'    resp = {", ".join(call)}, auth=("svc-catalog", "change-me"))',
        "    resp.raise_for_status()",
        "    return resp.json()",
    ]
    return "python", lines


def client_class_fits(op: Op) -> bool:
    segments = op.path.strip("/").split("/")
    return len(segments) > 1 and any(not seg.startswith("{") for seg in segments[1:])


def style_python_client_class(
    op: Op, query: list[Key], body: list[Key], s: Snippet, rng: random.Random
) -> tuple[str, list[str]]:
    first, rest = op.path.strip("/").split("/", 1)
    variables: list[str] = [snake(p) for p in re.findall(r"\{([^}]+)\}", rest)]
    tail = Op(
        op.stem,
        op.method,
        "/" + rest,
        op.operation_id,
        op.summary,
        op.tag,
        [],
        {},
        False,
        False,
        "",
        "",
        frozenset(),
    )
    url = path_text(tail, s, lambda p: "{" + snake(p) + "}")
    s.expects[-1].update({"path": op.path})
    args = _py_call_args(op, query, body, s, rng, variables, "            ")
    cls = "".join(w.capitalize() for w in re.findall(r"[A-Za-z0-9]+", op.tag)) + "Client"
    lines = [
        "import requests",
        "",
        "",
        f"class {cls}:",
        "    def __init__(self, api, session=None):",
        "        self.session = session or requests.Session()",
        f'        self.base = api + "/{first}"',
        "",
        f"    def {fn_name(op, 'python')}(self{', ' if variables else ''}{signature(variables)}):",
        f"        response = self.session.{op.method.lower()}(",
        f'            f"{{self.base}}{url}",',
        *args,
        "        )",
        "        response.raise_for_status()",
        "        return response.json()",
        "",
        "",
        f'client = {cls}("https://acme.collibra.com/rest/2.0")',
    ]
    return "python", lines


def style_python_httpx(
    op: Op, query: list[Key], body: list[Key], s: Snippet, rng: random.Random
) -> tuple[str, list[str]]:
    variables: list[str] = [snake(p) for p in re.findall(r"\{([^}]+)\}", op.path)]
    url = path_text(op, s, lambda p: "{" + snake(p) + "}")
    literal = f'f"{url}"' if variables else f'"{url}"'
    args = _py_call_args(op, query, body, s, rng, variables, "        ")
    if body and op.method in ("GET", "DELETE"):
        head = ["    response = client.request(", f'        "{op.method}",', f"        {literal},"]
    else:
        head = [f"    response = client.{op.method.lower()}(", f"        {literal},"]
    lines = [
        "import httpx",
        "",
        "client = httpx.Client(",
        '    base_url="https://acme.collibra.com/rest/2.0",',
        '    auth=("svc-catalog", "change-me"),',
        "    timeout=30.0,",
        ")",
        "",
        "",
        f"def {fn_name(op, 'python')}({signature(variables)}):",
        *head,
        *args,
        "    )",
        "    response.raise_for_status()",
        "    return response.json()",
    ]
    return "python", lines
