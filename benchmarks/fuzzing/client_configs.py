"""Class `client_configs`: hostile MCP client configs for `atlas setup`, run as the CLI is run.

Each case writes one config for one of the eight clients (strict JSON, JSON with comments, TOML,
YAML) holding the user's own settings and servers plus a few hostile ingredients: nesting far
past any real config, multi-megabyte strings, numbers thousands of digits long, YAML alias bombs
and aliases that hold themselves, symbolic-link loops (the file, a pair, its folder), CRLF and
mixed line endings, a byte-order mark, bytes that are not UTF-8, NUL bytes, duplicate keys and
servers tables, a file cut short, comments in odd places, trailing text, an atlas entry the user
already extended. Then `python -m atlas_ls.cli setup CLIENT --config FILE` runs in a subprocess
with HOME inside the case (as tests/setup/conftest.py runs it), twice.

Clean: exit 2 with one `atlas: error:` line and one hint, no traceback, and every file and link
of the case byte for byte as it was; or exit 0 with a config that its format's own reader parses,
holds the atlas entry, keeps everything else the user had (their own keys of an old atlas entry
included), keeps the file's line endings, leaves one backup and no temporary file, and that a
second run leaves alone ("nothing changed"). Failure: anything else, or a hang.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

from benchmarks.fuzzing.core import Verdict, case_rng, clip, has_traceback

CLASS = "client_configs"
DEFAULT_CASES = 240
TIMEOUT_S = 120.0
RUN_TIMEOUT_S = 50.0
ROOT = Path(__file__).resolve().parents[2]
# Variables that would move a client's config out of the case's HOME.
LOCATION_VARIABLES = ("XDG_CONFIG_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR", "CONTINUE_GLOBAL_DIR")

# client -> (format, servers key, file name)
CLIENTS = {
    "claude-code": ("json", "mcpServers", ".claude.json"),
    "claude-desktop": ("json", "mcpServers", "claude_desktop_config.json"),
    "cursor": ("json", "mcpServers", "mcp.json"),
    "vscode": ("jsonc", "servers", "mcp.json"),
    "opencode": ("jsonc", "mcp", "opencode.json"),
    "zed": ("jsonc", "context_servers", "settings.json"),
    "codex": ("toml", "mcp_servers", "config.toml"),
    "continue": ("yaml", "mcpServers", "config.yaml"),
}
DEEP = [40, 65, 300, 2_000, 100_000]
# What goes in the `hostile` value; the alias ones only where YAML has aliases.
VALUES = ["deep", "deep_object", "huge_string", "huge_number", "long_number", "escapes", "plain"]
YAML_VALUES = ["alias_bomb", "self_alias", "shared_anchor", "deep_block"]
TOML_VALUES = ["deep_key", "deep_header"]
MUTATIONS = [
    "crlf",
    "mixed_eol",
    "bom",
    "not_utf8",
    "nul",
    "truncated",
    "duplicate_key",
    "duplicate_servers",
    "odd_comments",
    "trailing_text",
    "old_atlas_entry",
    "empty",
]
LINKS = ["loop_self", "loop_pair", "loop_folder", "link_to_file", "dangling_link"]


def recipe(seed: int, index: int) -> dict[str, Any]:
    rng = case_rng(seed, CLASS, index)
    client = rng.choice(sorted(CLIENTS))
    fmt = CLIENTS[client][0]
    values = VALUES + (YAML_VALUES if fmt == "yaml" else TOML_VALUES if fmt == "toml" else [])
    value = rng.choice(values)
    mutations = sorted({rng.choice(MUTATIONS) for _ in range(rng.choice([0, 1, 1, 2]))})
    link = rng.choice(LINKS) if rng.random() < 0.15 else None
    parts = [value, *mutations, *([link] if link else [])]
    return {
        "label": f"{client}: {' + '.join(parts)}",
        "client": client,
        "value": value,
        "mutations": mutations,
        "link": link,
        "seed": rng.random(),
    }


# --- building the config ------------------------------------------------------------------------


def _hostile_value(fmt: str, value: str, rng: random.Random) -> tuple[str, str]:
    """(lines before the settings, the text of the `hostile` value) in `fmt`."""
    depth = rng.choice(DEEP)
    if value == "deep":
        return "", "[" * depth + "]" * depth
    if value == "deep_object":
        if fmt == "toml":
            return "", "{ a = " * depth + "1" + " }" * depth
        if fmt == "yaml":
            return "", "{a: " * depth + "1" + "}" * depth
        return "", '{"a": ' * depth + "1" + "}" * depth
    if value == "huge_string":
        size = rng.choice([100_000, 1_000_000, 4_000_000])
        return "", json.dumps(rng.choice("xé€") * size, ensure_ascii=False)
    if value == "huge_number":
        return "", rng.choice(["-", ""]) + "9" * rng.choice([4_301, 5_000, 100_000])
    if value == "long_number":
        number = "1" * rng.choice([20, 400, 4_300])
        return "", rng.choice([number, number + ".5", "1." + number, "1e" + number[:4]])
    if value == "escapes":
        return "", json.dumps("\\" * 1_000 + '"\n\t\u2028\x7f' * 1_000 + "\U0001f600")
    if value == "alias_bomb":
        levels = rng.choice([6, 9, 12])
        lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n']
        lines += [f"a{i}: &a{i} [{','.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, levels)]
        return "".join(lines), f"*a{levels - 1}"
    if value == "self_alias":
        return "", rng.choice(["&s [1, *s]", "&s {k: *s}", "&s [[*s]]"])
    if value == "shared_anchor":
        return "env: &env {A: '1', B: '2'}\n", "{first: *env, second: *env}"
    if value == "deep_block":
        return "", "\n" + "  " + "- " * depth + "x"
    if value == "deep_key":
        return ".".join(["k"] * depth) + " = 1\n", "2"
    if value == "deep_header":
        return "", "3\n[" + ".".join(["h"] * depth) + "]\nx = 1"
    return "", json.dumps(rng.choice(["dark", "a # not a comment", "// not a comment", ""]))


def build(fmt: str, servers: str, value: str, rng: random.Random) -> str:
    """The user's config with the hostile value, before any mutation."""
    before, hostile = _hostile_value(fmt, value, rng)
    if fmt == "toml":
        return (
            f'model = "o3"\n{before}hostile = {hostile}\n\n'
            f'[{servers}.web]\ncommand = "w"\nargs = ["--x"]\n'
        )
    if fmt == "yaml":
        return (
            f"name: Local Config\nversion: 1.0.0\nschema: v1\n{before}hostile: {hostile}\n"
            f"{servers}:\n  - name: web\n    command: w\n"
        )
    comment = "  // the user's own note\n" if fmt == "jsonc" else ""
    return (
        f'{{\n{comment}  "theme": "dark",\n  "hostile": {hostile},\n'
        f'  "{servers}": {{\n    "web": {{"command": "w", "args": ["--x"]}}\n  }}\n}}\n'
    )


