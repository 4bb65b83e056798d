"""Where Atlas keeps things and the settings it runs with.

Every setting resolves the same way, later sources winning: its default, the config file
``atlas.toml`` in the platform config dir (``ATLAS_CONFIG`` names another), the environment, and
last the flags a host parsed. The entry points (the `atlas` command, `atlas-ls`, `atlas-mcp`)
call `load_settings` once and pass the `Settings` down; this is the only module that reads the
environment for them. File keys:

    [bundle]
    path = "/path/to/bundle"          # default bundle for search, lookup, servers (or a list)

    [backend]
    prefer = "auto" | "apple" | "nvidia" | "cpu"

    [release]
    repo = "OWNER/NAME"               # where `atlas download` looks
    api_url = "https://api.github.com"

    [rerank]
    model = "/path/to/cross-encoder"
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

from atlas_core.errors import ConfigError

APP = "atlas"
DEFAULT_RELEASE_REPO = "atlas-docs/atlas"
DEFAULT_API_URL = "https://api.github.com"


def _platformdirs() -> Any:
    # Imported when a location is first asked for: with its imports (tempfile, shutil, random)
    # it is a tenth of what a language server compiles beyond the protocol without a bytecode
    # cache, and a server given --bundle never asks.
    import platformdirs

    return platformdirs


def config_dir() -> Path:
    return Path(_platformdirs().user_config_dir(APP, appauthor=False))


# The three locations are read at each call, not frozen at start: tests and benchmarks point a
# whole process at a scratch home by setting these variables, and nothing else reads them.
def data_dir() -> Path:
    override = os.environ.get("ATLAS_DATA_DIR")
    return Path(override) if override else Path(_platformdirs().user_data_dir(APP, appauthor=False))


def cache_dir() -> Path:
    override = os.environ.get("ATLAS_CACHE_DIR")
    return (
        Path(override) if override else Path(_platformdirs().user_cache_dir(APP, appauthor=False))
    )


def config_path() -> Path:
    override = os.environ.get("ATLAS_CONFIG")
    return Path(override) if override else config_dir() / "atlas.toml"


def installed_bundle_dir() -> Path:
    """The bundle that `atlas download` installs: ``<data dir>/current``."""
    return data_dir() / "current"


@dataclass(frozen=True, slots=True)
class Config:
    path: Path | None  # the file read, None when there is none
    data: dict[str, Any]

    def get(self, section: str, key: str, default: Any = None) -> Any:
        value = self.data.get(section, {})
        if not isinstance(value, dict):
            return default
        return value.get(key, default)


def load_config(path: Path | None = None) -> Config:
    """Read atlas.toml; a missing file is an empty config, a broken one is a ConfigError."""
    path = path or config_path()
    if not path.is_file():
        return Config(path=None, data={})
    import tomllib  # most installs have no config file: a language server's start skips this

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"config file {path} is not valid TOML: {exc}",
            hint="fix the file or remove it; ATLAS_CONFIG points at another one",
            path=str(path),
        ) from exc
    return Config(path=path, data=data)


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a setting's value came from."""

    kind: Literal["default", "file", "env", "flag"]
    name: str = ""  # "<path> [section] key", the variable, or the flag; "" for the default

    def __str__(self) -> str:
        """The short label messages use: the flag, the variable, the file key, or "default"."""
        return self.name or "default"

    def describe(self) -> str:
        """The label with its kind, for `atlas doctor`: "env ATLAS_BUNDLE", "flag --repo"."""
        return f"{self.kind} {self.name}" if self.name else self.kind


DEFAULT = Origin("default")


