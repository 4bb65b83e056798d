"""Literal or regex search over the docs mirror: ripgrep when it is there, pure Python otherwise.

Both engines search the same files (the docs files: markdown pages that are regular files, outside
hidden and tool folders, no symlinks; see `iter_doc_files`) line by line, as text, in the same
order (path components compared in code-point order, as ``rg --sort path`` walks), and stop at the
same limit, so a client cannot tell them apart except by speed and by the regex dialect (ripgrep
has no look-around or back-references; Python lacks ``\\p{..}`` classes).

Both stop at the deadline. ripgrep is killed by a timer. A literal search in Python reads each file
in bounded pieces and checks the clock as it goes, so one huge file cannot outlast the deadline.
Python's regex engine can backtrack, so a regex search in Python runs in a child process that is
killed at the deadline: a pathological pattern costs a timeout and nothing else. Run as
``python -m atlas_core.pages.grep`` (a JSON request on stdin) for that child.
"""

from __future__ import annotations

import base64
import contextlib
import json
import math
import os
import re
import shutil
import stat
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from atlas_core.errors import QueryError
from atlas_core.markdown import MARKDOWN_SUFFIXES
from atlas_core.pages.reader import open_regular
from atlas_core.search import excerpt_at

# The docs files are the pages a bundle build reads: markdown, outside hidden folders and the tool
# folders the local source skips (.git, .venv and the like are hidden already).
DOC_SUFFIXES = MARKDOWN_SUFFIXES
SKIPPED_DIRS = frozenset({"node_modules", "__pycache__"})
SCAN_PIECE_BYTES = 1024 * 1024  # a longer line is searched in pieces of this size
CLOCK_EVERY_BYTES = 256 * 1024  # the Python search looks at the clock this often
MAX_PATTERN_CHARS = 1000
MAX_LINE_CHARS = 300  # a matched line longer than this is cut around the match
DEFAULT_TIMEOUT_S = 10.0
ENV_RIPGREP = "ATLAS_RIPGREP"  # a path to rg, or "none" to force the Python engine


class SearchTimeout(QueryError):
    """A text search ran past its deadline and was stopped."""


@dataclass(frozen=True, slots=True)
class TextMatch:
    file: str  # relative POSIX path under the searched root
    line: int  # 1-based
    text: str  # the line without its terminator, cut to MAX_LINE_CHARS around the match


@dataclass(frozen=True, slots=True)
class TextSearchResult:
    matches: list[TextMatch]
    truncated: bool  # more matches exist than were returned
    engine: str  # "ripgrep" | "python"


def find_ripgrep(override: str | None = None) -> str | None:
    """The rg to use: `override` (the `ripgrep` setting, $ATLAS_RIPGREP: a path or a name on
    PATH, or "none" for the Python engine), else the one the `ripgrep` wheel put beside this
    Python, else PATH's."""
    override = (override or "").strip()
    if override.lower() == "none":
        return None
    if override:
        return override if Path(override).is_file() else shutil.which(override)
    name = "rg.exe" if os.name == "nt" else "rg"
    for scripts in (Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))):
        candidate = scripts / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("rg")


def check_pattern(pattern: str, regex: bool) -> None:
    """Refuse patterns neither engine can search sensibly, with a message that says why."""
    if not pattern:
        raise QueryError("pattern is empty", hint="pass the text or regex to look for")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise QueryError(f"pattern is longer than {MAX_PATTERN_CHARS} characters")
    if "\n" in pattern or "\r" in pattern:
        raise QueryError(
            "pattern spans lines; the search matches one line at a time",
            hint="search for one line of the text",
        )
    if "\x00" in pattern:
        raise QueryError("pattern contains a NUL byte")
    if regex:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise QueryError(
                f"pattern is not a valid regex: {exc}",
                hint="fix the regex, or pass regex=false to search for the literal text",
            ) from None


def search_text(
    root: Path,
    pattern: str,
    *,
    paths: Sequence[str] = (),
    regex: bool = False,
    case_sensitive: bool = False,
    max_results: int = 50,
    timeout: float = DEFAULT_TIMEOUT_S,
    engine: str = "auto",
    ripgrep: str | None = None,
) -> TextSearchResult:
    """Search files under ``root`` (or its relative ``paths``) for ``pattern``, line by line.

    ``engine`` is "auto" (ripgrep when found), "ripgrep" or "python"; ``ripgrep`` is the
    `ripgrep` setting (see `find_ripgrep`). Raises QueryError for a bad pattern and SearchTimeout
    when the deadline passes.
    """
    check_pattern(pattern, regex)
    max_results = max(1, max_results)
    rg = find_ripgrep(ripgrep) if engine in ("auto", "ripgrep") else None
    if engine == "ripgrep" and rg is None:
        raise QueryError("ripgrep (rg) is not installed", hint="pip install ripgrep")
    if paths:
        # ripgrep opens a path it is given whatever it is, and would wait on a FIFO forever.
        paths = [p for p in paths if _is_dir_or_regular(root / p)]
        if not paths:
            used = "ripgrep" if rg is not None else "python"
            return TextSearchResult(matches=[], truncated=False, engine=used)
    if rg is not None:
        return _search_ripgrep(
            rg, root, pattern, paths, regex, case_sensitive, max_results, timeout
        )
    if regex:
        return _search_python_child(root, pattern, paths, case_sensitive, max_results, timeout)
    try:
        return search_python(
            root,
            pattern,
            paths=paths,
            regex=False,
            case_sensitive=case_sensitive,
            max_results=max_results,
            deadline=time.monotonic() + timeout,
        )
    except SearchTimeout:
        raise _timeout(timeout) from None


