"""Class `lsp_wire`: malformed LSP frames and params to one `atlas-ls` process, after a proper
initialize and with one good document open.

Each case is one to three messages: requests (hover, definition, completion, code actions,
workspace symbols, commands, methods the server does not have) and notifications (didOpen,
didChange, didClose, didChangeConfiguration, cancellation), with positions of -1, 2**31, 2**53,
floats, strings or null, params that are null, arrays or scalars, URIs that name a FIFO,
/proc/self/fd/0, /dev/zero, a folder, a 64 MB file, or carry lone surrogates, megabyte paths and
other schemes, settings of the wrong type or nested 10,000 deep; then the envelope or the bytes
are maybe broken too (jsonrpc version, id types, invalid UTF-8, cut, batches, deep nesting). A
twelfth of the cases break the framing instead: a Content-Length that lies, is not a number, is
negative or huge or missing, a header line that is not one, too many or too long headers.

Clean: every request id gets one answer (an error or a result, never a traceback), other
messages at most one error with id null, and a hover on the good document is answered with its
docs after the case; for broken framing, the server either goes on (and answers that hover) or
exits with code 1, as LSP servers do when the stream cannot be trusted. Failure: anything else,
a hang, or an exit for a message that was well framed.
"""

from __future__ import annotations

import json
import os
import random
import sys
from typing import Any

from benchmarks.fuzzing.core import StartError, Tally, Verdict, case_rng, clip, drive
from benchmarks.fuzzing.lsp_messages import SAMPLE, encode, framing, message
from benchmarks.fuzzing.peer import Expect, RawPeer, expect, judge, settled
from benchmarks.fuzzing.workspace import Workspace

CLASS = "lsp_wire"
DEFAULT_CASES = 250
TIMEOUT_S = 20.0
START_TIMEOUT_S = 90.0
FRAMING_SHARE = 1 / 12


def recipe(seed: int, index: int) -> dict[str, Any]:
    rng = case_rng(seed, CLASS, index)
    bodies, parts = [], []
    for k in range(rng.choice([1, 1, 2, 3])):
        built = message(rng, rng.choice([1000 * (index + 1) + k, f"c{index}-{k}"]))
        raw, how = encode(built, rng)
        bodies.append(raw)
        parts.append(f"{built.get('method', '?')}" + (f"+{how}" if how else ""))
    spec: dict[str, Any] = {"bodies": bodies, "framing": None}
    if rng.random() < FRAMING_SHARE:
        # The frame is built where the case runs, around the body with its placeholders filled
        # (a Content-Length counted before would lie); the same seed picks the same breakage.
        seed = rng.random()
        _, how, whole = framing(random.Random(seed), bodies[0])
        spec["framing"] = {"seed": seed, "how": how, "whole": whole}
        parts[0] += f" framed {how}"
    spec["label"] = "; ".join(clip(p, 80) for p in parts)
    return spec


# --- running ------------------------------------------------------------------------------------


