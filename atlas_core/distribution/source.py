"""Where `atlas download` looks for releases: one repository and one API, each a setting.

The first of these that is set wins, for the repository and the API URL separately (the
``release_repo`` and ``release_api`` settings, resolved by `atlas_core.config`):

    --repo / --api-url                       flags of `atlas download`
    ATLAS_RELEASE_REPO / ATLAS_RELEASE_API   environment
    [release] repo / api_url                 atlas.toml
    DEFAULT_RELEASE_REPO / DEFAULT_API_URL   atlas_core.config

The default repository is the one the Atlas project publishes its Collibra bundles to (the Zed
extension's manifest names the same one), so a bare `atlas download` installs the Collibra docs.
"""

from __future__ import annotations

from dataclasses import dataclass

from atlas_core.config import DEFAULT_API_URL, Settings
from atlas_core.config import DEFAULT_RELEASE_REPO as DEFAULT_RELEASE_REPO  # this package's face

REPO_ENV = "ATLAS_RELEASE_REPO"
API_ENV = "ATLAS_RELEASE_API"


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


def release_source(settings: Settings) -> ReleaseSource:
    """The release repository and API in effect, with where each came from."""
    # Here, not at the top: `atlas --help` shows this module's defaults and must not pay for the
    # HTTP client `github` imports.
    from atlas_core.distribution.github import check_repo

    repo_from = str(settings.origin("release_repo"))
    check_repo(settings.release_repo, repo_from)
    return ReleaseSource(
        settings.release_repo, repo_from, settings.release_api, str(settings.origin("release_api"))
    )