@dataclass(frozen=True, slots=True)
class Settings:
    """What Atlas runs with; `load_settings` fills it, `origins` says where each value came from.

    A field left at its default means "Atlas decides": no bundles means the installed bundle, then
    the embedded demo; no project means the working directory's index, if any; no ripgrep means
    the one beside this Python or on PATH.
    """

    bundles: tuple[Path, ...] = ()  # --bundle, ATLAS_BUNDLE (joined with os.pathsep), [bundle] path
    embed_backend: str = "auto"  # --prefer, ATLAS_EMBED_BACKEND, [backend] prefer
    reranker: Path | None = None  # ATLAS_RERANKER, [rerank] model: a cross-encoder folder
    release_repo: str = DEFAULT_RELEASE_REPO  # --repo, ATLAS_RELEASE_REPO, [release] repo
    release_api: str = DEFAULT_API_URL  # --api-url, ATLAS_RELEASE_API, [release] api_url
    project: Path | None = None  # --project, ATLAS_PROJECT: served beside the docs
    ripgrep: str | None = None  # ATLAS_RIPGREP: a path to rg, or "none" for the Python engine
    log_level: str = "INFO"  # --log-level, ATLAS_LOG_LEVEL (the servers' stderr log)
    # Secrets: never in a repr, a log or the doctor's output, only whether they are set.
    github_token: str | None = field(default=None, repr=False)  # GITHUB_TOKEN, else GH_TOKEN
    mcp_token: str | None = field(default=None, repr=False)  # ATLAS_MCP_TOKEN
    config_file: Path | None = None  # the atlas.toml looked for (ATLAS_CONFIG); it may not exist
    # ATLAS_DATA_DIR (installed bundles, backups, project indexes) and ATLAS_CACHE_DIR (the demo
    # bundle, doctor's probe cache); None: the platform's folder, looked up only when needed (a
    # language server given --bundle never imports platformdirs).
    data_dir: Path | None = None
    cache_dir: Path | None = None
    origins: Mapping[str, Origin] = field(default_factory=dict, compare=False, repr=False)

    def origin(self, name: str) -> Origin:
        return self.origins.get(name, DEFAULT)

    def describe(self) -> list[tuple[str, str, str]]:
        """(setting, shown value, origin) per setting, secrets as set/unset, for `atlas doctor`."""
        rows: list[tuple[str, str, str]] = []
        for spec in SPECS:
            value = getattr(self, spec.name)
            if value is None and spec.name in _PLATFORM_DIRS:
                value = Path(
                    getattr(_platformdirs(), _PLATFORM_DIRS[spec.name])(APP, appauthor=False)
                )
            if spec.secret:
                shown = "set" if value else "unset"
            elif isinstance(value, tuple):
                shown = os.pathsep.join(map(str, value)) if value else "(none)"
            else:
                shown = "(none)" if value is None else str(value)
            rows.append((spec.name, shown, self.origin(spec.name).describe()))
        return rows


@dataclass(frozen=True, slots=True)
class _Spec:
    name: str
    kind: Literal["str", "path", "paths"] = "str"
    file_key: tuple[str, str] | None = None  # (section, key) in atlas.toml
    env: tuple[str, ...] = ()  # variables, first set wins
    flag: str = ""  # the flag a host passes the value for
    secret: bool = False
    choices: tuple[str, ...] = ()  # the values it takes (upper case), when it is a choice


SPECS: tuple[_Spec, ...] = (
    _Spec("bundles", "paths", ("bundle", "path"), ("ATLAS_BUNDLE",), "--bundle"),
    _Spec("embed_backend", "str", ("backend", "prefer"), ("ATLAS_EMBED_BACKEND",), "--prefer"),
    _Spec("reranker", "path", ("rerank", "model"), ("ATLAS_RERANKER",)),
    _Spec("release_repo", "str", ("release", "repo"), ("ATLAS_RELEASE_REPO",), "--repo"),
    _Spec("release_api", "str", ("release", "api_url"), ("ATLAS_RELEASE_API",), "--api-url"),
    _Spec("project", "path", None, ("ATLAS_PROJECT",), "--project"),
    _Spec("ripgrep", "str", None, ("ATLAS_RIPGREP",)),
    _Spec(
        "log_level",
        "str",
        None,
        ("ATLAS_LOG_LEVEL",),
        "--log-level",
        choices=("DEBUG", "INFO", "WARNING", "ERROR"),
    ),
    _Spec("github_token", "str", None, ("GITHUB_TOKEN", "GH_TOKEN"), secret=True),
    _Spec("mcp_token", "str", None, ("ATLAS_MCP_TOKEN",), secret=True),
    _Spec("config_file", "path", None, ("ATLAS_CONFIG",)),
    _Spec("data_dir", "path", None, ("ATLAS_DATA_DIR",)),
    _Spec("cache_dir", "path", None, ("ATLAS_CACHE_DIR",)),
)
_PLATFORM_DIRS = {"data_dir": "user_data_dir", "cache_dir": "user_cache_dir"}
ENV_VARS: tuple[str, ...] = tuple(var for spec in SPECS for var in spec.env)


