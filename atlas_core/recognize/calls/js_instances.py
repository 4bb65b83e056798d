"""Client instances made with a base URL, ``axios.create({baseURL})``, ``$fetch.create(...)``::

const api = axios.create({ baseURL: "https://acme.collibra.com/rest/2.0" });
api.get("/assets", { params });                       // a verb method of the instance
api({ url: "/roles", method: "get" });                // the instance called with a config
const ofetch = $fetch.create({ baseURL: ROOT });
ofetch("/workflowTasks", { query: { limit: 20 } });   // or with a path and options
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas_core.recognize.calls.js_http import Http

if TYPE_CHECKING:
    from tree_sitter import Node

    from atlas_core.recognize.calls.js_requests import JsRequests


def instance_base(reader: JsRequests, receiver: Node) -> str | None:
    """``const api = axios.create({baseURL})``: the base of ``api.get(path)`` ("" where the
    options give none), else None."""
    if receiver.type == "call_expression":
        value = receiver  # `axios.create({baseURL}).get(path)`
    elif receiver.type == "identifier":
        value = reader._definition(receiver)
    else:
        return None
    if value is None or value.type != "call_expression":
        return None
    if not reader._callee_text(value).endswith(".create"):
        return None
    args = reader._arguments(value)
    return reader._option(args[0], "baseURL") if args else ""


def instance_call(reader: JsRequests, call: Node, args: list[Node], base: str) -> Http | None:
    """An instance with the base URL `base` called as a function: ``api(config)`` or
    ``api(url, options)``."""
    if args[0].type == "object":
        http = reader._config_call(args, "")
        if http is not None:
            http.base = http.base or base
        return http
    options = args[1] if len(args) > 1 else None
    return reader._with_method(Http("GET", args[0], "options", base=base, call=call), options)
