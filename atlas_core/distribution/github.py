"""The few GitHub REST calls Atlas makes: read a release, create one, upload assets.

Works against github.com, GitHub Enterprise or a test server (`api_url`). A token from
GITHUB_TOKEN is sent to the API host only, never to a download host elsewhere.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from atlas_core import __version__
from atlas_core.errors import DistributionError

DEFAULT_API_URL = "https://api.github.com"
USER_AGENT = f"atlas-docs/{__version__}"
TIMEOUT = 30.0


@dataclass(frozen=True, slots=True)
class Asset:
    name: str
    url: str  # browser download URL
    api_url: str  # the asset's API URL (for private repositories)
    size: int


@dataclass(frozen=True, slots=True)
class Release:
    tag: str
    name: str
    assets: tuple[Asset, ...]
    upload_url: str = ""
    html_url: str = ""


def token_from_env() -> str | None:
    return os.environ.get("GITHUB_TOKEN") or os.environ.get("GH_TOKEN") or None


class GitHub:
    def __init__(self, api_url: str = DEFAULT_API_URL, token: str | None = None) -> None:
        self.api_url = api_url.rstrip("/")
        self.token = token
        self._api_host = urllib.parse.urlsplit(self.api_url).netloc

    def headers(self, url: str, accept: str = "application/vnd.github+json") -> dict[str, str]:
        headers = {"Accept": accept, "User-Agent": USER_AGENT, "X-GitHub-Api-Version": "2022-11-28"}
        if self.token and urllib.parse.urlsplit(url).netloc == self._api_host:
            headers["Authorization"] = f"Bearer {self.token}"
        return headers

    def release(self, repo: str, tag: str | None = None) -> Release:
        _check_repo(repo)
        if tag:
            path = f"/repos/{repo}/releases/tags/{urllib.parse.quote(tag, safe='')}"
        else:
            path = f"/repos/{repo}/releases/latest"
        try:
            data = self._json("GET", path)
        except _NotFound as exc:
            what = f"release tag {tag!r}" if tag else "a published release"
            raise DistributionError(
                f"{repo} has no {what} at {self.api_url}",
                hint="check --repo and --tag (omit --tag for the latest release)",
            ) from exc
        return _release(data)

    def create_release(self, repo: str, tag: str, title: str, notes: str) -> Release:
        _check_repo(repo)
        body = {"tag_name": tag, "name": title, "body": notes, "draft": False}
        return _release(self._json("POST", f"/repos/{repo}/releases", body))

    def upload_asset(self, release: Release, name: str, data: bytes, content_type: str) -> None:
        base = release.upload_url.split("{", 1)[0]
        if not base:
            raise DistributionError("the release has no upload URL", hint="check --api-url")
        url = f"{base}?name={urllib.parse.quote(name)}"
        headers = self.headers(self.api_url) | {"Content-Type": content_type}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        self._request("POST", url, data, headers)

    # -- plumbing -------------------------------------------------------------------------------

    def _json(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        url = self.api_url + path
        data = json.dumps(body).encode() if body is not None else None
        headers = self.headers(url)
        if data is not None:
            headers["Content-Type"] = "application/json"
        raw = self._request(method, url, data, headers)
        try:
            return json.loads(raw)
        except json.JSONDecodeError as exc:
            raise DistributionError(
                f"{url} did not answer with JSON", hint="check --api-url points at a GitHub API"
            ) from exc

    def _request(self, method: str, url: str, data: bytes | None, headers: dict[str, str]) -> bytes:
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as resp:
                return resp.read()
        except urllib.error.HTTPError as exc:
            raise http_error(exc, url) from exc
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise DistributionError(
                f"cannot reach {urllib.parse.urlsplit(url).netloc}: {reason}",
                hint="check your network connection and --api-url; what is installed is unchanged",
            ) from exc


class _NotFound(DistributionError):
    pass


def http_error(exc: urllib.error.HTTPError, url: str) -> DistributionError:
    """One readable error for an HTTP failure, rate limits spelled out."""
    remaining = exc.headers.get("X-RateLimit-Remaining") if exc.headers else None
    if exc.code in (403, 429) and (remaining == "0" or exc.headers.get("Retry-After")):
        reset = exc.headers.get("X-RateLimit-Reset")
        when = ""
        if reset and reset.isdigit():
            at = datetime.fromtimestamp(int(reset), UTC)
            minutes = max(0, round((int(reset) - time.time()) / 60))
            when = f"; it resets at {at:%H:%M} UTC (in about {minutes} min)"
        return DistributionError(
            f"GitHub API rate limit reached{when}",
            hint="wait until then, or set GITHUB_TOKEN for a higher limit",
        )
    if exc.code == 404:
        return _NotFound(f"{url} not found (404)", hint="check --repo, --tag and --api-url")
    if exc.code in (401, 403):
        return DistributionError(
            f"{url} refused access ({exc.code})",
            hint="set GITHUB_TOKEN to a token that can read (or write, to publish) the repository",
        )
    return DistributionError(f"{url} answered HTTP {exc.code} {exc.reason}", hint="try again later")


def _check_repo(repo: str) -> None:
    parts = repo.split("/")
    if len(parts) != 2 or not all(parts) or any(c in repo for c in " ?#"):
        raise DistributionError(f"--repo {repo!r} is not OWNER/NAME", hint="e.g. --repo acme/docs")


def _release(data: Any) -> Release:
    if not isinstance(data, dict) or "tag_name" not in data:
        raise DistributionError("the release answer lacks tag_name", hint="check --api-url")
    assets = tuple(
        Asset(
            name=str(a.get("name", "")),
            url=str(a.get("browser_download_url", "")),
            api_url=str(a.get("url", "")),
            size=int(a.get("size") or 0),
        )
        for a in data.get("assets", [])
        if isinstance(a, dict)
    )
    return Release(
        tag=str(data["tag_name"]),
        name=str(data.get("name") or data["tag_name"]),
        assets=assets,
        upload_url=str(data.get("upload_url") or ""),
        html_url=str(data.get("html_url") or ""),
    )
