"""The `atlas` command: one dispatcher, one place that turns errors into a line and an exit code.

The CLI is the third host beside `atlas_ls.lsp` and `atlas_ls.mcp`: it calls the engine, and
`atlas smoke` starts the two servers. Each subcommand lives in `atlas_ls.cli.commands.<name>` and
exposes ``register(subparsers) -> None``; the parser it adds sets ``func`` to a callable taking the
parsed namespace and returning an exit code. Modules are imported lazily by name so `atlas lookup`
never pays for the embedding stack, and no command imports a protocol library until it runs.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import logging
import sys
from collections.abc import Collection, Sequence

from atlas_core import __version__
from atlas_core.config import Settings, load_settings
from atlas_core.errors import AtlasError, ConfigError, path_error

# subcommand -> module under atlas_ls.cli.commands that registers it. Several subcommands may share
# one module; each module registers all of its own.
COMMAND_MODULES: tuple[str, ...] = (
    "build",  # build, verify, info
    "search",  # search, lookup, symbols, evaluate
    "demo",  # demo
    "crawl",  # crawl, crawl-validate
    "distribution",  # download, backup, restore, publish
    "doctor",  # doctor
    "setup",  # setup
    "index",  # index
    "changes",  # diff
    "smoke",  # smoke
)


def _build_parser() -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:
    parser = argparse.ArgumentParser(
        prog="atlas",
        description="Collibra developer docs, offline: build, search and serve documentation bundles.",
    )
    parser.add_argument("--version", action="version", version=f"atlas {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more log output")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"atlas_ls.cli.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"atlas_ls.cli.commands.{name}":
                continue  # a capability not built yet
            raise
        module.register(sub)
    return parser, sub


def unknown_command(argv: Sequence[str], commands: Collection[str]) -> ConfigError | None:
    """The error for a command name that is none of `commands` (argparse would print its usage
    and every choice), with the closest names as the hint; None when the command is known.

    The top-level options take no value, so the first word that is not an option is the command.
    """
    word = next((arg for arg in argv if not arg.startswith("-")), None)
    if word is None or word in commands:
        return None
    close = difflib.get_close_matches(word, sorted(commands), n=2, cutoff=0.6)
    if close:
        hint = "did you mean " + " or ".join(f"'{name}'" for name in close) + "?"
    else:
        hint = "run `atlas --help` for the list of commands"
    return ConfigError(f"unknown command '{word}'", hint=hint)


def _closest(flag: str, known: list[str]) -> list[str]:
    """The one or two flags closest to `flag`; a second only when it is about as close as the
    first (`--topk` is `--top-k`, not also `--scope`)."""
    scored = sorted(
        ((difflib.SequenceMatcher(None, flag, name).ratio(), name) for name in known),
        reverse=True,
    )
    good = [(score, name) for score, name in scored[:2] if score >= 0.6]
    return [name for score, name in good if score >= good[0][0] - 0.1] if good else []


def unknown_option(argv: Sequence[str], sub: argparse._SubParsersAction) -> ConfigError | None:
    """The error for a long option the command does not take (argparse would print its usage
    line), with the command's closest options as the hint; None when every option is known.

    Checked before argparse parses, so a mistyped flag is named even when a required one is
    missing too. A word after an option that takes a value is that value, never an option.
    """
    command = next((arg for arg in argv if not arg.startswith("-")), None)
    parser = sub.choices.get(command) if command is not None else None
    if parser is None:
        return None
    options: dict[str, argparse.Action] = {}
    for action in parser._actions:
        for flag in action.option_strings:
            options[flag] = action
    known = [flag for flag in options if flag.startswith("--")]
    takes_value = False
    for arg in argv[argv.index(command) + 1 :]:
        if arg == "--":
            break
        if takes_value:
            takes_value = False
            continue
        if not arg.startswith("--"):
            action = options.get(arg)
            takes_value = action is not None and action.nargs != 0 and "=" not in arg
            continue
        flag = arg.partition("=")[0]
        matches = [name for name in known if name.startswith(flag)]
        if flag in options or matches:  # argparse takes unique prefixes and names ambiguous ones
            action = options.get(flag) or options[matches[0]]
            takes_value = action.nargs != 0 and "=" not in arg
            continue
        close = _closest(flag, known)
        if close:
            hint = "did you mean " + " or ".join(f"'{name}'" for name in close) + "?"
        else:
            hint = f"run `atlas {command} --help` for its options"
        return ConfigError(f"unknown option '{flag}' for `atlas {command}`", hint=hint)
    return None


def configure_logging(verbosity: int) -> None:
    level = logging.WARNING if verbosity <= 0 else logging.INFO if verbosity == 1 else logging.DEBUG
    logging.basicConfig(
        level=level, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s"
    )


def report_error(exc: AtlasError) -> None:
    """Print an expected failure as one line plus a hint, never a traceback."""
    print(f"atlas: error: {exc.message}", file=sys.stderr)
    if exc.hint:
        print(f"  hint: {exc.hint}", file=sys.stderr)


# Parsed flags that are settings: argparse dest -> `Settings` field. Read once in `main`, after
# the environment and the config file, and handed to every command as ``args.settings``.
SETTING_FLAGS = {
    "bundle": "bundles",
    "prefer": "embed_backend",
    "repo": "release_repo",
    "api_url": "release_api",
}


def settings_of(args: argparse.Namespace) -> Settings:
    """The settings this command runs with; a ``--bundle`` that names one folder to act on (not
    bundles to open) is no setting. A command that reports a broken config file (the doctor)
    runs without it instead of failing here."""
    flags = {field: getattr(args, dest, None) for dest, field in SETTING_FLAGS.items()}
    if not isinstance(flags["bundles"], list):
        flags["bundles"] = None
    try:
        return load_settings(flags)
    except ConfigError:
        if not getattr(args, "reports_config", False):
            raise
        return load_settings(flags, read_file=False)


def main(argv: Sequence[str] | None = None) -> int:
    parser, sub = _build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    unknown = unknown_command(argv, sub.choices) or unknown_option(argv, sub)
    if unknown is not None:
        report_error(unknown)
        return unknown.exit_code
    args = parser.parse_args(argv)
    configure_logging(args.verbose)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        args.settings = settings_of(args)
        return int(args.func(args) or 0)
    except AtlasError as exc:
        report_error(exc)
        return exc.exit_code
    except KeyboardInterrupt:
        print("atlas: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:
        # A path the user gave that the command could not use: one line naming it, not a
        # traceback. An OSError naming no path is no user mistake and keeps its traceback.
        error = path_error(exc)
        if error is None:
            raise
        report_error(error)
        return error.exit_code