def mutate(fmt: str, servers: str, text: str, mutation: str, rng: random.Random) -> bytes:
    raw = text.encode("utf-8", "surrogateescape")
    at = rng.randrange(len(raw) + 1)
    if mutation == "crlf":
        return raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    if mutation == "mixed_eol":
        lines = raw.split(b"\n")
        return b"\n".join(line + b"\r" if rng.random() < 0.5 else line for line in lines[:-1]) + (
            b"\n" + lines[-1]
        )
    if mutation == "bom":
        return b"\xef\xbb\xbf" + raw
    if mutation == "not_utf8":
        return raw[:at] + rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xc0\xaf"]) + raw[at:]
    if mutation == "nul":
        return raw[:at] + b"\x00" + raw[at:]
    if mutation == "truncated":
        return raw[:at]
    if mutation == "empty":
        return rng.choice([b"", b"\n", b"  \r\n\t"])
    if mutation == "trailing_text":
        return raw + rng.choice([b"}", b"garbage", b"\n[", b"\n---\nx: 1\n"])
    return _mutate_text(fmt, servers, text, mutation, rng).encode("utf-8", "surrogateescape")


def _mutate_text(fmt: str, servers: str, text: str, mutation: str, rng: random.Random) -> str:
    if mutation == "duplicate_key":
        if fmt == "toml":
            return text + "\n[extra]\nk = 1\nk = 2\n"
        if fmt == "yaml":
            return text.replace("name: Local Config\n", "name: Local Config\nname: Twice\n")
        return text.replace('"theme": "dark",', '"theme": "dark", "theme": "light",')
    if mutation == "duplicate_servers":
        if fmt == "toml":
            return text + f'\n[{servers}.web]\ncommand = "again"\n'
        if fmt == "yaml":
            return text + f"{servers}:\n  - name: second\n    command: s\n"
        return text.replace('"theme"', f'"{servers}": {{"first": {{"command": "f"}}}},\n  "theme"')
    if mutation == "old_atlas_entry":
        if fmt == "toml":
            return text + f'\n[{servers}.atlas]\ncommand = "old"\nenv = {{ KEEP = "me" }}\n'
        if fmt == "yaml":
            return text + '  - name: atlas\n    command: old\n    env: {KEEP: "me"}\n'
        entry = '"atlas": {"command": "old", "env": {"KEEP": "me"}},\n    '
        return text.replace('"web": {', entry + '"web": {', 1)
    # odd_comments: where a reader may not expect them
    if fmt == "toml":
        return text.replace(f"[{servers}.web]", f"[{servers}.web] # [{servers}.atlas]", 1)
    if fmt == "yaml":
        return text.replace("  - name: web", "  - # c\n    name: web", 1)
    spots = [("{", "{ /* { */"), (":", " /* : */ :"), (",", ", // ,\n"), ("}\n}", "} // }\n}")]
    old, new = rng.choice(spots)
    return text.replace(old, new, 1) + rng.choice(["", "// the end", "/* the end */"])