def _is_dir_or_regular(path: Path) -> bool:
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return False
    return stat.S_ISDIR(mode) or stat.S_ISREG(mode)


# --- ripgrep -------------------------------------------------------------------------------------


def _search_ripgrep(
    rg: str,
    root: Path,
    pattern: str,
    paths: Sequence[str],
    regex: bool,
    case_sensitive: bool,
    max_results: int,
    timeout: float,
) -> TextSearchResult:
    cmd = [
        rg,
        "--json",
        "--no-config",
        "--no-ignore",
        "--text",
        "--crlf",
        "--sort",
        "path",
        "--max-count",
        str(max_results + 1),
    ]
    cmd += ["--case-sensitive"] if case_sensitive else ["--ignore-case"]
    if not regex:
        cmd.append("--fixed-strings")
    for suffix in DOC_SUFFIXES:
        cmd += ["--iglob", f"*{suffix}"]
    # A matching glob would let hidden files in again; the later glob wins in ripgrep.
    cmd += ["--iglob", "!.*"]
    for skipped in sorted(SKIPPED_DIRS):
        cmd += ["--glob", f"!{skipped}/"]
    # -e keeps a pattern that starts with "-" from being read as a flag.
    cmd += ["-e", pattern, "--", *(list(paths) or ["."])]
    matches: list[TextMatch] = []
    truncated = False
    with (
        tempfile.TemporaryFile() as errors,
        subprocess.Popen(
            cmd, cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=errors
        ) as proc,
    ):
        assert proc.stdout is not None
        # A timer, not select(), bounds the run: it works on pipes on every platform.
        killed = threading.Event()

        def stop() -> None:
            killed.set()
            proc.kill()

        timer = threading.Timer(timeout, stop)
        timer.start()
        try:
            for raw in proc.stdout:
                event = json.loads(raw)
                if event.get("type") != "match":
                    continue
                if len(matches) == max_results:
                    truncated = True
                    break
                matches.append(_rg_match(event["data"]))
        finally:
            timer.cancel()
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        if killed.is_set() and not truncated:
            raise _timeout(timeout)
        # rg exits 1 for "no match", 2 for errors (a bad regex among them).
        if proc.returncode == 2 and not matches and not truncated:
            errors.seek(0)
            lines = errors.read(4000).decode("utf-8", "replace").splitlines()
            detail = " ".join(line.strip() for line in lines if line.strip())[:400]
            raise QueryError(
                f"ripgrep rejected the search: {detail or 'unknown error'}",
                hint="ripgrep regexes have no look-around or back-references; "
                "pass regex=false for literal text",
            )
    return TextSearchResult(matches=matches, truncated=truncated, engine="ripgrep")


def _rg_text(value: dict[str, str]) -> str:
    if "text" in value:
        return value["text"]
    return base64.b64decode(value["bytes"]).decode("utf-8", "replace")


def _rg_match(data: dict) -> TextMatch:
    path = _rg_text(data["path"])
    if path.startswith("./"):
        path = path[2:]
    line_bytes = (
        data["lines"]["text"].encode("utf-8")
        if "text" in data["lines"]
        else base64.b64decode(data["lines"]["bytes"])
    )
    submatches = data.get("submatches") or []
    start_byte = submatches[0]["start"] if submatches else 0
    start = len(line_bytes[:start_byte].decode("utf-8", "replace"))
    line = line_bytes.decode("utf-8", "replace").rstrip("\n").removesuffix("\r")
    return TextMatch(file=path, line=int(data["line_number"]), text=_clip(line, start))


# --- pure Python -----------------------------------------------------------------------------------


def iter_doc_files(root: Path, paths: Sequence[str] = ()) -> Iterator[str]:
    """Relative paths of the docs files, in ripgrep's ``--sort path`` order: regular markdown files,
    no symlinks, nothing hidden and nothing in a skipped folder. The file tools serve exactly these.
    A file named in ``paths`` is taken as it is when it is a regular file."""
    found: list[tuple[str, ...]] = []
    for start in paths or ["."]:
        base = root / start
        try:
            mode = os.lstat(base).st_mode
        except OSError:
            continue
        if stat.S_ISREG(mode):
            found.append(Path(start).parts)
        elif stat.S_ISDIR(mode):
            found += _walk(base, Path(base).relative_to(root).parts)
    for parts in sorted(set(found)):
        yield "/".join(parts)


