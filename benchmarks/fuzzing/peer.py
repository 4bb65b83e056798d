"""A JSON-RPC client that writes raw bytes: what a broken or hostile editor or agent sends.

`RawPeer` starts a server as a subprocess and reads what it answers, one message per line (MCP
stdio) or Content-Length framed (LSP). Every message that comes back is kept with its raw text,
so an oracle can count answers per id and look for tracebacks; requests the server sends us
(workspace/configuration, progress tokens) are answered with null so it never waits on us.
`expect` says, for one raw message, which answer JSON-RPC calls for.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_ECHOED_ID_CHARS = 200  # a longer string id may come back as null
EXACT_INT_IDS = 2**53  # past this, an id may not survive a JSON number round trip
LARGE_MESSAGE = 1024 * 1024  # past this, a server may refuse unread (answered with id null)


@dataclass(frozen=True, slots=True)
class Reply:
    raw: bytes
    message: Any  # the parsed JSON, or None when it was not JSON
    at: float

    @property
    def id(self) -> Any:
        return self.message.get("id") if isinstance(self.message, dict) else None

    @property
    def is_response(self) -> bool:
        return isinstance(self.message, dict) and "method" not in self.message


class RawPeer:
    def __init__(
        self, args: Sequence[str], *, lsp: bool, log: Path, env: dict[str, str] | None = None
    ) -> None:
        self.lsp = lsp
        self.log = log
        with log.open("ab") as stderr:
            self.proc = subprocess.Popen(
                list(args), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, env=env
            )
        self.replies: list[Reply] = []
        self._cond = threading.Condition()
        self._write = threading.Lock()
        self.closed = False
        threading.Thread(target=self._pump, daemon=True).start()

    # -- reading ----------------------------------------------------------------------------------

    def _read(self) -> bytes | None:
        stream = self.proc.stdout
        assert stream is not None
        if not self.lsp:
            line = stream.readline()
            return line.rstrip(b"\n") if line else None
        length = None
        while True:
            header = stream.readline()
            if not header:
                return None
            if not header.strip():
                break
            name, _, value = header.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        return stream.read(length or 0)

    def _pump(self) -> None:
        try:
            while (raw := self._read()) is not None:
                try:
                    message = json.loads(raw)
                except ValueError:
                    message = None
                if isinstance(message, dict) and "method" in message and "id" in message:
                    self._answer_server_request(message)
                    continue
                with self._cond:
                    self.replies.append(Reply(raw, message, time.monotonic()))
                    self._cond.notify_all()
        finally:
            with self._cond:
                self.closed = True
                self._cond.notify_all()

    def _answer_server_request(self, message: dict[str, Any]) -> None:
        params = message.get("params")
        items = params.get("items") if isinstance(params, dict) else None
        result = [None] * len(items) if isinstance(items, list) else None
        self.send(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode())

    def wait(self, done: Callable[[list[Reply]], bool], timeout: float) -> bool:
        """Wait until `done(replies)` holds; False on timeout or when the server closed first."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not done(self.replies):
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    return done(self.replies)
                self._cond.wait(left)
        return True

    def since(self, start: int) -> list[Reply]:
        with self._cond:
            return list(self.replies[start:])

    def mark(self) -> int:
        with self._cond:
            return len(self.replies)

    # -- writing ----------------------------------------------------------------------------------

    def frame(self, body: bytes) -> bytes:
        return b"Content-Length: %d\r\n\r\n" % len(body) + body if self.lsp else body + b"\n"

    def send(self, body: bytes) -> None:
        self.write(self.frame(body))

    def write(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        with self._write:
            try:
                self.proc.stdin.write(data)
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                pass  # the server is gone; the oracle sees it closed

    def alive(self) -> bool:
        return self.proc.poll() is None and not self.closed

    def exit_code(self, timeout: float) -> int | None:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


# --- what a message calls for ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Expect:
    """The answer one message calls for.

    kind: "id" (exactly one answer carrying `id`), "id-or-null" (one answer, carrying `id` or
    null: a server may refuse an oversized message or a long id unread), "null" (one error with
    id null: the id cannot be read), "any" (a notification or a response: nothing, or one error
    with id null for a malformed one, as the JSON-RPC spec's own examples do), "maybe" (a message
    that is both a request and a response, such as one with a `method` of null and a `result`:
    nothing, or one answer carrying `id` or null).
    """

    kind: str
    id: Any = None


def readable_id(value: Any) -> bool:
    return isinstance(value, int | str) and not isinstance(value, bool)


def _encodable(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def expect(raw: bytes, *, strict_utf8: bool = False) -> Expect:
    """The answer JSON-RPC 2.0 calls for `raw`. With `strict_utf8`, a body that is not UTF-8 is
    unreadable as a whole, as `json.loads` reads bytes (which lets encoded lone surrogates
    through); without, its id is still read (MCP)."""
    if not raw.strip():
        return Expect("any")
    try:
        text = raw.decode("utf-8", "surrogatepass" if strict_utf8 else "strict")
    except UnicodeDecodeError:
        if strict_utf8:
            return Expect("null")
        text = raw.decode("utf-8", "replace")
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return Expect("null")
    if not isinstance(value, dict):
        return Expect("null")
    if "method" in value:
        if "id" not in value:
            return Expect("any")
        if ("result" in value or "error" in value) and not isinstance(value["method"], str):
            return Expect("maybe", value["id"] if readable_id(value["id"]) else None)
    elif "result" in value or "error" in value:
        return Expect("any")
    if "id" not in value or not readable_id(value["id"]):
        return Expect("null")
    found = value["id"]
    # A server may answer these with id null: an oversized message it refuses unread, an id a
    # JSON number cannot hold exactly, a long id, or one with a lone surrogate (which only an
    # ASCII-escaping encoder can send back).
    loose = (
        len(raw) > LARGE_MESSAGE
        or (isinstance(found, int) and abs(found) >= EXACT_INT_IDS)
        or (isinstance(found, str) and (len(found) > MAX_ECHOED_ID_CHARS or not _encodable(found)))
    )
    return Expect("id-or-null" if loose else "id", found)


def judge(
    expects: Sequence[Expect], replies: Sequence[Reply], *, ignore: Sequence[Any] = ()
) -> str | None:
    """Why `replies` (all the responses a case got) are not what `expects` call for, or None."""
    responses = [r for r in replies if r.is_response and r.id not in ignore]
    for reply in responses:
        if reply.message is None:
            return f"the server wrote something that is not JSON: {reply.raw[:80]!r}"
        text = reply.raw.decode("utf-8", "replace")
        if "Traceback (most recent call last)" in text or 'File "' in text:
            return f"an answer carries a traceback: {text[:160]}"
    by_id: dict[Any, int] = {}
    for reply in responses:
        key = json.dumps(reply.id)
        by_id[key] = by_id.get(key, 0) + 1
    nulls = by_id.pop("null", 0)
    needed_nulls = sum(1 for e in expects if e.kind == "null")
    optional_nulls = sum(1 for e in expects if e.kind in ("any", "maybe"))
    for e in expects:
        if e.kind not in ("id", "id-or-null", "maybe") or e.id is None:
            continue
        key = json.dumps(e.id)
        got = by_id.pop(key, 0)
        if got > 1:
            return f"{got} answers to id {clip_id(e.id)}"
        if got == 0 and e.kind == "id":
            return f"no answer to id {clip_id(e.id)}"
        if got == 0 and e.kind == "id-or-null":
            needed_nulls += 1
        if got == 1 and e.kind == "maybe":
            optional_nulls -= 1
    if by_id:
        return f"answers to ids that were never sent: {sorted(by_id)[:3]}"
    if not needed_nulls <= nulls <= needed_nulls + optional_nulls:
        return f"{nulls} answers with id null where {needed_nulls} (+{optional_nulls} optional) were due"
    return None


def settled(expects: Sequence[Expect], replies: Sequence[Reply]) -> bool:
    """Whether every answer `expects` make due has arrived (the optional ones are not waited
    for): each id answered, and enough answers with id null for the rest."""
    seen: dict[str, int] = {}
    for reply in replies:
        if reply.is_response:
            key = json.dumps(reply.id)
            seen[key] = seen.get(key, 0) + 1
    nulls = seen.get("null", 0) - sum(1 for e in expects if e.kind == "null")
    for e in expects:
        if e.kind == "id" and json.dumps(e.id) not in seen:
            return False
        if e.kind == "id-or-null" and json.dumps(e.id) not in seen:
            nulls -= 1
    return nulls >= 0


def clip_id(value: Any) -> str:
    text = repr(value)
    return text if len(text) < 60 else text[:57] + "..."
