"""Distribution: release archives, the release source, download, install from a path, backup and
restore, publish.

`download_release` installs a GitHub release (`release_source` says which repository and API,
the `github_token` setting the token); `install_path` installs a bundle folder or archive; `backup`,
`restore` and `list_snapshots` handle snapshots under `BACKUPS`; `publish_release` archives a
bundle and publishes it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas_core import lazy_exports

if TYPE_CHECKING:
    from atlas_core.distribution.download import download_release
    from atlas_core.distribution.install import BACKUPS, CURRENT, RELEASES, list_snapshots
    from atlas_core.distribution.local import install_path
    from atlas_core.distribution.publish import backup, publish_release, restore
    from atlas_core.distribution.source import (
        API_ENV,
        DEFAULT_API_URL,
        DEFAULT_RELEASE_REPO,
        REPO_ENV,
        release_source,
    )

__all__ = [
    "API_ENV",
    "BACKUPS",
    "CURRENT",
    "DEFAULT_API_URL",
    "DEFAULT_RELEASE_REPO",
    "RELEASES",
    "REPO_ENV",
    "backup",
    "download_release",
    "install_path",
    "list_snapshots",
    "publish_release",
    "release_source",
    "restore",
]

# Loaded on first use, so importing the face stays as cheap as it was (`atlas --help` reads the
# release defaults and must not import the HTTP client). No name here is also a module's name: a
# loaded submodule would shadow it.
_EXPORTS = {
    "BACKUPS": "install",
    "RELEASES": "install",
    "list_snapshots": "install",
    "CURRENT": "install",
    "download_release": "download",
    "install_path": "local",
    "backup": "publish",
    "publish_release": "publish",
    "restore": "publish",
    "API_ENV": "source",
    "DEFAULT_API_URL": "source",
    "DEFAULT_RELEASE_REPO": "source",
    "REPO_ENV": "source",
    "release_source": "source",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
