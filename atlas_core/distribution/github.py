"""The few GitHub REST calls Atlas makes: read a release, create one, upload assets.

Works against github.com, GitHub Enterprise or a test server (`api_url`). A token from
GITHUB_TOKEN is sent to the API host only, never to a download host elsewhere, and every request
goes through one opener that drops it when a redirect leaves the host it was sent to (urllib on its
own copies `Authorization` to wherever a 302 points, GitHub's asset storage host included).

A release answer is network data: it is parsed strictly, and a name that would end up in a path
(the tag, every asset name) must be one safe file name, or the whole release is refused.
"""

from __future__ import annotations

import http.client
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from atlas_core import __version__
from atlas_core.distribution.names import check_name, shown
from atlas_core.distribution.source import DEFAULT_API_URL
from atlas_core.errors import AtlasError, DistributionError, NetworkError

USER_AGENT = f"atlas-docs/{__version__}"
TIMEOUT = 30.0
SCHEMES = ("http", "https")
# Headers that carry credentials; none of them may follow a redirect to another origin.
CREDENTIAL_HEADERS = ("authorization", "cookie", "proxy-authorization")
MALFORMED_HINT = (
    "the release is malformed or hostile; nothing was downloaded — ask its publisher to fix it, "
    "or pick another --tag"
)


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


def origin(url: str) -> tuple[str, str, int | None] | None:
    """(scheme, host, port) of `url`, the unit a credential belongs to; None when unparsable."""
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    except ValueError:
        return None
    return parts.scheme.lower(), (parts.hostname or "").lower(), port


def url_problem(url: str) -> str | None:
    """Why Atlas will not fetch `url` (it comes from a release answer or a redirect), or None."""
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - parsing the port is what raises on a bad one
    except ValueError as exc:
        return f"is not a valid URL ({exc})"
    if parts.scheme.lower() not in SCHEMES:
        return "is not an http(s) URL"
    if not parts.hostname:
        return "names no host"
    if any(ord(c) <= 32 or ord(c) == 127 for c in url):
        return "contains spaces or control characters"
    return None


class _CredentialsStayHome(urllib.request.HTTPRedirectHandler):
    """Follow redirects, but never carry credentials to another origin or off http(s)."""

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: Any,
        code: int,
        msg: str,
        headers: Any,
        newurl: str,
    ) -> urllib.request.Request | None:
        problem = url_problem(newurl)
        if problem:
            raise DistributionError(
                f"{urllib.parse.urlsplit(req.full_url).netloc} redirected to {shown(newurl)}, "
                f"which {problem}",
                hint=MALFORMED_HINT,
            )
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and origin(newurl) != origin(req.full_url):
            for key in [k for k in new.headers if k.lower() in CREDENTIAL_HEADERS]:
                del new.headers[key]
        return new


class GitHub:
    def __init__(self, api_url: str = DEFAULT_API_URL, token: str | None = None) -> None:
        self.api_url = api_url.rstrip("/")
        self.token = token
        self._api_origin = origin(self.api_url)
        self._opener = urllib.request.build_opener(_CredentialsStayHome())

    def headers(self, url: str, accept: str = "application/vnd.github+json") -> dict[str, str]:
        headers = {"Accept": accept, "User-Agent": USER_AGENT, "X-GitHub-Api-Version": "2022-11-28"}
        if self.token and origin(url) == self._api_origin:
            headers["Authorization"] = f"Bearer {self.token}"
        return headers

    def open(
        self,
        url: str,
        headers: dict[str, str],
        *,
        timeout: float,
        data: bytes | None = None,
        method: str | None = None,
    ) -> Any:
        """urlopen for every request Atlas makes: http(s) only, credentials kept on their host."""
        problem = url_problem(url)
        if problem:
            raise DistributionError(f"{shown(url)} {problem}", hint=MALFORMED_HINT)
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            return self._opener.open(request, timeout=timeout)
        except ValueError as exc:  # urllib parses a redirect's Location before any handler sees it
            raise DistributionError(
                f"{urllib.parse.urlsplit(url).netloc} answered with a malformed URL ({exc})",
                hint=MALFORMED_HINT,
            ) from exc

    def release(self, repo: str, tag: str | None = None) -> Release:
        check_repo(repo)
        if tag:
            path = f"/repos/{repo}/releases/tags/{urllib.parse.quote(tag, safe='')}"
        else:
            path = f"/repos/{repo}/releases/latest"
        try:
            data = self._json("GET", path)
        except _NotFound as exc:
            # GitHub answers 404 alike for a missing repository, a private one without a token and
            # one that has never published a release.
            what = f"no release tag {tag!r}" if tag else "no published release"
            raise DistributionError(
                f"release repository {repo} has {what} at {self.api_url} (404)",
                hint="omit --tag for the latest release"
                if tag
                else f"check the repository name ({REPO_HINT}); a private one needs GITHUB_TOKEN",
            ) from exc
        except _RateLimited as exc:
            raise DistributionError(
                f"release repository {repo}: {exc.message}", hint=exc.hint
            ) from exc
        return _release(data)

    def create_release(self, repo: str, tag: str, title: str, notes: str) -> Release:
        check_repo(repo)
        body = {"tag_name": tag, "name": title, "body": notes, "draft": False}
        return _release(self._json("POST", f"/repos/{repo}/releases", body))

    def upload_asset(self, release: Release, name: str, data: bytes, content_type: str) -> None:
        base = release.upload_url.split("{", 1)[0]
        if not base:
            raise DistributionError("the release has no upload URL", hint="check --api-url")
        url = f"{base}?name={urllib.parse.quote(name)}"
        headers = self.headers(url) | {"Content-Type": content_type}
        # The API names its upload host (uploads.github.com on github.com); it gets the token too,
        # but only over https unless it is the API's own origin.
        upload_origin = origin(url)
        secure = upload_origin is not None and upload_origin[0] == "https"
        if self.token and (secure or upload_origin == self._api_origin):
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
        try:
            with self.open(url, headers, timeout=TIMEOUT, data=data, method=method) as resp:
                return resp.read()
        except urllib.error.HTTPError as exc:
            raise http_error(exc, url) from exc
        except (urllib.error.URLError, http.client.HTTPException, OSError) as exc:
            raise unreachable(url, exc) from exc


