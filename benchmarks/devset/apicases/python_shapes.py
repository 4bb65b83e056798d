"""Python call shapes: `requests` module functions, a `requests.Session`, `httpx.Client` with a
base URL, and a small client class whose methods go through `self._request`."""

from __future__ import annotations

import random

from benchmarks.devset.apicases.request import (
    Request,
    class_name,
    concat_path,
    fn_name,
    path_with,
    py,
)
from benchmarks.devset.casing import snake


def _kwargs(req: Request, indent: str, body_name: str = "json") -> list[str]:
    lines = []
    if req.query:
        lines.append(f"{indent}params={py(req.query, indent)},")
    if req.body_kind == "opaque":
        lines.append(f"{indent}data=view_config,")
    elif req.body is not None:
        lines.append(f"{indent}{body_name}={py(req.body, indent)},")
    return lines


def _signature(req: Request, *first: str) -> str:
    names = [*first, *(snake(p) for p in dict.fromkeys(req.params))]
    if req.body_kind == "opaque":
        names.append("view_config")
    return ", ".join(names)


def _docstring(req: Request, indent: str) -> list[str]:
    return [f'{indent}"""{req.prose}"""'] if req.prose else []


def _fstring(req: Request, prefix: str) -> str:
    path = path_with(req.segments, lambda p: "{" + snake(p) + "}")
    return f'f"{prefix}{path}"' if req.params or "{" in prefix else f'"{prefix}{path}"'


def python_requests(req: Request, rng: random.Random) -> list[str]:
    if req.params and rng.random() < 0.5:
        url = "BASE + " + concat_path(req.segments, snake)
    else:
        url = _fstring(req, "{BASE}")
    return [
        "import os",
        "",
        "import requests",
        "",
        'BASE = "https://acme.collibra.com/rest/2.0"',
        'AUTH = ("svc-catalog", os.environ["COLLIBRA_PASSWORD"])',
        "",
        "",
        f"def {fn_name(req.op, 'python')}({_signature(req)}):",
        *_docstring(req, "    "),
        f"    response = requests.{req.method.lower()}(",
        f"        {url},",
        *_kwargs(req, "        "),
        "        auth=AUTH,",
        "        timeout=30,",
        "    )",
        "    response.raise_for_status()",
        "    return response.json()",
    ]


def python_session(req: Request, rng: random.Random) -> list[str]:
    url = _fstring(req, "https://acme.collibra.com/rest/2.0")
    if rng.random() < 0.3:
        head = ["    response = session.request(", f'        "{req.method}",']
    else:
        head = [f"    response = session.{req.method.lower()}("]
    return [
        "import requests",
        "",
        "session = requests.Session()",
        'session.headers["Authorization"] = "Bearer " + open(".token").read().strip()',
        "",
        "",
        f"def {fn_name(req.op, 'python')}({_signature(req)}):",
        *_docstring(req, "    "),
        *head,
        f"        {url},",
        *_kwargs(req, "        "),
        "    )",
        "    response.raise_for_status()",
        "    return response.json()",
    ]


def python_httpx(req: Request, rng: random.Random) -> list[str]:
    url = _fstring(req, "")
    if req.sends_body and req.method in ("GET", "DELETE"):
        head = ["    response = client.request(", f'        "{req.method}",']
    else:
        head = [f"    response = client.{req.method.lower()}("]
    return [
        "import httpx",
        "",
        "client = httpx.Client(",
        '    base_url="https://acme.collibra.com/rest/2.0",',
        '    auth=("svc-catalog", "change-me"),',
        "    timeout=30.0,",
        ")",
        "",
        "",
        f"def {fn_name(req.op, 'python')}({_signature(req)}):",
        *_docstring(req, "    "),
        *head,
        f"        {url},",
        *_kwargs(req, "        "),
        "    )",
        "    response.raise_for_status()",
        "    return response.json()",
    ]


def python_client_class(req: Request, rng: random.Random) -> list[str]:
    cls = class_name(req.op, "Client")
    return [
        "import requests",
        "",
        "",
        f"class {cls}:",
        '    """A thin wrapper: one session, JSON in and out."""',
        "",
        "    def __init__(self, host, user, password):",
        '        self.base_url = f"https://{host}/rest/2.0"',
        "        self.session = requests.Session()",
        "        self.session.auth = (user, password)",
        "",
        "    def _request(self, method, path, **kw):",
        "        response = self.session.request(method, self.base_url + path, **kw)",
        "        response.raise_for_status()",
        "        return response.json() if response.content else None",
        "",
        f"    def {fn_name(req.op, 'python')}({_signature(req, 'self')}):",
        *_docstring(req, "        "),
        "        return self._request(",
        f'            "{req.method}",',
        f"            {_fstring(req, '')},",
        *_kwargs(req, "            "),
        "        )",
    ]
