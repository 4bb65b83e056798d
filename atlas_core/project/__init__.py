"""A team's own code as a bundle beside the vendor docs: `atlas index` and where it lives.

A project is a repository (the nearest folder above the working directory holding ``.git``, else
the folder given). Its bundle is built from a `code` source into the user data dir,
``<data dir>/projects/<name>-<hash>`` (the repository folder's name and a hash of its path, so two
checkouts named alike never share one), and named after the repository. An update reuses the
vectors of every unchanged chunk (`build_bundle`'s reuse by content id), so editing one file
embeds that file's chunks only; the new bundle replaces the old one in one rename, so a server
serving it hot-reloads and never reads a half-written one.

The servers open a project's bundle beside the docs when given ``--project PATH`` or started
inside an indexed repository (`project_bundles`).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

from atlas_core import lazy_exports
from atlas_core.config import data_dir
from atlas_core.errors import QueryError, SourceError

if TYPE_CHECKING:
    from atlas_core.project.index import IndexTarget, index_project, target_of, watch_project

log = logging.getLogger(__name__)

PROJECTS = "projects"
PROJECT_ENV = "ATLAS_PROJECT"  # the variable of the `project` setting the servers pass here


def project_root(start: str | os.PathLike[str]) -> Path:
    """The repository `start` is in (the nearest folder with ``.git``), else `start` itself.
    SourceError when `start` is not a folder."""
    path = Path(start).expanduser().absolute()
    if not path.is_dir():
        raise SourceError(
            f"{path}: not a folder",
            hint="pass the repository's folder (atlas index PATH), or run it inside the repository",
            path=str(path),
        )
    path = path.resolve()
    for folder in (path, *path.parents):
        if (folder / ".git").exists():
            return folder
    return path


def project_bundle_dir(root: Path) -> Path:
    """Where the bundle of the project at `root` lives (see the module docstring)."""
    import hashlib  # here: every server start looks for a project, most find none

    from atlas_core.bundle import sanitized_bundle_name

    resolved = Path(root).resolve()
    digest = hashlib.sha256(os.fsencode(resolved)).hexdigest()[:8]
    return data_dir() / PROJECTS / f"{sanitized_bundle_name(resolved.name)}-{digest}"


def project_name(root: Path) -> str:
    from atlas_core.bundle import sanitized_bundle_name

    return sanitized_bundle_name(Path(root).resolve().name)


def indexed_bundle(start: str | os.PathLike[str]) -> Path | None:
    """The bundle of the project `start` is in, when `atlas index` has built one; else None."""
    if not (data_dir() / PROJECTS).is_dir():
        return None  # nothing is indexed on this machine
    try:
        root = project_root(start)
    except SourceError:
        return None
    bundle = project_bundle_dir(root)
    return bundle if (bundle / "manifest.json").is_file() else None


def project_bundles(explicit: str | os.PathLike[str] | None, *, cwd: bool = True) -> list[Path]:
    """The project bundles a server opens beside the docs: the one of `explicit` (the `project`
    setting: ``--project``, else ``$ATLAS_PROJECT``), which must have been indexed, or the one of the working directory's
    repository when it has been (`cwd`). BundleError-free: an explicit project without an index
    is a SourceError saying to run `atlas index`."""
    given = explicit or None
    if given is not None:
        root = project_root(given)
        bundle = project_bundle_dir(root)
        if not (bundle / "manifest.json").is_file():
            raise SourceError(
                f"project {root} has no index yet",
                hint=f"run `atlas index {root}` first (or `atlas index --watch` to keep it current)",
                path=str(root),
            )
        return [bundle]
    if cwd:
        found = indexed_bundle(Path.cwd())
        if found is not None:
            log.info("serving the project index of %s beside the docs", found)
            return [found]
    return []


def no_project_error(serve: str) -> QueryError:
    """What a search with scope "project" answers when no project index is open: that none is,
    and how to index one; `serve` says how the asking host opens it (its flag or setting)."""
    return QueryError(
        "no project is indexed here: scope 'project' searches your own code, indexed with "
        "`atlas index`; scope 'docs' or 'all' searches the docs",
        hint=f"run `atlas index PATH` on the repository (keyword answers are ready within "
        f"seconds, vectors follow), then {serve}",
    )


__all__ = [
    "PROJECTS",
    "PROJECT_ENV",
    "IndexTarget",
    "index_project",
    "indexed_bundle",
    "no_project_error",
    "project_bundle_dir",
    "project_bundles",
    "project_name",
    "project_root",
    "target_of",
    "watch_project",
]

# Building and watching an index load on first use: every server start asks for
# `project_bundles`, none needs the build.
__getattr__ = lazy_exports(
    __name__,
    {
        "IndexTarget": "index",
        "index_project": "index",
        "target_of": "index",
        "watch_project": "index",
    },
)