class _NotFound(DistributionError):
    pass


class _RateLimited(DistributionError):
    pass


# Where the release repository is set, for hints.
REPO_HINT = "--repo, ATLAS_RELEASE_REPO or [release] repo in atlas.toml"


def unreachable(url: str, exc: BaseException) -> NetworkError:
    """The connection to `url` failed before any HTTP answer: DNS, refused, timeout or TLS."""
    reason = getattr(exc, "reason", None) or exc
    text = " ".join(str(reason).split()) or type(reason).__name__
    return NetworkError(
        f"cannot reach {urllib.parse.urlsplit(url).netloc}: {text}",
        hint="check your network connection (and --api-url or ATLAS_RELEASE_API); what is "
        "installed is unchanged",
    )


def http_error(exc: urllib.error.HTTPError, url: str) -> AtlasError:
    """One readable error for an HTTP failure, rate limits spelled out."""
    remaining = exc.headers.get("X-RateLimit-Remaining") if exc.headers else None
    if exc.code in (403, 429) and (remaining == "0" or exc.headers.get("Retry-After")):
        reset = exc.headers.get("X-RateLimit-Reset")
        when = ""
        if reset and reset.isdigit():
            at = datetime.fromtimestamp(int(reset), UTC)
            minutes = max(0, round((int(reset) - time.time()) / 60))
            when = f"; it resets at {at:%H:%M} UTC (in about {minutes} min)"
        elif (retry := exc.headers.get("Retry-After", "")).isdigit():
            when = f"; retry after {retry} s"
        return _RateLimited(
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
    reason = " ".join(str(exc.reason).split())  # urllib's loop message spans lines
    if 300 <= exc.code < 400:
        return DistributionError(
            f"{url} answered HTTP {exc.code} and the redirect was not followed: {reason}",
            hint=MALFORMED_HINT,
        )
    if exc.code >= 500:
        return NetworkError(f"{url} answered HTTP {exc.code} {reason}", hint="try again later")
    return DistributionError(f"{url} answered HTTP {exc.code} {reason}", hint="try again later")


def check_repo(repo: str, origin: str = "--repo") -> None:
    """Refuse a release repository that is not OWNER/NAME; `origin` says where it was set."""
    parts = repo.split("/")
    if len(parts) != 2 or not all(parts) or any(c in repo for c in " ?#"):
        raise DistributionError(
            f"release repository {repo!r} (from {origin}) is not OWNER/NAME",
            hint="e.g. acme/docs; set it with " + REPO_HINT,
        )


def _release(data: Any) -> Release:
    if not isinstance(data, dict) or "tag_name" not in data:
        raise DistributionError("the release answer lacks tag_name", hint="check --api-url")
    tag = check_name(data["tag_name"], "the release tag", hint=MALFORMED_HINT)
    assets = data.get("assets")
    if assets is None:
        assets = []
    if not isinstance(assets, list):
        raise DistributionError(
            f"release {tag}: 'assets' is a JSON {type(assets).__name__}, not a list",
            hint=MALFORMED_HINT,
        )
    return Release(
        tag=tag,
        name=_text(data.get("name")) or tag,
        assets=tuple(_asset(tag, i, a) for i, a in enumerate(assets)),
        upload_url=_text(data.get("upload_url")),
        html_url=_text(data.get("html_url")),
    )


def _asset(tag: str, index: int, data: Any) -> Asset:
    where = f"release {tag}: assets[{index}]"
    if not isinstance(data, dict):
        raise DistributionError(
            f"{where} is a JSON {type(data).__name__}, not an object", hint=MALFORMED_HINT
        )
    # Every asset name is checked, not only the one picked: GitHub never serves a name with a
    # separator or a leading dot, so a release that has one is not a GitHub release.
    name = check_name(data.get("name"), f"{where}: the asset name", hint=MALFORMED_HINT)
    size = data.get("size")
    if size is None:
        size = 0  # unknown: the download is capped at the archive limit instead
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise DistributionError(
            f"{where} ({name}): size {shown(size)} is not a byte count", hint=MALFORMED_HINT
        )
    return Asset(
        name=name,
        url=_text(data.get("browser_download_url")),
        api_url=_text(data.get("url")),
        size=size,
    )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