class Lsp:
    def __init__(self, workspace: Workspace) -> None:
        self.bundle = workspace.bundle()
        self.folder = workspace.folder(CLASS)
        self.log = workspace.root / "lsp_wire.log"
        self.sample_uri = (self.folder / "sample.py").as_uri()
        self.places = self._places()
        self.peer: RawPeer | None = None
        self.restarts = 0
        self.exits = 0

    def _places(self) -> dict[str, str]:
        folder = self.folder
        (folder / "unopened.py").write_text(SAMPLE)
        # The good document is on disk too, so that its hover does not depend on the server
        # keeping the didOpen (a second `initialize` may start a fresh workspace).
        (folder / "sample.py").write_text(SAMPLE)
        (folder / "folder.py").mkdir(exist_ok=True)
        if hasattr(os, "mkfifo") and not (folder / "pipe.py").exists():
            os.mkfifo(folder / "pipe.py")
        with (folder / "big.py").open("wb") as big:
            big.write(SAMPLE.encode())
            big.truncate(64 * 1024**2)
        return {
            '"SAMPLE_URI"': json.dumps(self.sample_uri),
            '"FILE"': json.dumps((folder / "unopened.py").as_uri()),
            '"FIFO"': json.dumps((folder / "pipe.py").as_uri()),
            '"DIR"': json.dumps((folder / "folder.py").as_uri()),
            '"BIG"': json.dumps((folder / "big.py").as_uri()),
        }

    def fill(self, raw: bytes) -> bytes:
        for name, value in self.places.items():
            raw = raw.replace(name.encode(), value.encode())
        return raw

    def hover(self, msg_id: str) -> bytes:
        return json.dumps(
            {
                "jsonrpc": "2.0",
                "id": msg_id,
                "method": "textDocument/hover",
                "params": {
                    "textDocument": {"uri": self.sample_uri},
                    "position": {"line": 0, "character": 12},
                },
            }
        ).encode()

    def start(self) -> RawPeer:
        peer = RawPeer(
            [sys.executable, "-m", "atlas_ls", "--bundle", str(self.bundle)], lsp=True, log=self.log
        )
        init = {"processId": None, "rootUri": self.folder.as_uri(), "capabilities": {}}
        peer.send(
            json.dumps(
                {"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": init}
            ).encode()
        )
        if not peer.wait(lambda rs: any(r.id == "init" for r in rs), START_TIMEOUT_S):
            peer.close()
            raise StartError(f"atlas-ls did not initialize (see {self.log})")
        peer.send(b'{"jsonrpc": "2.0", "method": "initialized", "params": {}}')
        item = {"uri": self.sample_uri, "languageId": "python", "version": 1, "text": SAMPLE}
        peer.send(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "method": "textDocument/didOpen",
                    "params": {"textDocument": item},
                }
            ).encode()
        )
        for attempt in range(30):  # the bundle loads in the background after initialize
            if self._hover_ok(peer, f"warm-{self.restarts}-{attempt}", START_TIMEOUT_S / 30):
                return peer
        peer.close()
        raise StartError(f"atlas-ls never answered a hover with docs (see {self.log})")

    def _hover_ok(self, peer: RawPeer, msg_id: str, timeout: float) -> bool:
        start = peer.mark()
        peer.send(self.hover(msg_id))
        if not peer.wait(lambda rs: any(r.id == msg_id for r in rs[start:]), timeout):
            return False
        answer = next(r for r in peer.since(start) if r.id == msg_id)
        return "findAssets" in json.dumps((answer.message or {}).get("result"))

    def run(self, index: int, spec: dict[str, Any], timeout: float) -> Verdict:
        if self.peer is None:
            self.peer = self.start()
        peer = self.peer
        bodies = [self.fill(b) for b in spec["bodies"]]
        hover_id = f"hover-{index}"
        start = peer.mark()
        broken = spec["framing"]
        frame = framing(random.Random(broken["seed"]), bodies[0])[0] if broken else None
        if broken is not None and frame is not None and not broken["whole"]:
            return self._broken_frame(peer, frame, hover_id, start, timeout)
        expects = [expect(b, strict_utf8=True) for b in bodies]
        for k, body in enumerate(bodies):
            if k == 0 and frame is not None:
                peer.write(frame)
            else:
                peer.send(body)
        peer.send(self.hover(hover_id))
        due = [*expects, Expect("id", hover_id)]
        if not peer.wait(lambda replies: settled(due, replies[start:]), timeout):
            gone = "" if peer.alive() else f" (the server exited with code {peer.exit_code(5)})"
            problem = judge(due, peer.since(start)) or "answers missing"
            self._restart()
            return Verdict.failure(f"after {timeout:g} s: {problem}{gone}")
        peer.wait(lambda rs: False, 0.05)
        replies = peer.since(start)
        if problem := judge(expects, replies, ignore=[hover_id]):
            self._restart()  # the next case starts from a server in a known state
            return Verdict.failure(problem)
        hover = next(r for r in replies if r.id == hover_id)
        if "findAssets" not in json.dumps((hover.message or {}).get("result")):
            self._restart()
            shown = clip(hover.raw.decode("utf-8", "replace"), 160)
            return Verdict.failure(f"the hover after the case lost its docs: {shown}")
        errors = any(isinstance(r.message, dict) and "error" in r.message for r in replies)
        return Verdict.refused() if errors else Verdict.accepted()

    def _broken_frame(
        self, peer: RawPeer, frame: bytes, hover_id: str, start: int, timeout: float
    ) -> Verdict:
        """The stream is broken: the server may go on (and answer the hover) or exit with 1."""
        peer.write(frame + peer.frame(self.hover(hover_id)))
        peer.wait(lambda rs: any(r.id == hover_id for r in rs[start:]), timeout)
        replies = peer.since(start)
        for reply in replies:
            text = reply.raw.decode("utf-8", "replace")
            if "Traceback (most recent call last)" in text or 'File "' in text:
                return Verdict.failure(f"an answer carries a traceback: {clip(text, 160)}")
        if any(r.id == hover_id for r in replies):
            return Verdict.accepted("carried on")
        code = peer.exit_code(timeout)
        self._restart()
        if code is None:
            return Verdict.failure(f"neither answered nor exited within {timeout:g} s")
        self.exits += 1
        if code != 1:
            return Verdict.failure(
                f"exited with code {code} on a broken frame (LSP servers exit 1)"
            )
        return Verdict.refused("exited 1 on a broken frame")

    def _restart(self) -> None:
        if self.peer is not None:
            self.peer.close()
        self.peer = None
        self.restarts += 1

    def close(self) -> None:
        if self.peer is not None:
            self.peer.close()


def run(workspace: Workspace, recipes: list[dict[str, Any]], tally: Tally) -> None:
    timeout = workspace.case_timeout(TIMEOUT_S)
    lsp = Lsp(workspace)
    try:
        drive(workspace, CLASS, recipes, tally, lambda index, spec: lsp.run(index, spec, timeout))
    finally:
        lsp.close()
    hangs = lsp.restarts - lsp.exits
    if hangs and not tally.note:
        tally.note = f"the server stopped answering and was restarted {hangs} time(s)"
