"""Class `repositories`: hostile repositories indexed the way `atlas index` does (the `code`
source, `--model hash`, no ranking).

Each case is a small honest repository plus a few hostile ingredients: ignore lines that make a
backtracking matcher spin (`*a*a*a*...*b` against long names), random ignore files (checked
against `git check-ignore` when git is here), ignore files too big to apply, names no bundle can
hold (control characters, backslashes, pickle suffixes), trees deeper than the walker goes, paths
longer than it takes, link loops and links out of the repository, FIFOs, huge, binary and
unreadable files and folders. Files that must stay out hold `MARKER`.

Clean: an AtlasError with a one-line message, or a bundle that `verify_bundle` accepts, holds no
trace of the marker, and (with git) indexes no file git ignores and leaves out no plain file git
keeps. Failure: any other exception, the marker in the bundle, a disagreement with git, or a hang
past the per-case limit.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

from benchmarks.fuzzing.core import Verdict, case_rng, clip, describe, one_line_error
from benchmarks.fuzzing.sources import mentions

CLASS = "repositories"
DEFAULT_CASES = 60
TIMEOUT_S = 60.0
MARKER = "ATLAS-FUZZ-MUST-STAY-OUT-5b0e"
INGREDIENTS = [
    "backtracking-ignore",
    "random-ignore",
    "huge-ignore",
    "odd-ignore-lines",
    "bad-names",
    "deep-tree",
    "long-path",
    "link-loop",
    "link-out",
    "fifo",
    "huge-file",
    "binary",
    "unreadable",
]


def recipe(seed: int, index: int) -> dict[str, Any]:
    rng = case_rng(seed, CLASS, index)
    ingredients = list(dict.fromkeys(rng.choice(INGREDIENTS) for _ in range(rng.choice([1, 2, 3]))))
    return {"label": ", ".join(ingredients), "ingredients": ingredients, "seed": rng.random()}


def setup(workspace: Any) -> dict[str, Any]:
    return {"workdir": str(workspace.folder(CLASS))}  # no base bundle needed


class Repository:
    """Writes one case's repository under `case/repo` (and marked files under `case/outside`)."""

    def __init__(self, case: Path, spec: dict[str, Any]) -> None:
        self.root = case / "repo"
        self.outside = case / "outside"
        self.rng = random.Random(spec["seed"])
        self.plain: set[str] = set()  # files of `random-ignore`: kept unless git ignores them

    def write(self, ingredients: list[str]) -> Path:
        self.root.mkdir(parents=True)
        self.outside.mkdir()
        (self.outside / "secret.py").write_text(f"LEAK = '{MARKER}'\n")
        self._file("src/app.py", "def main():\n    return 1\n")
        self._file("README.md", "# App\n\nWhat it does.\n")
        for name in ingredients:
            getattr(self, "_" + name.replace("-", "_"))()
        return self.root

    def _file(self, rel: str, text: str | bytes) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return path

    def _ignore(self, lines: list[str], folder: str = "") -> None:
        path = self.root / folder / ".gitignore"
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8", newline="") as handle:
            handle.write("\n".join(lines) + "\n")

    def _backtracking_ignore(self) -> None:
        stars = self.rng.randint(8, 16)
        self._ignore(["*a" * stars + "*b", "**/" + "*x" * stars + "*y", "[a]*" * stars + "z"])
        for n in range(8):
            self._file(f"long/{'a' * self.rng.randint(60, 200)}{n}.py", "x = 1\n")
            self._file(f"long/{'x' * self.rng.randint(60, 200)}{n}.py", "x = 2\n")
        self._file(f"long/{'a' * 90}b", f"KEY = '{MARKER}'\n")

    def _random_ignore(self) -> None:
        atoms = ["a", "b", "*", "**", "?", "[ab]", "[!a]", "/", "\\*", "[a-c]", "!", "c"]
        for folder in ("", "a", "b/a"):
            lines = ["".join(self.rng.choice(atoms) for _ in range(self.rng.randint(1, 5)))
                     for _ in range(self.rng.randint(1, 6))]  # fmt: skip
            self._ignore(lines, folder)
        for _ in range(25):
            parts = [self.rng.choice(["a", "b", "ab", "ca", "bc"]) for _ in range(3)]
            path = self.root.joinpath(*parts[:-1])
            if path.exists() and not path.is_dir():
                continue
            if (path / parts[-1]).is_dir():
                continue
            rel = "/".join(parts[:-1]) + f"/{parts[-1]}.py"
            self._file(rel, "x = 1\n")
            self.plain.add(rel)

    def _huge_ignore(self) -> None:
        self._ignore([f"gen{n}_*" for n in range(6000)], "generated")
        self._file("generated/gen1_x.py", f"K = '{MARKER}'\n")

    def _odd_ignore_lines(self) -> None:
        self._ignore(["[unclosed", "trailing\\", "crlf.py\r", "  ", "#comment", "\\#hash.py"])
        self._file("crlf.py", f"K = '{MARKER}'\n")
        (self.root / "bad").mkdir()
        (self.root / "bad" / ".gitignore").write_bytes(b"\xff\xfe*.py\n")

    def _bad_names(self) -> None:
        for name in ("a\\b.py", "tab\t.py", "new\nline.py", "bell\x07.py", "esc\x1b[2J.py", "m.pkl",
                     "del\x7f.py", "sp ace .py", "\u202eevil.py"):  # fmt: skip
            self._file(name, "x = 1\n")
        self._file("dir\\with\tbad/inner.py", "x = 2\n")

    def _deep_tree(self) -> None:
        deep = "/".join(["d"] * self.rng.randint(60, 300))
        self._file(f"{deep}/deep.py", "x = 1\n")

    def _long_path(self) -> None:
        parts = ["n" * self.rng.randint(100, 255) for _ in range(self.rng.randint(4, 14))]
        # Past what this system takes, the case keeps what it could make: hostile enough.
        with contextlib.suppress(OSError):
            self._file("/".join(parts) + "/far.py", "x = 1\n")

    def _link_loop(self) -> None:
        os.symlink("loop-b", self.root / "loop-a")
        os.symlink("loop-a", self.root / "loop-b")
        os.symlink("..", self.root / "src" / "up")

    def _link_out(self) -> None:
        os.symlink(self.outside / "secret.py", self.root / "src" / "leak.py")
        os.symlink(self.outside, self.root / "outside-dir")

    def _fifo(self) -> None:
        os.mkfifo(self.root / "src" / "pipe.py")

    def _huge_file(self) -> None:
        self._file("data/huge.py", "x = 1\n" * 400_000)
        with (self.root / "data" / "sparse.py").open("wb") as handle:
            handle.truncate(1 << 30)

    def _binary(self) -> None:
        self._file("bin/blob.py", bytes(self.rng.randrange(256) for _ in range(4096)) + b"\0")

    def _unreadable(self) -> None:
        self._file("locked/inside.py", "x = 1\n").chmod(0)
        (self.root / "locked").chmod(0)


