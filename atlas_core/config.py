"""Where Atlas keeps things and how it reads its config file.

Locations come from platformdirs. The config file is ``atlas.toml`` in the platform config dir
(override with ``ATLAS_CONFIG``). Keys:

    [bundle]
    path = "/path/to/bundle"          # default bundle for search, lookup, servers

    [backend]
    prefer = "auto" | "apple" | "nvidia" | "cpu"
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from atlas_core.errors import ConfigError

APP = "atlas"


def _platformdirs() -> Any:
    # Imported when a location is first asked for: with its imports (tempfile, shutil, random)
    # it is a tenth of what a language server compiles beyond the protocol without a bytecode
    # cache, and a server given --bundle never asks.
    import platformdirs

    return platformdirs


def config_dir() -> Path:
    return Path(_platformdirs().user_config_dir(APP, appauthor=False))


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


def load_config() -> Config:
    """Read atlas.toml; a missing file is an empty config, a broken one is a ConfigError."""
    path = config_path()
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
