"""Class `release`: hostile GitHub release answers and transfers against `download_release()`.

Two release servers run on 127.0.0.1 (`tests/release_server.py`): the API host, and a "storage"
host on another port standing in for GitHub's asset storage. Each case composes a release answer
edited by a few mutations (asset names with `/`, `..`, NUL, unicode or thousands of characters;
sizes negative, text, huge or wrong; tags and URLs that are paths or other schemes; assets of the
wrong JSON shape), a checksum asset that is missing, wrong, empty or names another file, transfer
faults (a body longer than declared, a truncated or dropped one, redirects of the API call or the
assets to the storage host) and an archive that is the real bundle, a hostile one from the
`archive` class, or garbage. Half the cases start from an install that already has a bundle; a
few go through `atlas download` as a subprocess instead of the function. The token is always set.

Clean: a DistributionError (or, from the CLI, exit 2, or 3 for a network failure, with `atlas: error:` and a hint) that leaves
`current` where it was, or an install whose `current` points at the new release. Failure: any
other exception or a traceback, anything written outside `--output`, `current` changed by a
refused release, the token seen by the storage host or printed, or a hang.
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchmarks.fuzzing import archive
from benchmarks.fuzzing.core import (
    Verdict,
    case_rng,
    clip,
    describe,
    has_traceback,
    one_line_error,
    tree,
)

CLASS = "release"
DEFAULT_CASES = 200
TIMEOUT_S = 90.0
REPO = "acme/docs"
TOKEN = "ghp-fuzz-secret-token-31415926"
NEW = "atlas-bundle-v2.tar.zst"
MiB = 1024**2

NAMES: list[Any] = [
    f"../../x/{NEW}",
    f"/tmp/{NEW}",
    f"a/b/{NEW}",
    f"..\\{NEW}",
    f"a\x00{NEW}",
    f"a\n{NEW}",
    f"\ud800{NEW}",
    f".{NEW}",
    "..",
    "",
    "atlas-b\u00fcndle-\u2603-v2.tar.zst",
    "n" * 300 + ".tar.zst",
    "n" * 5000 + ".tar.zst",
    None,
    5,
    [NEW],
]
SIZES: list[Any] = [-1, "1000", 10**30, 1.5, True, None, [1], 0, "half", "plus"]
TAGS: list[Any] = ["../../x", "a/b", "..", ".v2", "v" * 300, "", None, 2, "v2\x00", "v\u00e9"]
URLS = [
    "file:///etc/passwd",
    "ftp://127.0.0.1/x",
    "http://[oops/x",
    "http://127.0.0.1:99999/x",
    "http:///x",
    "http://127.0.0.1:9/closed",
    "http://127.0.0.1:1/a\r\nX: y",
    "STORAGE",
]
SHAPES = [
    "answer-list",
    "answer-null",
    "assets-object",
    "assets-string",
    "asset-null",
    "duplicate-asset",
    "many-assets",
]
CHECKSUMS = [
    "good",
    "good",
    "good",
    "good",
    "good",
    "missing",
    "wrong",
    "empty",
    "other-name",
    "garbage",
    "upper",
    "sums-file",
]
TRANSFERS = [
    "overflow",
    "overflow-length",
    "truncate",
    "drop",
    "drop",
    "redirect-assets",
    "redirect-assets",
    "redirect-api",
    "redirect-loop",
    "rate-limit",
]


def recipe(seed: int, index: int) -> dict[str, Any]:
    rng = case_rng(seed, CLASS, index)
    mutations: list[dict[str, Any]] = []
    for _ in range(rng.choice([0, 0, 1, 2])):
        what = rng.choice(["name", "name", "size", "tag", "url", "shape", "checksum-name"])
        value = {
            "name": NAMES,
            "checksum-name": NAMES,
            "size": SIZES,
            "tag": TAGS,
            "url": URLS,
            "shape": SHAPES,
        }[what]
        mutations.append({"what": what, "value": rng.choice(value)})
    transfers = [rng.choice(TRANSFERS) for _ in range(rng.choice([0, 0, 1, 2]))]
    payload = rng.choice(["bundle", "bundle", "bundle", "hostile", "garbage"])
    spec = {
        "installed": rng.random() < 0.5,
        "payload": payload,
        "hostile": archive.recipe(seed, 10_000 + index) if payload == "hostile" else None,
        "checksum": rng.choice(CHECKSUMS),
        "mutations": mutations,
        "transfers": transfers,
        "via_cli": index % 8 == 7,
        "seed": rng.random(),
    }
    parts = [f"{m['what']}={clip(repr(m['value']), 40)}" for m in mutations]
    parts += [*transfers, f"checksum {spec['checksum']}", f"{payload} archive"]
    spec["label"] = ("cli: " if spec["via_cli"] else "") + ", ".join(parts)
    return spec


# --- the case runner ----------------------------------------------------------------------------


def _assets(name: str, data: bytes, checksum: str, rng: random.Random) -> dict[str, bytes]:
    digest = hashlib.sha256(data).hexdigest()
    line = {
        "good": f"{digest}  {name}\n",
        "wrong": f"{'0' * 64}  {name}\n",
        "empty": "",
        "other-name": f"{digest}  other-{name}\n",
        "garbage": rng.randbytes(200).decode("latin-1"),
        "upper": f"{digest.upper()} *{name}\n",
        "sums-file": f"{digest}  {name}\n",
    }.get(checksum)
    assets = {name: data}
    if line is not None:
        key = "SHA256SUMS" if checksum == "sums-file" else f"{name}.sha256"
        assets[key] = line.encode("latin-1")
    return assets


def _mutate(mutations: list[dict[str, Any]], storage_url: str, size: int) -> Any:
    def edit(release: Any) -> Any:
        for m in mutations:
            what, value = m["what"], m["value"]
            assets = release.get("assets") if isinstance(release, dict) else None
            first = (
                assets[0]
                if isinstance(assets, list) and assets and isinstance(assets[0], dict)
                else None
            )
            if what == "name" and first is not None:
                first["name"] = value
            elif what == "checksum-name" and isinstance(assets, list) and len(assets) > 1:
                assets[1]["name"] = value
            elif what == "size" and first is not None:
                first["size"] = (
                    {"half": size // 2, "plus": size + 1000}.get(value, value)
                    if isinstance(value, str)
                    else value
                )
            elif what == "tag" and isinstance(release, dict):
                release["tag_name"] = value
            elif what == "url" and first is not None:
                stored = f"{storage_url}/download/v2/{NEW}"
                first["browser_download_url"] = stored if value == "STORAGE" else value
            elif what == "shape":
                release = _reshape(release, value)
        return release

    return edit


def _reshape(release: Any, how: str) -> Any:
    if how == "answer-list":
        return [1, 2]
    if how == "answer-null":
        return None
    if not isinstance(release, dict):
        return release
    assets = release.get("assets")
    if how == "assets-object":
        release["assets"] = {"a": assets}
    elif how == "assets-string":
        release["assets"] = NEW
    elif how == "asset-null" and isinstance(assets, list) and assets:
        assets[0] = None
    elif how == "duplicate-asset" and isinstance(assets, list) and assets:
        assets.append(dict(assets[0]) if isinstance(assets[0], dict) else assets[0])
    elif how == "many-assets" and isinstance(assets, list):
        assets.extend(
            {"name": f"junk-{i}.txt", "size": 1, "browser_download_url": "http://x/"}
            for i in range(20_000)
        )
    return release


class Target:
    def __init__(self, setup: dict[str, Any]) -> None:
        from atlas_core.distribution.archive import pack
        from atlas_core.distribution.download import download_release
        from tests.release_server import ReleaseServer

        self.workdir = Path(setup["workdir"])
        self.server_class = ReleaseServer
        self.archive = pack(
            Path(setup["bundle"]), self.workdir / NEW, top="atlas-bundle"
        ).read_bytes()
        # An install with v1 in place, copied for the cases that start from one.
        self.template = self.workdir / "template"
        shutil.rmtree(self.template, ignore_errors=True)
        api = ReleaseServer().start()
        try:
            api.add_release(
                "v1", _assets("atlas-bundle-v1.tar.zst", self.archive, "good", random.Random(0))
            )
            download_release(
                REPO, output=self.template, api_url=api.api_url, token=None, progress=False
            )
        finally:
            api.stop()

    def run(self, spec: dict[str, Any]) -> Verdict:
        from atlas_core.distribution.install import current_target

        rng = random.Random(spec["seed"])
        case = self.workdir / "case"
        shutil.rmtree(case, ignore_errors=True)
        outside = case / "outside"
        outside.mkdir(parents=True)
        install = case / "install"
        if spec["installed"]:
            shutil.copytree(self.template, install, symlinks=True)
        data = self._payload(spec, case, outside, rng)
        api, storage = self.server_class().start(), self.server_class().start()
        try:
            self._script(spec, api, storage, data, rng)
            before, current = tree(case, skip=install), current_target(install)
            verdict = self._cli(spec, api, install) if spec["via_cli"] else self._call(api, install)
            if verdict.outcome != "failure":
                verdict = self._check_install(verdict, install, current)
            if written := tree(case, skip=install) - before:
                verdict = Verdict.failure(f"wrote outside --output: {sorted(written)[:3]}")
            if leaks := [
                path
                for path, headers in storage.seen
                if TOKEN in str(headers) or TOKEN in path or "Authorization" in headers
            ]:
                verdict = Verdict.failure(f"the storage host was sent the token ({leaks[0][:80]})")
        finally:
            api.stop()
            storage.stop()
        shutil.rmtree(case, ignore_errors=True)
        return verdict

    def _payload(
        self, spec: dict[str, Any], case: Path, outside: Path, rng: random.Random
    ) -> bytes:
        if spec["payload"] == "hostile":
            path = case / "hostile.tar.zst"
            archive.write_archive(spec["hostile"], path, outside)
            data = path.read_bytes()
            path.unlink()
            return data
        if spec["payload"] == "garbage":
            return rng.randbytes(rng.randrange(0, 50_000))
        return self.archive

    def _script(
        self, spec: dict[str, Any], api: Any, storage: Any, data: bytes, rng: random.Random
    ) -> None:
        assets = _assets(NEW, data, spec["checksum"], rng)
        for server in (api, storage):
            server.add_release("v2", assets)
        storage_url = f"http://127.0.0.1:{storage.port}"
        api.mutate = _mutate(spec["mutations"], storage_url, len(data))
        storage.mutate = api.mutate
        for fault in spec["transfers"]:
            if fault.startswith("overflow"):
                api.overflow[NEW] = len(data) + rng.randrange(1, 30) * MiB
                api.overflow_length = fault == "overflow-length"
            elif fault == "truncate":
                api.truncate_to[NEW] = len(data) // 2
            elif fault == "drop":
                api.drop_after[NEW] = rng.randrange(0, max(1, len(data)))
            elif fault == "redirect-assets":
                for name in assets:
                    api.redirects[f"/download/v2/{name}"] = storage_url
            elif fault == "redirect-api":
                api.redirects[f"/api/repos/{REPO}/releases/latest"] = storage_url
            elif fault == "redirect-loop":
                api.redirects[f"/download/v2/{NEW}"] = storage_url
                storage.redirects[f"/download/v2/{NEW}"] = f"http://127.0.0.1:{api.port}"
            elif fault == "rate-limit":
                api.rate_limited = True

    def _call(self, api: Any, install: Path) -> Verdict:
        from atlas_core.distribution.download import download_release
        from atlas_core.errors import DistributionError

        try:
            download_release(REPO, output=install, api_url=api.api_url, token=TOKEN, progress=False)
        except DistributionError as exc:
            if TOKEN in exc.one_line():
                return Verdict.failure("the error message shows the token")
            why = one_line_error(exc)
            return Verdict.failure(f"refused with {why}") if why else Verdict.refused(exc.message)
        except Exception as exc:
            return Verdict.failure(describe(exc))
        return Verdict.accepted()

    def _cli(self, spec: dict[str, Any], api: Any, install: Path) -> Verdict:
        args = ["download", "--repo", REPO, "--output", str(install), "--api-url", api.api_url,
                "--no-progress"]  # fmt: skip
        env = {**os.environ, "GITHUB_TOKEN": TOKEN}
        done = subprocess.run(
            [sys.executable, "-m", "atlas_ls.cli", *args],
            capture_output=True, text=True, errors="replace", env=env, timeout=TIMEOUT_S - 10,
        )  # fmt: skip
        output = done.stdout + done.stderr
        if TOKEN in output:
            return Verdict.failure("the command printed the token")
        if has_traceback(output):
            return Verdict.failure(
                f"a traceback (exit {done.returncode}): {clip(done.stderr[-300:])}"
            )
        if done.returncode == 0:
            return Verdict.accepted()
        lines = done.stderr.strip().splitlines()
        if (
            done.returncode in (2, 3)  # bad input or refusal; a network failure
            and lines
            and lines[0].startswith("atlas: error: ")
            and len(lines) <= 2
        ):
            return Verdict.refused(lines[0])
        return Verdict.failure(f"exit {done.returncode}: {clip(done.stderr[-300:])}")

    def _check_install(self, verdict: Verdict, install: Path, before: Path | None) -> Verdict:
        from atlas_core.distribution.install import current_target

        after = current_target(install)
        if verdict.outcome == "refused":
            if after != before:
                return Verdict.failure(f"refused ({clip(verdict.detail, 100)}) but `current` moved")
            return verdict
        releases = (install / "releases").resolve()
        if after is None or after == before or not after.is_relative_to(releases):
            return Verdict.failure(f"installed, but `current` is {after}")
        return verdict
