"""Where `atlas download` looks for releases: one repository and one API, each a setting.

The first of these that is set wins, for the repository and the API URL separately:

    --repo / --api-url                       flags of `atlas download`
    ATLAS_RELEASE_REPO / ATLAS_RELEASE_API   environment
    [release] repo / api_url                 atlas.toml
    DEFAULT_RELEASE_REPO / DEFAULT_API_URL   this package

The default repository is the one the Atlas project publishes its Collibra bundles to (the Zed
extension's manifest names the same one), so a bare `atlas download` installs the Collibra docs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from atlas_core.config import load_config
from atlas_core.errors import ConfigError

DEFAULT_RELEASE_REPO = "atlas-docs/atlas"
DEFAULT_API_URL = "https://api.github.com"
REPO_ENV = "ATLAS_RELEASE_REPO"
API_ENV = "ATLAS_RELEASE_API"
SECTION = "release"


@dataclass(frozen=True, slots=True)
class ReleaseSource:
    repo: str
    repo_from: str  # "--repo", "ATLAS_RELEASE_REPO", "<atlas.toml> [release] repo" or "default"
    api_url: str
    api_url_from: str

    def describe(self) -> str:
        """One line for `atlas doctor` and the download report."""
        api = "" if self.api_url == DEFAULT_API_URL else f" at {self.api_url} ({self.api_url_from})"
        return f"{self.repo} ({self.repo_from}){api}"


def release_source(repo: str | None = None, api_url: str | None = None) -> ReleaseSource:
    """The release repository and API in effect; `repo` and `api_url` are the flags, if given."""
    # Here, not at the top: `atlas --help` shows this module's defaults and must not pay for the
    # HTTP client `github` imports.
    from atlas_core.distribution.github import check_repo

    config = load_config()
    where = f"{config.path} [{SECTION}]" if config.path else f"[{SECTION}]"
    repo_value, repo_from = _pick(
        repo, "--repo", REPO_ENV, config.get(SECTION, "repo"), f"{where} repo", DEFAULT_RELEASE_REPO
    )
    api_value, api_from = _pick(
        api_url, "--api-url", API_ENV, config.get(SECTION, "api_url"), f"{where} api_url",
        DEFAULT_API_URL,
    )  # fmt: skip
    check_repo(repo_value, repo_from)
    return ReleaseSource(repo_value, repo_from, api_value, api_from)


def _pick(
    flag: str | None, flag_name: str, env: str, configured: object, config_name: str, default: str
) -> tuple[str, str]:
    if flag:
        return flag, flag_name
    if os.environ.get(env, "").strip():
        return os.environ[env].strip(), env
    if configured is not None:
        if not isinstance(configured, str) or not configured.strip():
            raise ConfigError(
                f"config key {config_name} must be a non-empty string",
                hint=f'e.g. {config_name.rsplit(" ", 1)[-1]} = "{default}"',
            )
        return configured.strip(), config_name
    return default, "default"
