"""How every feature registers its handlers: through one wrapper that turns failures into messages.

`request`, `notification` and `command` are pygls's ``server.feature`` and ``server.command`` with
the same failure handling for every handler:

- an `AtlasError` (a damaged bundle found at query time, say) is shown once with its reason and
  hint; a request answers None;
- any other exception is a bug: logged at ERROR with its traceback and shown once; a request
  answers a one-line InternalError (pygls would put the traceback in the response), so it is
  never mistaken for "nothing here";
- a `JsonRpcException` is an answer the handler chose (invalid params, say) and passes through.

A notification has nothing to answer, so its failure ends with the message.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams

from atlas_core.errors import AtlasError

if TYPE_CHECKING:
    from atlas_ls.lsp.server import AtlasLanguageServer

Handler = TypeVar("Handler", bound=Callable[..., Any])

MAX_DETAIL_CHARS = 200


def request(
    server: AtlasLanguageServer, method: str, what: str, options: Any = None
) -> Callable[[Handler], Handler]:
    """Register the decorated function as the handler of request `method`; `what` names it in
    messages ("hover failed: ...")."""

    def register(handler: Handler) -> Handler:
        server.feature(method, options)(_reporting(what, handler, answer=True))
        return handler

    return register


def notification(
    server: AtlasLanguageServer, method: str, what: str
) -> Callable[[Handler], Handler]:
    """Register the decorated function as the handler of notification `method`."""

    def register(handler: Handler) -> Handler:
        server.feature(method)(_reporting(what, handler, answer=False))
        return handler

    return register


def command(server: AtlasLanguageServer, name: str, what: str) -> Callable[[Handler], Handler]:
    """Register the decorated function as ``workspace/executeCommand`` `name`. pygls passes the
    command's arguments positionally, converted to the handler's annotated types (a bad one is
    refused as invalid params before the handler runs)."""

    def register(handler: Handler) -> Handler:
        server.command(name)(_reporting(what, handler, answer=True, arguments=name))
        return handler

    return register


def _reporting(
    what: str, handler: Callable[..., Any], *, answer: bool, arguments: str = ""
) -> Callable[..., Any]:
    """`handler`, reporting its failures; with `arguments` (a command's name), a call with too
    few or too many arguments is refused as invalid params rather than failing as a bug."""
    # functools.wraps keeps the handler's signature and annotations visible to pygls, which
    # passes the server as `ls` and converts a command's arguments by them.
    signature = inspect.signature(handler) if arguments else None

    def check(ls: AtlasLanguageServer, args: tuple[Any, ...]) -> None:
        if signature is None:
            return
        try:
            signature.bind(ls, *args)
        except TypeError as exc:
            raise JsonRpcInvalidParams(f"{arguments}: {exc}") from None

    if inspect.iscoroutinefunction(handler):

        @functools.wraps(handler)
        async def run_async(ls: AtlasLanguageServer, *args: Any) -> Any:
            check(ls, args)
            try:
                return await handler(ls, *args)
            except JsonRpcException:
                raise
            except Exception as exc:
                _report(ls, what, exc, answer=answer)
                return None

        return run_async

    @functools.wraps(handler)
    def run(ls: AtlasLanguageServer, *args: Any) -> Any:
        check(ls, args)
        try:
            return handler(ls, *args)
        except JsonRpcException:
            raise
        except Exception as exc:
            _report(ls, what, exc, answer=answer)
            return None

    return run


def _report(ls: AtlasLanguageServer, what: str, exc: Exception, *, answer: bool) -> None:
    """Report `exc`; for a request that failed on a bug, raise the one-line error it answers."""
    ls.messages.report_failure(what, exc)
    if answer and not isinstance(exc, AtlasError):
        detail = str(exc).splitlines()[0][:MAX_DETAIL_CHARS] if str(exc) else ""
        raise JsonRpcInternalError(
            f"{what} failed: {type(exc).__name__}" + (f": {detail}" if detail else "")
        ) from None