# --- the case runner ----------------------------------------------------------------------------


def setup(workspace: Any) -> dict[str, Any]:
    return {"workdir": str(workspace.folder(CLASS))}


def snapshot(top: Path) -> dict[str, Any]:
    """Every file, folder and link under `top` and what it holds, links not followed."""
    found: dict[str, Any] = {}
    for dirpath, dirnames, filenames in os.walk(top):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            key = str(path.relative_to(top))
            if path.is_symlink():
                found[key] = ("link", os.readlink(path))
            elif path.is_dir():
                found[key] = ("folder",)
            else:
                found[key] = ("file", path.read_bytes())
    return found


def reference(fmt: str, raw: bytes) -> Any:
    """The document as its client's kind of reader sees it (Atlas's own for JSON with comments,
    which the standard library does not read); raises on anything it refuses."""
    text = raw.decode("utf-8")
    if fmt == "json":
        return json.loads(text)
    if fmt == "toml":
        return tomllib.loads(text)
    if fmt == "yaml":
        import yaml

        return yaml.safe_load(text)
    from atlas_ls.cli.clients import jsonc

    return jsonc.parse(text or "{}", comments=True).value


class Target:
    def __init__(self, setup: dict[str, Any]) -> None:
        self.workdir = Path(setup["workdir"])
        self.env = {k: v for k, v in os.environ.items() if k not in LOCATION_VARIABLES}
        self.env["PYTHONPATH"] = str(ROOT)

    def run(self, spec: dict[str, Any]) -> Verdict:
        case = self.workdir / "case"
        shutil.rmtree(case, ignore_errors=True)
        home = case / "home"
        home.mkdir(parents=True)
        try:
            return self._run(spec, case, home)
        finally:
            shutil.rmtree(case, ignore_errors=True)

    def setup(self, home: Path, client: str, config: Path) -> subprocess.CompletedProcess[str]:
        env = {**self.env, "HOME": str(home)}
        return subprocess.run(
            [sys.executable, "-m", "atlas_ls.cli", "setup", client, "--config", str(config)],
            capture_output=True,
            text=True,
            env=env,
            cwd=home,
            timeout=RUN_TIMEOUT_S,
        )

    def _run(self, spec: dict[str, Any], case: Path, home: Path) -> Verdict:
        from atlas_ls.cli.clients import find_client, formats

        rng = random.Random(spec["seed"])
        fmt, servers, name = CLIENTS[spec["client"]]
        raw = build(fmt, servers, spec["value"], rng).encode()
        for mutation in spec["mutations"]:
            raw = mutate(fmt, servers, raw.decode("utf-8", "surrogateescape"), mutation, rng)
        config, real = self._place(spec["link"], home / name, raw)
        had_file = real is not None and real.exists()
        before = snapshot(case)
        try:
            first = self.setup(home, spec["client"], config)
        except subprocess.TimeoutExpired:
            return Verdict.failure(f"no answer within {RUN_TIMEOUT_S:g} s")
        if first.returncode == 2:
            return self._refused(first, before, snapshot(case))
        if first.returncode != 0 or has_traceback(first.stderr):
            return Verdict.failure(f"exit {first.returncode}: {clip(first.stderr[-600:])}")
        client = find_client(spec["client"])
        edited_path = real or config
        had_content = had_file and raw.strip() != b""
        problem = self._check_edit(fmt, client, formats, raw if had_content else None, edited_path)
        if problem:
            return Verdict.failure(problem)
        added = set(snapshot(case)) - set(before)
        if [p for p in added if p.endswith(".tmp")]:
            return Verdict.failure(f"left a temporary file: {sorted(added)}")
        if len([p for p in added if p.endswith(".bak")]) != (1 if had_file else 0):
            return Verdict.failure(f"not one backup of the previous file: {sorted(added)}")
        edited = edited_path.read_bytes()
        try:
            second = self.setup(home, spec["client"], config)
        except subprocess.TimeoutExpired:
            return Verdict.failure(f"the second run gave no answer within {RUN_TIMEOUT_S:g} s")
        if second.returncode != 0 or "nothing changed" not in second.stdout:
            return Verdict.failure(f"a second run was not a no-op: {clip(second.stderr[-300:])}")
        if edited_path.read_bytes() != edited:
            return Verdict.failure("a second run changed the file again")
        return Verdict.accepted()

    def _place(self, link: str | None, config: Path, raw: bytes) -> tuple[Path, Path | None]:
        """Write the config as the recipe says: the path to pass, and the real file behind it
        (None: a loop, there is none)."""
        if link == "loop_self":
            config.symlink_to(config.name)
            return config, None
        if link == "loop_pair":
            config.symlink_to("other")
            (config.parent / "other").symlink_to(config.name)
            return config, None
        if link == "loop_folder":
            (config.parent / "dir").symlink_to("dir")
            return config.parent / "dir" / config.name, None
        if link in ("link_to_file", "dangling_link"):
            real = config.parent / "dotfiles" / config.name
            real.parent.mkdir()
            if link == "link_to_file":
                real.write_bytes(raw)
            config.symlink_to(real)
            return config, real
        config.write_bytes(raw)
        return config, config

    @staticmethod
    def _refused(
        done: subprocess.CompletedProcess[str], before: dict[str, Any], after: dict[str, Any]
    ) -> Verdict:
        lines = done.stderr.splitlines()
        if has_traceback(done.stderr) or len(lines) != 2:
            return Verdict.failure(f"refused in {len(lines)} lines: {clip(done.stderr[-600:])}")
        if not (lines[0].startswith("atlas: error: ") and lines[1].startswith("  hint: ")):
            return Verdict.failure(f"refused without the error and hint lines: {clip(done.stderr)}")
        if after != before:
            changed = sorted(
                set(after) ^ set(before) | {k for k in after if after[k] != before.get(k)}
            )
            return Verdict.failure(f"refused but changed {changed[:3]}")
        return Verdict.refused(lines[0])

    @staticmethod
    def _check_edit(fmt: str, client: Any, formats: Any, raw: bytes | None, path: Path) -> str:
        """Why the edited file is wrong, or "" when every invariant holds."""
        edited = path.read_bytes()
        try:
            new = reference(fmt, edited)
        except Exception as exc:
            return (
                f"the edited file does not read back: {type(exc).__name__}: {clip(str(exc), 200)}"
            )
        entry = formats.current(client, new)
        command = entry.get("command") if isinstance(entry, dict) else None
        command = command[0] if isinstance(command, list) and command else command
        if not (isinstance(command, str) and command.endswith("atlas-mcp")):
            return f"no atlas entry after the edit: {clip(repr(entry), 200)}"
        if raw is None:
            return ""
        try:
            old = reference(fmt, raw)
        except Exception as exc:
            return f"accepted a config its client cannot read ({type(exc).__name__})"
        if formats.without_entry(client, new) != formats.without_entry(client, old):
            return "the user's other settings changed"
        kept = (formats.current(client, old) or {}).get("env")
        if kept is not None and entry.get("env") != kept:
            return "the user's own keys of the old atlas entry were lost"
        crlf, lf = raw.count(b"\r\n"), raw.count(b"\n") - raw.count(b"\r\n")
        new_crlf, new_lf = edited.count(b"\r\n"), edited.count(b"\n") - edited.count(b"\r\n")
        if crlf and not lf and new_lf:
            return "a CRLF file got lines ending in LF alone"
        if lf and not crlf and new_crlf:
            return "an LF file got lines ending in CRLF"
        if formats.current(client, old) is None and (new_crlf < crlf or new_lf < lf):
            return "lines of the user's file lost their line endings"
        return ""
