"""Who publishes a page: the vendor's portal, the vendor's spec, a third party, the user's team.

Lookup and search rank the vendor's own pages above a third party's for the same subject (a
community client's generated docs describe the vendor's API in their own spelling), and hover
says which it shows. The kind is decided at build time, once per page, from what is known:

- an explicit ``KIND:PUBLISHER=PATH`` source option wins for every page of that source;
- an `openapi` source is `vendor-spec` when its spec names the vendor (title or web address),
  and claims nothing otherwise;
- a page with a web address is `vendor-portal` on the vendor's hosts and repositories, else
  `third-party` (someone else's repository or site);
- a page without one is the `team`'s when it comes from the user's own folders, repositories or
  code (`local`, `git`, `code`); otherwise nothing is claimed.

The bundle records them compactly (`publisher_section`): a folder whose pages share one kind
once, the rest page by page. A bundle without the section ranks without authority.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

from atlas_core.errors import SourceError

VENDOR_PORTAL = "vendor-portal"
VENDOR_SPEC = "vendor-spec"
THIRD_PARTY = "third-party"
TEAM = "team"
PUBLISHER_KINDS: tuple[str, ...] = (VENDOR_PORTAL, VENDOR_SPEC, THIRD_PARTY, TEAM)
# What hover and lookup say about the page they show.
PUBLISHER_WORDS: dict[str, str] = {
    VENDOR_PORTAL: "from the vendor's documentation",
    VENDOR_SPEC: "from the vendor's API spec",
    THIRD_PARTY: "from a third-party client's docs",
    TEAM: "from your team's project",
}

# The vendor: its web hosts (and their subdomains) and its own organisation's repositories.
VENDOR_NAME = "collibra"
VENDOR_HOSTS: tuple[str, ...] = ("collibra.com",)
VENDOR_REPOSITORIES: tuple[str, ...] = ("github.com/collibra/", "gitlab.com/collibra/")
# Sources whose pages without an address are the user's own.
TEAM_SOURCES = frozenset({"local", "git", "code"})


def split_publisher(kind: str) -> tuple[str, str]:
    """`openapi:third-party` -> ("openapi", "third-party"); a kind without one -> (kind, "").
    An unknown publisher is a SourceError that lists the known ones."""
    base, sep, publisher = kind.partition(":")
    publisher = publisher.strip().lower()
    if sep and publisher not in PUBLISHER_KINDS:
        raise SourceError(
            f"source kind {kind!r}: unknown publisher {publisher!r}",
            hint=f"write KIND:PUBLISHER=PATH, PUBLISHER one of {', '.join(PUBLISHER_KINDS)}",
        )
    return base, publisher


def publisher_of_address(url: str) -> str:
    """`vendor-portal` for the vendor's hosts and repositories, `third-party` for any other web
    address, "" for none."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower()
    if parts.scheme not in ("http", "https") or not host:
        return ""
    if any(host == h or host.endswith("." + h) for h in VENDOR_HOSTS):
        return VENDOR_PORTAL
    where = f"{host}{parts.path}".lower()
    if any(where.startswith(repo) for repo in VENDOR_REPOSITORIES):
        return VENDOR_PORTAL
    return THIRD_PARTY


def spec_publisher(description: Mapping[str, Any]) -> str:
    """An OpenAPI source's kind: `vendor-spec` when its title or web address names the vendor,
    else "" (another API's spec on its own portal is that API's vendor's, not a third party's
    account of it; `openapi:third-party=FILE` says otherwise)."""
    title = str(description.get("title") or "").lower()
    by_address = publisher_of_address(str(description.get("web_url") or ""))
    return VENDOR_SPEC if VENDOR_NAME in title.split() or by_address == VENDOR_PORTAL else ""


def page_publishers(
    kind: str, pages: Iterable[tuple[str, str]], description: Mapping[str, Any], explicit: str = ""
) -> dict[str, str]:
    """Each page's publisher, from (path, url) pairs of one source of `kind`; pages with no
    known publisher are left out."""
    if explicit:
        return {path: explicit for path, _ in pages}
    if kind == "openapi":
        spec = spec_publisher(description)
        return {path: spec for path, _ in pages} if spec else {}
    if kind == "code":
        return {path: TEAM for path, _ in pages}
    out: dict[str, str] = {}
    for path, url in pages:
        publisher = publisher_of_address(url) or (TEAM if kind in TEAM_SOURCES else "")
        if publisher:
            out[path] = publisher
    return out


def source_publisher(publishers: Mapping[str, str], explicit: str = "") -> str:
    """What one source's manifest object says: its explicit kind, else the kind all its pages
    share; "" for a source of several (a mirror with a third party's section) or none."""
    if explicit:
        return explicit
    kinds = set(publishers.values())
    return kinds.pop() if len(kinds) == 1 else ""


def publisher_counts(publishers: Mapping[str, str]) -> dict[str, int]:
    """Pages per publisher kind, for one source's manifest object."""
    return dict(sorted(Counter(publishers.values()).items()))


def publisher_section(publishers: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """The manifest's `publishers` section: `folders` maps a top-level folder whose every page
    has one kind to it; `files` maps each other page to its own."""
    by_folder: dict[str, set[str]] = {}
    for path, kind in publishers.items():
        folder, sep, _ = path.partition("/")
        by_folder.setdefault(folder + "/" if sep else path, set()).add(kind)
    folders: dict[str, str] = {}
    files: dict[str, str] = {}
    for path, kind in sorted(publishers.items()):
        folder, sep, _ = path.partition("/")
        kinds = by_folder[folder + "/"] if sep else set()
        if len(kinds) == 1:
            folders[folder + "/"] = kind
        else:
            files[path] = kind
    return {"folders": folders, "files": files}


def publisher_problems(manifest: Mapping[str, Any]) -> list[str]:
    """Where a manifest claims a publisher kind this reader does not know (for `atlas verify`)."""
    problems: list[str] = []
    for n, source in enumerate(manifest.get("sources") or ()):
        kind = source.get("publisher") if isinstance(source, Mapping) else None
        if kind is not None and kind not in PUBLISHER_KINDS:
            problems.append(f"sources[{n}].publisher is {kind!r}")
    section = manifest.get("publishers")
    if section is None:
        return problems
    if not isinstance(section, Mapping):
        return [*problems, "publishers is not an object"]
    for part in ("folders", "files"):
        table = section.get(part, {})
        if not isinstance(table, Mapping):
            problems.append(f"publishers.{part} is not an object")
            continue
        problems.extend(
            f"publishers.{part}[{path!r}] is {kind!r}"
            for path, kind in table.items()
            if kind not in PUBLISHER_KINDS
        )
    return problems
