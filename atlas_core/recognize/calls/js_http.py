"""One JavaScript or TypeScript request as the code writes it (`js_requests` reads them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node

    from atlas_core.recognize.calls.js_destructured import Patterns
    from atlas_core.recognize.calls.walk import KeyContext

# A function parameter's binding where a wrapper call forwards its own parameter: which function
# it is, only the calls of the function it is in say.
FORWARDED = "fn:forwarded"


@dataclass(slots=True)
class Http:
    """One request as the code writes it."""

    method: str
    url: Node | None
    style: str  # "fetch", "axios" (verb call), "config" (axios(config)), "options" (ky, got),
    # "jquery" ($.get(url, data)), "xhr" (xhr.open(method, url)), "wrapper" (a call of the
    # code's own function that makes the request `inner`), "passed" (a call of a function the
    # caller passes as parameter `verb`: which request it is, the caller's argument says),
    # "named" (a helper out of view whose name says the method: `apiGet(url)`)
    verb: str = ""
    base: str = ""
    call: Node | None = None
    method_node: Node | None = None  # where the method is written, when not in the verb
    inner: Http | None = None
    args: tuple[tuple[str, Node | None], ...] = ()  # the wrapper's parameters and arguments
    roles: dict[int, KeyContext] | None = None  # a wrapper's argument -> what its keys are
    method_param: str = ""  # the parameter whose options, merged in last, may set the method
    patterns: Patterns | None = None  # a wrapper's destructured options parameters, by index
