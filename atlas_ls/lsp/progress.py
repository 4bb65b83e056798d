"""``$/progress`` for work the user waits on (a bundle opening, a hot reload), keyed by what it is.

The caller names the work with a key ("load", "reload") and begins and ends it by that key; the
token the client sees is made here, new for each begin, since a client refuses a token it was
already given. One piece of work per key at a time: a begin while the key's work is under way is
part of that work, and one end finishes it.

A token must be created with the client (``window/workDoneProgress/create``) before ``begin``
may be sent, which takes a round trip; work that ends meanwhile is ended right after its begin.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.exceptions import JsonRpcException

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

logger = logging.getLogger(__name__)

TITLE = "Atlas"


class ProgressReporter:
    def __init__(self, server: LanguageServer) -> None:
        self._server = server
        self._tokens: dict[str, str] = {}  # key -> token of the work under way
        self._begun: set[str] = set()  # keys whose `begin` went out
        self._ended_early: dict[str, str] = {}  # key -> end message, for work ended before begin
        self._numbers = itertools.count(1)
        self._tasks: set[asyncio.Task[None]] = set()  # the loop keeps only weak references

    def supported(self) -> bool:
        caps = self._server.client_capabilities.window
        return bool(caps and caps.work_done_progress)

    def begin(self, key: str, message: str) -> None:
        """Show `message` as work `key` under way, unless it already is (or the client cannot)."""
        if key in self._tokens or not self.supported():
            return
        token = f"atlas-{key}-{next(self._numbers)}"
        self._tokens[key] = token
        task = asyncio.ensure_future(self._create_and_begin(key, token, message))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def end(self, key: str, message: str) -> None:
        """End work `key` with `message`; nothing when no such work was begun."""
        token = self._tokens.get(key)
        if token is None:
            return
        if key not in self._begun:
            self._ended_early[key] = message  # sent right after `begin` goes out
            return
        del self._tokens[key]
        self._begun.discard(key)
        self._server.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))

    async def _create_and_begin(self, key: str, token: str, message: str) -> None:
        try:
            await self._server.work_done_progress.create_async(token)
        except JsonRpcException as exc:  # the client refused the token: no progress to show
            logger.info("the client refused progress token %s: %s", token, exc)
            self._tokens.pop(key, None)
            self._ended_early.pop(key, None)
            return
        self._server.work_done_progress.begin(
            token, types.WorkDoneProgressBegin(title=TITLE, message=message, cancellable=False)
        )
        self._begun.add(key)
        ended = self._ended_early.pop(key, None)
        if ended is not None:
            self.end(key, ended)