def _walk(folder: Path, rel: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if name.startswith("."):
            continue
        # follow_symlinks=False: a link is neither, and only regular files count as files.
        if entry.is_dir(follow_symlinks=False):
            if name not in SKIPPED_DIRS:
                yield from _walk(Path(entry.path), (*rel, name))
        elif entry.is_file(follow_symlinks=False) and name.lower().endswith(DOC_SUFFIXES):
            yield (*rel, name)


def search_python(
    root: Path,
    pattern: str,
    *,
    paths: Sequence[str] = (),
    regex: bool = False,
    case_sensitive: bool = False,
    max_results: int = 50,
    deadline: float | None = None,
) -> TextSearchResult:
    """The pure-Python engine, in this process. Use `search` unless you own the deadline.

    Raises SearchTimeout once ``deadline`` (a `time.monotonic` value) has passed."""
    check_pattern(pattern, regex)
    flags = 0 if case_sensitive else re.IGNORECASE
    compiled = re.compile(pattern if regex else re.escape(pattern), flags)

    def check_clock() -> None:
        if deadline is not None and time.monotonic() > deadline:
            raise _timeout(None)

    matches: list[TextMatch] = []
    for rel in iter_doc_files(root, paths):
        check_clock()
        for match in _search_file(root / rel, rel, compiled, check_clock):
            if len(matches) == max_results:
                return TextSearchResult(matches=matches, truncated=True, engine="python")
            matches.append(match)
    return TextSearchResult(matches=matches, truncated=False, engine="python")


def _search_file(
    path: Path, rel: str, compiled: re.Pattern[str], check_clock: Callable[[], None]
) -> Iterable[TextMatch]:
    """Matching lines of one file, read in pieces so neither a huge file nor a huge line is ever
    held whole; lines are split on "\n" only, as ripgrep counts them."""
    try:
        handle = open_regular(path, rel)
    except (OSError, QueryError):
        return
    with handle:
        number = 1
        matched_line = 0  # a line cut in pieces is reported once, like ripgrep does
        unchecked = 0
        first = True
        while piece := handle.readline(SCAN_PIECE_BYTES):
            unchecked += len(piece)
            if unchecked >= CLOCK_EVERY_BYTES:
                unchecked = 0
                check_clock()
            if first:
                piece = piece.removeprefix(b"\xef\xbb\xbf")
                first = False
            ends_line = piece.endswith(b"\n")
            text = piece.decode("utf-8", "replace")
            if ends_line:
                text = text.removesuffix("\n").removesuffix("\r")
            found = compiled.search(text) if matched_line != number else None
            if found is not None:
                matched_line = number
                yield TextMatch(file=rel, line=number, text=_clip(text, found.start()))
            if ends_line:
                number += 1


def _search_python_child(
    root: Path,
    pattern: str,
    paths: Sequence[str],
    case_sensitive: bool,
    max_results: int,
    timeout: float,
) -> TextSearchResult:
    request = json.dumps(
        {
            "root": str(root),
            "pattern": pattern,
            "paths": list(paths),
            "case_sensitive": case_sensitive,
            "max_results": max_results,
            "timeout": timeout,
        }
    )
    try:
        done = subprocess.run(
            [sys.executable, "-m", "atlas_core.pages.grep"],
            input=request.encode("utf-8"),
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise _timeout(timeout) from None
    if done.returncode != 0:
        raise QueryError(f"text search failed: {done.stderr.decode('utf-8', 'replace')[-400:]}")
    payload = json.loads(done.stdout)
    return TextSearchResult(
        matches=[TextMatch(**m) for m in payload["matches"]],
        truncated=payload["truncated"],
        engine="python",
    )


def _clip(line: str, start: int) -> str:
    # whole words around the match, never opening or closing inside a quoted JSON value
    return excerpt_at(line, start, MAX_LINE_CHARS)


def _timeout(seconds: float | None) -> SearchTimeout:
    limit = f" ({seconds:g} s)" if seconds else ""
    return SearchTimeout(
        f"text search stopped at its time limit{limit}",
        hint="narrow it with publication=..., or use a simpler pattern (or regex=false)",
    )


def _stop_on_own_at(seconds: float) -> None:
    """Die a little after `seconds` even if the process that owns the deadline is gone: a server
    worker killed mid-search would otherwise leave this child spinning on a pathological pattern.
    SIGALRM's default action ends the process inside the regex engine too (no Python handler
    has to run); the CPU limit backs it up."""
    import resource
    import signal

    grace = math.ceil(seconds) + 2
    signal.alarm(grace)
    with contextlib.suppress(ValueError, OSError):  # a hard limit below ours: keep it
        resource.setrlimit(resource.RLIMIT_CPU, (grace, resource.RLIM_INFINITY))


def _child_main() -> int:
    request = json.loads(sys.stdin.buffer.read())
    _stop_on_own_at(float(request.get("timeout", DEFAULT_TIMEOUT_S)))
    result = search_python(
        Path(request["root"]),
        request["pattern"],
        paths=request["paths"],
        regex=True,
        case_sensitive=request["case_sensitive"],
        max_results=request["max_results"],
    )
    json.dump(
        {"matches": [asdict(m) for m in result.matches], "truncated": result.truncated}, sys.stdout
    )
    return 0


if __name__ == "__main__":
    sys.exit(_child_main())
