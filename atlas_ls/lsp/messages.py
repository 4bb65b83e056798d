"""What the user is told: ``window/showMessage`` for what needs reading, ``window/logMessage`` for
the record, and each failure shown once per served bundle.

A failure repeats on every keystroke (a damaged record under the cursor fails each hover); the
user needs to read it once. What was shown is remembered per engine generation, so a new bundle
that fails the same way is reported again.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types

from atlas_core.errors import AtlasError

if TYPE_CHECKING:
    from atlas_ls.lsp.server import AtlasLanguageServer

logger = logging.getLogger(__name__)

MAX_SHOWN_MESSAGES = 100  # distinct failures remembered as shown; forgotten on a bundle (re)load
MAX_FAILURE_CHARS = 400


class Messages:
    """The server's messages to the user, with the memory of which failures were shown."""

    def __init__(self, server: AtlasLanguageServer) -> None:
        self._server = server
        self._shown: set[str] = set()  # failure messages shown while this engine generation served
        self._shown_generation = -1

    def show(self, kind: types.MessageType, message: str) -> None:
        """A message the user reads (also in the client's log and in ours)."""
        if kind <= types.MessageType.Warning:
            logger.warning("%s", message)
        else:
            logger.info("%s", message)
        self._notify(kind, message)

    def log(self, kind: types.MessageType, message: str) -> None:
        """A line for the client's log only."""
        logger.info("%s", message)
        self._server.window_log_message(types.LogMessageParams(type=kind, message=message))

    def show_once(self, kind: types.MessageType, message: str) -> bool:
        """`show`, unless the same message was shown since the bundle last (re)loaded. True when
        it was shown."""
        if self._was_shown(message):
            return False
        self._remember(message)
        self.show(kind, message)
        return True

    def report_failure(self, what: str, exc: BaseException) -> None:
        """Tell the user, once, why `what` (a request, diagnostics, a load) failed.

        An AtlasError (a damaged bundle found at query time, say) carries its own reason and
        hint. Anything else is a bug: logged at ERROR with its traceback, and shown, so that it is
        never mistaken for "nothing documented here".
        """
        if isinstance(exc, AtlasError):
            self.show_once(types.MessageType.Error, clip(f"Atlas: {what}: {exc.one_line()}"))
            return
        message = clip(f"Atlas: {what} failed: {type(exc).__name__}: {exc}")
        if self._was_shown(message):
            logger.error("%s (again)", message)
            return
        self._remember(message)
        logger.error("%s", message, exc_info=exc)
        self._notify(types.MessageType.Error, message + " (details in the language server's log)")

    def _notify(self, kind: types.MessageType, message: str) -> None:
        self._server.window_show_message(types.ShowMessageParams(type=kind, message=message))
        self._server.window_log_message(types.LogMessageParams(type=kind, message=message))

    def _was_shown(self, message: str) -> bool:
        # Keyed to the engine generation rather than cleared by the load event: a request can
        # fail on a new engine before its load event has run on the loop.
        generation = self._server.holder.generation
        if self._shown_generation != generation:
            self._shown_generation = generation
            self._shown.clear()
        return message in self._shown

    def _remember(self, message: str) -> None:
        if len(self._shown) >= MAX_SHOWN_MESSAGES:
            self._shown.clear()
        self._shown.add(message)


def clip(message: str) -> str:
    """`message` cut to `MAX_FAILURE_CHARS`: an exception's text can be a whole file."""
    if len(message) <= MAX_FAILURE_CHARS:
        return message
    return message[: MAX_FAILURE_CHARS - 1] + "…"
