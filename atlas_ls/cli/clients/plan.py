"""What `atlas setup` would change in one client's config, and applying it.

A plan is computed in full before anything is written: read, parse, merge the entry, edit the text,
then read the edited text back and check that only the atlas entry differs. Any failure on the way
leaves the file as it was.
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from atlas_core.console import INSTALL_COMMAND
from atlas_core.errors import ConfigError
from atlas_ls.cli.clients import files, formats
from atlas_ls.cli.clients.registry import CLIENTS, Client

SERVER_SCRIPT = "atlas-mcp"


@dataclass(frozen=True, slots=True)
class Plan:
    client: Client
    path: Path
    before: str | None  # None: the file does not exist yet
    after: str

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        before = (self.before or "").splitlines(keepends=True)
        after = self.after.splitlines(keepends=True)
        lines = difflib.unified_diff(
            before,
            after,
            fromfile=str(self.path) if self.before is not None else "/dev/null",
            tofile=str(self.path),
        )
        return "".join(_shown(line) for line in lines)


# A diff line longer than this is cut: a config may hold one multi-megabyte line (a history
# of pasted prompts) next to the change, and a dry run should not print it whole.
MAX_DIFF_LINE = 400


def _shown(line: str) -> str:
    line = line.rstrip("\n")
    if len(line) > MAX_DIFF_LINE:
        line = f"{line[:MAX_DIFF_LINE]} ... ({len(line) - MAX_DIFF_LINE:,} more characters)"
    return line + "\n"


@dataclass(frozen=True, slots=True)
class Status:
    client: Client
    path: Path
    state: str  # "configured", "not configured", "no config file", "unreadable"
    detail: str = ""


def server_command() -> str:
    """The absolute path of `atlas-mcp`: beside this Python (its virtual environment) or on PATH."""
    names = [SERVER_SCRIPT + ".exe", SERVER_SCRIPT] if os.name == "nt" else [SERVER_SCRIPT]
    folders = [Path(os.path.abspath(sys.executable)).parent, Path(sysconfig.get_path("scripts"))]
    for folder in folders:
        for name in names:
            candidate = folder / name
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
    found = shutil.which(SERVER_SCRIPT)
    if found:
        return os.path.abspath(found)
    raise ConfigError(
        f"{SERVER_SCRIPT} is not installed beside {sys.executable} nor on PATH",
        hint=f"install Atlas ({INSTALL_COMMAND} from a checkout), then run atlas setup again",
    )


def server_args(bundle: Path | None, project: Path | None = None) -> list[str]:
    """atlas-mcp's arguments: the bundle and the project (a repository `atlas index` built),
    each as an absolute path to an existing folder."""
    args: list[str] = []
    for flag, path, what in (
        ("--bundle", bundle, "bundle folder"),
        ("--project", project, "project folder"),
    ):
        if path is None:
            continue
        absolute = Path(os.path.abspath(path.expanduser()))
        if not absolute.is_dir():
            raise ConfigError(
                f"{flag} {path}: the {what} {absolute} is not a folder",
                hint=f"pass an existing {what} to {flag}",
                path=str(absolute),
            )
        args += [flag, str(absolute)]
    return args


def _merged(existing: Any, wanted: dict[str, Any]) -> dict[str, Any]:
    """Keys the user added to the entry (env, disabled, ...) stay; the ones atlas owns are set."""
    if isinstance(existing, dict):
        return {**existing, **wanted}
    return dict(wanted)


def plan_setup(client: Client, command: str, args: list[str], config: Path | None = None) -> Plan:
    path = files.target(config.expanduser() if config else client.locate())
    where = str(path)
    if (
        client.format == "yaml"
        and config is None
        and not path.exists()
        and path.with_name("config.json").exists()
    ):
        raise ConfigError(
            f"Continue is configured by {path.with_name('config.json')}, which it stops reading "
            f"once {path.name} exists",
            hint="migrate it to config.yaml first (Continue's docs: Migrating Config to YAML), "
            "or pass the file to edit with --config",
            path=where,
        )
    before = files.read_text(path)
    data = formats.load(client, before, where)
    existing = formats.current(client, data)
    entry = _merged(existing, client.entry(command, args))
    if existing == entry:
        return Plan(client, path, before, before if before is not None else "")
    after = formats.edit(client, before or "", entry, where)
    if before and _windows_lines(before):  # the new lines end as the file's own lines do
        after = re.sub(r"(?<!\r)\n", "\r\n", after)
    _check(client, before, data, after, entry, where)
    return Plan(client, path, before, after)


def _windows_lines(text: str) -> bool:
    """Every line ends in CRLF. A file that mixes both keeps its bare LF lines as they are, and
    the lines atlas adds end in LF."""
    crlf = text.count("\r\n")
    return crlf > 0 and crlf == text.count("\n")


def _check(
    client: Client,
    before: str | None,
    old: Any,
    after: str,
    entry: dict[str, Any],
    where: str,
) -> None:
    """Read the edited text back: it must parse, hold `entry`, and differ from `old` (the data
    read from `before`) in nothing else."""
    try:
        new = formats.load(client, after, where)
    except ConfigError:
        new = None
    same_rest = formats.without_entry(client, new) == formats.without_entry(client, old)
    if formats.current(client, new) == entry and (same_rest or not (before or "").strip()):
        return
    raise ConfigError(
        f"atlas setup could not edit {where} safely; it was left unchanged",
        hint=f"add the entry by hand: {formats.snippet(client, entry)}",
        path=where,
    )


def apply(plan: Plan) -> Path | None:
    """Write the plan (a no-op when nothing changes); returns the backup of the previous file."""
    if not plan.changed:
        return None
    if files.read_text(plan.path) != plan.before:  # the client itself may have saved it meanwhile
        raise ConfigError(
            f"{plan.path} changed while atlas setup was reading it; it was left as it is now",
            hint="run atlas setup again",
            path=str(plan.path),
        )
    try:
        saved = files.backup(plan.path) if plan.before is not None else None
        files.write_atomic(plan.path, plan.after)
    except OSError as exc:
        raise ConfigError(
            f"cannot write {plan.path}: {exc.strerror or exc}",
            hint="check the folder's permissions; the previous file is unchanged",
            path=str(plan.path),
        ) from None
    return saved


def describe(entry: dict[str, Any]) -> str:
    command = entry.get("command")
    if isinstance(command, list):
        return " ".join(str(part) for part in command)
    args = entry.get("args") or []
    return " ".join([str(command), *(str(a) for a in args)])


def status(client: Client) -> Status:
    path = client.locate()
    if not path.exists():
        return Status(client, path, "no config file")
    where = str(path)
    try:
        data = formats.load(client, files.read_text(files.target(path)), where)
    except ConfigError as exc:
        return Status(client, path, "unreadable", exc.message)
    entry = formats.current(client, data)
    if entry is None:
        return Status(client, path, "not configured")
    return Status(client, path, "configured", describe(entry))


def statuses() -> list[Status]:
    return [status(client) for client in CLIENTS]
