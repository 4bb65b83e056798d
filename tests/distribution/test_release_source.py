"""The release repository as a setting (flag > env > atlas.toml > default), what a release
repository's refusals look like, and exit code 3 for network failures."""

from __future__ import annotations

import hashlib
import os
import socket
import subprocess
import sys
import threading
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from atlas_core.config import load_settings
from atlas_core.distribution import github
from atlas_core.distribution.download import download_release
from atlas_core.distribution.source import DEFAULT_RELEASE_REPO, release_source
from atlas_core.errors import AtlasError, ConfigError, DistributionError, NetworkError
from tests.release_server import ReleaseServer

ROOT = Path(__file__).resolve().parents[2]
REPO = "acme/docs"


def _install(api_url: str, root: Path) -> None:
    download_release(REPO, output=root, api_url=api_url, token=None, progress=False)


def test_the_default_is_the_repository_the_zed_extension_names() -> None:
    manifest = tomllib.loads((ROOT / "editors/zed/atlas-extension/extension.toml").read_text())
    assert manifest["repository"] == f"https://github.com/{DEFAULT_RELEASE_REPO}"


def test_flag_beats_env_beats_file_beats_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "atlas.toml"
    monkeypatch.setenv("ATLAS_CONFIG", str(config))
    monkeypatch.delenv("ATLAS_RELEASE_REPO", raising=False)
    monkeypatch.delenv("ATLAS_RELEASE_API", raising=False)
    source = release_source(load_settings())
    assert (source.repo, source.repo_from) == (DEFAULT_RELEASE_REPO, "default")
    assert (source.api_url, source.api_url_from) == (github.DEFAULT_API_URL, "default")

    config.write_text('[release]\nrepo = "file/docs"\napi_url = "http://127.0.0.1:1/api"\n')
    source = release_source(load_settings())
    assert (source.repo, source.repo_from) == ("file/docs", f"{config} [release] repo")
    assert source.api_url == "http://127.0.0.1:1/api"
    assert source.describe() == (
        f"file/docs ({config} [release] repo) at http://127.0.0.1:1/api "
        f"({config} [release] api_url)"
    )

    monkeypatch.setenv("ATLAS_RELEASE_REPO", "env/docs")
    monkeypatch.setenv("ATLAS_RELEASE_API", "http://127.0.0.1:2/api")
    source = release_source(load_settings())
    assert (source.repo, source.repo_from) == ("env/docs", "ATLAS_RELEASE_REPO")
    assert (source.api_url, source.api_url_from) == ("http://127.0.0.1:2/api", "ATLAS_RELEASE_API")

    flags = {"release_repo": "flag/docs", "release_api": "http://127.0.0.1:3/api"}
    source = release_source(load_settings(flags))
    assert (source.repo, source.repo_from, source.api_url_from) == (
        "flag/docs",
        "--repo",
        "--api-url",
    )

    monkeypatch.setenv("ATLAS_RELEASE_REPO", "no-owner")
    with pytest.raises(DistributionError, match=r"'no-owner' \(from ATLAS_RELEASE_REPO\)"):
        release_source(load_settings())
    monkeypatch.delenv("ATLAS_RELEASE_REPO")
    config.write_text("[release]\nrepo = 7\n")
    with pytest.raises(ConfigError, match=r"\[release\] repo must be a non-empty string"):
        load_settings()


def _assets(name: str, data: bytes) -> dict[str, bytes]:
    return {name: data, f"{name}.sha256": f"{hashlib.sha256(data).hexdigest()}  {name}\n".encode()}


@pytest.mark.parametrize(
    ("fault", "message", "hint"),
    [
        ("no_assets", f"release v1 of {REPO} has no bundle archive (.tar.zst); assets: none",
         "pick another --tag, or check the release repository"),
        ("rate_limit", f"release repository {REPO}: GitHub API rate limit reached; it resets at",
         "set GITHUB_TOKEN"),
        ("rate_limit_429", f"release repository {REPO}: GitHub API rate limit reached; retry "
         "after 60 s", "set GITHUB_TOKEN"),
        ("not_found", f"release repository {REPO} has no published release at ", "ATLAS_RELEASE_REPO"),
    ],
)  # fmt: skip
def test_a_release_repository_refusal_names_it_and_what_to_do(
    fault: str, message: str, hint: str, server: ReleaseServer, tmp_path: Path
) -> None:
    if fault == "no_assets":
        server.add_release("v1", {})
    elif fault.startswith("rate_limit"):
        server.add_release("v1", _assets("atlas-bundle-v1.tar.zst", b"unused"))
        server.rate_limited = True
        server.rate_limit_status = 429 if fault.endswith("429") else 403
    with pytest.raises(DistributionError) as info:
        _install(server.api_url, tmp_path / "install")
    assert info.value.message.startswith(message)
    assert info.value.hint and hint in info.value.hint
    assert "\n" not in info.value.one_line()
    assert info.value.exit_code == 2
    assert not (tmp_path / "install" / "current").exists()


def test_unreachable_host_exits_3(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "atlas_ls.cli", "download", "--output", str(tmp_path / "i")],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "ATLAS_RELEASE_API": "http://127.0.0.1:9/api"},
    )  # fmt: skip
    assert result.returncode == 3
    assert result.stderr.startswith("atlas: error: cannot reach 127.0.0.1:9")
    assert "hint:" in result.stderr and "Traceback" not in result.stderr


@pytest.fixture()
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never answers: a request to it can only time out."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        held: list[socket.socket] = []
        stop = threading.Event()

        def accept() -> None:
            listener.settimeout(0.1)
            while not stop.is_set():
                try:
                    held.append(listener.accept()[0])
                except TimeoutError:
                    continue

        thread = threading.Thread(target=accept, daemon=True)
        thread.start()
        yield listener.getsockname()[1]
        stop.set()
        thread.join(5)
        for conn in held:
            conn.close()


def test_timeout_tls_and_dns_failures_are_network_errors(
    server: ReleaseServer, silent_port: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(github, "TIMEOUT", 0.5)
    with pytest.raises(NetworkError, match=f"cannot reach 127.0.0.1:{silent_port}: .*timed out"):
        _install(f"http://127.0.0.1:{silent_port}/api", tmp_path / "a")

    # TLS spoken to a plain-HTTP server fails in the handshake.
    with pytest.raises(NetworkError, match=f"cannot reach 127.0.0.1:{server.port}: .*SSL"):
        _install(f"https://127.0.0.1:{server.port}/api", tmp_path / "b")

    # DNS: this machine may have no resolver to ask, so the lookup failure is raised here.
    def no_such_host(*_args: object, **_kwargs: object) -> None:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_such_host)
    with pytest.raises(NetworkError, match=r"cannot reach releases\.example: .*not known") as info:
        _install("http://releases.example/api", tmp_path / "c")
    assert isinstance(info.value, AtlasError) and info.value.exit_code == 3
    assert not list(tmp_path.glob("*/current"))