def load_settings(
    flags: Mapping[str, object] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    read_file: bool = True,
) -> Settings:
    """The settings in effect: defaults, then the config file, then `environ` (default: this
    process's environment), then `flags` (field name -> the parsed flag's value; None is "not
    given"). A broken file, or a value of the wrong shape in it, is a ConfigError naming the
    key; `read_file=False` skips the file (the doctor, which reports a broken one)."""
    env = os.environ if environ is None else environ
    named = env.get("ATLAS_CONFIG", "").strip()
    file = Path(named) if named else config_dir() / "atlas.toml"
    config = load_config(file) if read_file else Config(path=None, data={})
    values: dict[str, Any] = {}  # typed by _from_* per spec.kind
    origins: dict[str, Origin] = {}
    for spec in SPECS:
        if spec.file_key is not None and config.path is not None:
            raw = config.get(*spec.file_key)
            if raw is not None:
                where = f"{config.path} [{spec.file_key[0]}] {spec.file_key[1]}"
                values[spec.name] = _from_file(spec, raw, where)
                origins[spec.name] = Origin("file", where)
        for var in spec.env:
            text = env.get(var, "").strip()
            if text:
                values[spec.name] = _chosen(spec, _from_text(spec, text), var)
                origins[spec.name] = Origin("env", var)
                break
        given = (flags or {}).get(spec.name)
        if given is not None and given != [] and given != ():
            values[spec.name] = _from_flag(spec, given)
            origins[spec.name] = Origin("flag", spec.flag or spec.name)
    values["config_file"] = file
    return Settings(**values, origins=origins)  # type: ignore[arg-type]


def _chosen(spec: _Spec, value: object, where: str) -> object:
    """`value` of a choice setting in its canonical (upper) case; a ConfigError naming `where`
    when it is none of the choices."""
    if not spec.choices or not isinstance(value, str):
        return value
    if value.upper() not in spec.choices:
        raise ConfigError(
            f"{where}={value!r} is not one of {', '.join(spec.choices)}",
            hint=f"set {where} to one of them, or unset it (default {spec.choices[1]})",
        )
    return value.upper()


def _split(value: str) -> tuple[Path, ...]:
    return tuple(Path(p).expanduser() for p in value.split(os.pathsep) if p.strip())


def _from_text(spec: _Spec, text: str) -> object:
    if spec.kind == "paths":
        return _split(text)
    if spec.kind == "path":
        return Path(text).expanduser()
    return text


def _from_flag(spec: _Spec, given: object) -> object:
    if spec.kind == "paths":
        items = (
            [given] if isinstance(given, (str, os.PathLike)) else list(cast(Iterable[Any], given))
        )
        return tuple(p for item in items for p in _split(os.fspath(item)))
    return _from_text(spec, os.fspath(given) if isinstance(given, os.PathLike) else str(given))


def _from_file(spec: _Spec, raw: object, where: str) -> object:
    if spec.kind == "paths":
        if isinstance(raw, str):
            return _split(raw)
        if isinstance(raw, list) and all(isinstance(p, str) for p in raw):
            return tuple(Path(p).expanduser() for p in raw)
        raise ConfigError(
            "config key [bundle] path must be a string or a list of strings",
            hint='e.g. path = "/data/atlas/collibra"',
        )
    if not isinstance(raw, str) or not raw.strip():
        key = where.rsplit(" ", 1)[-1]
        raise ConfigError(
            f"config key {where} must be a non-empty string, found {raw!r}",
            hint=f'e.g. {key} = "..."',
            path=where.rsplit(" [", 1)[0],
        )
    return _from_text(spec, raw.strip())
