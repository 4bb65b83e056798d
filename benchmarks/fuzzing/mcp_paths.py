"""Class `mcp_paths`: path tricks against `read_file` and the `atlas://docs/` resources of one
`atlas-mcp --tools fs --mirror DIR` stdio process, driven by the MCP SDK's client.

The mirror holds a few docs pages and, beside them, files that must never be served, each with
its own secret: dot-files, a `.git` folder, a `.txt`, pages in `node_modules` and `__pycache__`,
a FIFO, links to a file and a folder outside the mirror, a link to `/dev/zero`, a page larger
than the server reads. Each case takes a target (a page, one of those, a file outside, a system
path) and composes a few tricks on it: `./`, `..` detours, `%2e%2e` and double or triple
encoding, backslashes, doubled slashes, absolute, `~` and `file://` forms, NUL (raw and `%00`),
full-width dots, padding, upper case, thousands of characters.

Clean: a tool error (or a JSON-RPC error for a resource) without a secret or a traceback.
Accepted: the answer is a file that `list_files` lists, with exactly its text. Failure: a secret
in any answer, a file that is not listed, a hang (the server is then restarted), anything else.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import random
import urllib.parse
from pathlib import Path
from typing import Any

from benchmarks.fuzzing.core import (
    StartError,
    Tally,
    Verdict,
    case_rng,
    children,
    clip,
    drive,
    has_traceback,
    reap,
)
from benchmarks.fuzzing.workspace import Workspace

CLASS = "mcp_paths"
DEFAULT_CASES = 300
TIMEOUT_S = 20.0
PAGES = {
    "pub/a.md": "# A\n\nThe needle is in a.\n",
    "pub/b.md": "# B\n\nAnother needle.\n",
    "pub/sub/c.md": "---\ntitle: C\n---\n# C\n\nDeeper.\n",
    "other/d.md": "# D\n\nA second publication.\n",
}
HIDDEN = {
    ".env": "SECRET_ENV=fuzz-secret-1",
    "pub/.secret.md": "# Hidden\nfuzz-secret-2",
    ".git/config": "[remote]\nurl = fuzz-secret-3",
    "pub/notes.txt": "fuzz-secret-4",
    ".hidden/page.md": "# Page\nfuzz-secret-5",
    "pub/.drafts/draft.md": "# Draft\nfuzz-secret-6",
    "pub/node_modules/pkg/readme.md": "# Readme\nfuzz-secret-7",
    "pub/__pycache__/x.md": "fuzz-secret-8",
}
OUTSIDE_SECRET = "fuzz-secret-outside-9"
SECRETS = [text.split("\n")[-1].split("=")[-1] for text in HIDDEN.values()] + [OUTSIDE_SECRET]
TARGETS = [
    "pub/a.md",
    "pub/sub/c.md",
    "other/d.md",
    *HIDDEN,
    "pub/fifo.md",
    "pub/leak.md",
    "pub/linkdir/secret.md",
    "pub/alias.md",
    "pub/zero.md",
    "pub/big.md",
    "pub",
    "pub/sub",
    "",
    "pub/missing.md",
    "../outside/secret.md",
    "../../outside/secret.md",
    "/etc/passwd",
    "ABS/outside/secret.md",
    "~/.bashrc",
    "/proc/self/environ",
    "/dev/zero",
]
TRICKS = [
    "dot-slash",
    "resource-prefix",
    "detour",
    "encode-dots",
    "encode-slashes",
    "encode-all",
    "double-encode",
    "triple-encode",
    "backslashes",
    "double-slashes",
    "trailing-slash",
    "absolute",
    "tilde",
    "file-uri",
    "nul",
    "nul-encoded",
    "fullwidth",
    "padding",
    "upper",
    "long",
    "windows-drive",
]


def trick(path: str, name: str, rng: random.Random) -> str:
    if name == "dot-slash":
        return "./" + path
    if name == "resource-prefix":
        return "atlas://docs/" + path
    if name == "detour":
        return rng.choice(["pub/../", "pub/sub/../../", "x/../", "pub/./"]) + path
    if name == "encode-dots":
        return path.replace(".", "%2e")
    if name == "encode-slashes":
        return path.replace("/", rng.choice(["%2f", "%2F", "%5c"]))
    if name == "encode-all":
        return "".join(f"%{b:02x}" for b in path.encode("utf-8", "surrogatepass"))
    if name == "double-encode":
        return urllib.parse.quote(urllib.parse.quote(path, safe=""), safe="")
    if name == "triple-encode":
        once = urllib.parse.quote(path, safe="")
        return urllib.parse.quote(urllib.parse.quote(once, safe=""), safe="")
    if name == "backslashes":
        return path.replace("/", "\\")
    if name == "double-slashes":
        return path.replace("/", "//")
    if name == "trailing-slash":
        return path + rng.choice(["/", "/.", "/..", "%2f"])
    if name == "absolute":
        return "/" + path
    if name == "tilde":
        return "~/" + path
    if name == "file-uri":
        return "file:///" + path
    if name == "nul":
        at = rng.randrange(len(path) + 1)
        return path[:at] + "\x00" + path[at:]
    if name == "nul-encoded":
        return path + "%00.md"
    if name == "fullwidth":
        return path.replace(".", "\uff0e").replace("/", rng.choice(["/", "\uff0f"]))
    if name == "padding":
        return rng.choice([" ", "\t", "\n", "\u200b"]) + path + rng.choice(["", " ", "\r\n"])
    if name == "upper":
        return path.upper()
    if name == "long":
        return "pub/../" * rng.randrange(100, 400) + path
    return rng.choice(["C:\\", "c:/", "\\\\server\\share\\"]) + path


def recipe(seed: int, index: int) -> dict[str, Any]:
    rng = case_rng(seed, CLASS, index)
    target = rng.choice(list(PAGES)) if rng.random() < 0.25 else rng.choice(TARGETS)
    path, tricks = target, []
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        tricks.append(rng.choice(TRICKS))
        path = trick(path, tricks[-1], rng)
    how = rng.choice(["read_file", "read_file", "read_file_lines", "resource"])
    label = f"{how} {target!r}" + (f" via {'+'.join(tricks)}" if tricks else "")
    return {
        "label": label,
        "how": how,
        "path": path,
        "lines": [rng.choice([1, 2, 0, -1, 10**9]), rng.choice([1, 5, 0, 10**9])],
    }


# --- the mirror ---------------------------------------------------------------------------------


def write_mirror(top: Path) -> Path:
    root = top / "mirror"
    for rel, text in {**PAGES, **HIDDEN}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text + "\n", encoding="utf-8")
    outside = top / "outside"
    outside.mkdir(parents=True, exist_ok=True)
    (outside / "secret.md").write_text(f"# Outside\n\n{OUTSIDE_SECRET}\n")
    if hasattr(os, "mkfifo"):
        os.mkfifo(root / "pub" / "fifo.md")
    os.symlink(outside / "secret.md", root / "pub" / "leak.md")
    os.symlink(outside, root / "pub" / "linkdir", target_is_directory=True)
    os.symlink("a.md", root / "pub" / "alias.md")
    os.symlink("/dev/zero", root / "pub" / "zero.md")
    with (root / "pub" / "big.md").open("wb") as big:
        big.write(b"# Big\n\n")
        big.truncate(64 * 1024**2)  # sparse: larger than a page may be, without the disk
    return root


# --- running ------------------------------------------------------------------------------------


class Paths:
    def __init__(self, workspace: Workspace) -> None:
        top = workspace.folder(CLASS)
        self.root = write_mirror(top)
        self.abs_outside = str(top / "outside")
        self.client: Any = None
        self.restarts = 0
        self.spawned: set[int] = set()
        self.listed: dict[str, str] = {}

    def start(self, timeout: float) -> None:
        from tests.mcp_client import stdio_client_for

        before = children()
        try:
            client = stdio_client_for(["atlas-mcp", "--tools", "fs", "--mirror", str(self.root)])
            self.client = client.__enter__()
        finally:
            self.spawned |= children() - before
        listed: dict[str, str] = {}
        pubs = self.client.run(lambda s: s.call_tool("list_publications", {}), timeout)
        for pub in pubs.structured_content["publications"]:
            name = pub["name"]
            files = self.client.run(
                lambda s, n=name: s.call_tool("list_files", {"publication": n, "limit": 100}),
                timeout,
            )
            for entry in files.structured_content["files"]:
                rel = entry["file"]
                listed[rel] = (self.root / rel).read_bytes().decode("utf-8", "replace")
        self.listed = listed

    def check_listing(self) -> str | None:
        unexpected = sorted(set(self.listed) - set(PAGES) - {"pub/big.md"})
        return f"list_files lists files that are not docs: {unexpected}" if unexpected else None

    def run(self, spec: dict[str, Any], timeout: float) -> Verdict:
        from mcp.shared.exceptions import MCPError

        if self.client is None:
            try:
                self.start(timeout)
            except Exception as exc:
                self._restart()
                raise StartError(f"listing the mirror failed: {type(exc).__name__}: {exc}") from exc
            if problem := self.check_listing():
                return Verdict.failure(problem)
        path = spec["path"].replace("ABS", self.abs_outside.lstrip("/"))
        try:
            if spec["how"] == "resource":
                answer = self.client.run(lambda s: s.read_resource("atlas://docs/" + path), timeout)
                return self._resource(answer)
            arguments: dict[str, Any] = {"path": path}
            if spec["how"] == "read_file_lines":
                arguments.update(start_line=spec["lines"][0], max_lines=spec["lines"][1])
            answer = self.client.run(lambda s: s.call_tool("read_file", arguments), timeout)
            return self._read(answer)
        except MCPError as exc:
            return self._refused(exc.error.message)
        except concurrent.futures.TimeoutError:
            self._restart()
            return Verdict.failure(f"no answer within {timeout:g} s")
        except Exception as exc:
            self._restart()
            return Verdict.failure(
                f"the client failed: {type(exc).__name__}: {clip(str(exc), 200)}"
            )

    def _refused(self, message: str) -> Verdict:
        if leaked := [s for s in SECRETS if s in message]:
            return Verdict.failure(f"a refusal shows a secret: {leaked}")
        if has_traceback(message):
            return Verdict.failure(f"a refusal carries a traceback: {clip(message, 200)}")
        return Verdict.refused(clip(message, 160))

    def _read(self, answer: Any) -> Verdict:
        text = " ".join(getattr(c, "text", "") for c in answer.content)
        if answer.is_error:
            return self._refused(text)
        found = answer.structured_content or {}
        body = json.dumps(found)
        if leaked := [s for s in SECRETS if s in body or s in text]:
            return Verdict.failure(f"read_file served a secret: {leaked}")
        rel = found.get("file")
        if rel not in self.listed:
            return Verdict.failure(f"read_file served {rel!r}, which list_files does not list")
        lines = self.listed[rel].split("\n")
        start = found.get("line_start", 1)
        served = found.get("text", "").split("\n")
        if served != lines[start - 1 : start - 1 + len(served)]:
            return Verdict.failure(f"read_file's text of {rel!r} is not the file's")
        return Verdict.accepted(rel)

    def _resource(self, answer: Any) -> Verdict:
        text = "".join(getattr(c, "text", "") or "" for c in answer.contents)
        if leaked := [s for s in SECRETS if s in text]:
            return Verdict.failure(f"a resource served a secret: {leaked}")
        if text not in self.listed.values():
            return Verdict.failure(
                f"a resource served text that is no listed file's: {clip(text, 80)}"
            )
        return Verdict.accepted()

    def _restart(self) -> None:
        self.close()
        self.client = None
        self.restarts += 1

    def close(self) -> None:
        if self.client is not None:
            self.client.__exit__(None, None, None)
        reap(self.spawned & children())
        self.spawned.clear()


def run(workspace: Workspace, recipes: list[dict[str, Any]], tally: Tally) -> None:
    timeout = workspace.case_timeout(TIMEOUT_S)
    paths = Paths(workspace)
    try:
        drive(workspace, CLASS, recipes, tally, lambda index, spec: paths.run(spec, timeout))
    finally:
        paths.close()
    if paths.restarts and not tally.note:
        tally.note = f"the server stopped answering and was restarted {paths.restarts} time(s)"