def _git_kept(repo: Path) -> set[str] | None:
    """The files git would not ignore (untracked, not excluded), or None without git."""
    if shutil.which("git") is None:
        return None
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    listed = subprocess.run(
        ["git", "-C", str(repo), "ls-files", "-o", "--exclude-standard", "-z"],
        capture_output=True,
        check=True,
    ).stdout
    shutil.rmtree(repo / ".git")
    return {p.decode("utf-8", "surrogateescape") for p in listed.split(b"\0") if p}


class Target:
    def __init__(self, setup: dict[str, Any]) -> None:
        self.workdir = Path(setup["workdir"])

    def run(self, spec: dict[str, Any]) -> Verdict:
        case = self.workdir / "case"
        _remove(case)
        case.mkdir(parents=True)
        writer = Repository(case, spec)
        repo = writer.write(spec["ingredients"])
        try:
            return self._index(repo, case / "bundle", writer.plain)
        finally:
            _remove(case)

    def _index(self, repo: Path, out: Path, plain: set[str]) -> Verdict:
        from atlas_core.build import build_bundle
        from atlas_core.bundle import Bundle, verify_bundle
        from atlas_core.errors import AtlasError

        kept = _git_kept(repo) if plain else None
        try:
            build_bundle([f"code={repo}"], out, model="hash", ranking=False, progress=False)
        except AtlasError as exc:
            if why := one_line_error(exc):
                return Verdict.failure(f"refused with {why}")
            if out.exists():
                return Verdict.failure(f"refused ({clip(exc.message, 120)}) but left {out.name}/")
            return Verdict.refused(exc.message)
        except Exception as exc:
            return Verdict.failure(describe(exc))
        if leaked := mentions(out, MARKER):
            return Verdict.failure(f"a file that must stay out reached the bundle: {leaked[:3]}")
        if problems := verify_bundle(out):
            return Verdict.failure(f"built a bundle verify refuses: {clip(problems[0], 200)}")
        if kept is not None:
            indexed = {p for p in Bundle.open(out).files if p.startswith("mirror/")}
            indexed = {p.removeprefix("mirror/") for p in indexed}
            if extra := indexed - kept:
                return Verdict.failure(f"indexed what git ignores: {sorted(extra)[:3]}")
            if missing := (plain & kept) - indexed:
                return Verdict.failure(f"left out what git keeps: {sorted(missing)[:3]}")
        return Verdict.accepted()


def _remove(path: Path) -> None:
    """Delete a case folder, unreadable folders included."""
    if not path.exists():
        return
    for folder, dirs, _files in os.walk(path):
        for name in dirs:
            child = os.path.join(folder, name)
            if not os.path.islink(child):
                with contextlib.suppress(OSError):
                    os.chmod(child, 0o755)
    shutil.rmtree(path, ignore_errors=True)
