"""Bundle files that are not what they claim (issue 27, item 5).

- A JSON file of the bundle nested 200,000 levels deep, its SHA-256 and size re-hashed into the
  manifest (so hashes pass it): verify, info, search, diff, install and a server's open all ended
  in a RecursionError traceback. Now each names the file in one line.
- `manifest.json` or `ranking.json` replaced by a FIFO or a link to `/dev/zero`: verify, info,
  search and diff hung or read until memory ran out. Now each refuses the file at once.
- Hot reload onto such a bundle keeps serving the bundle it had.

The CLI runs as a subprocess; its timeout is a safety net against a hang, not what is asserted.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from atlas_core.build import build_bundle
from atlas_core.bundle import verify_bundle
from atlas_core.distribution.install import flip_current
from atlas_core.distribution.local import install_path
from atlas_core.engine import WARM_MODES, Engine
from atlas_core.errors import BundleError, DistributionError
from atlas_core.safeio.bounded_read import MAX_JSON_DEPTH
from atlas_core.serving.holder import EngineHolder
from atlas_core.serving.reloader import BundleReloader, ReloadEvent
from tests.engine.test_ranking import _corpus
from tests.reload_support import build_release, reseal

JSON_FILES = [
    "manifest.json",
    "ranking.json",
    "mentions/meta.json",
    "identifiers/meta.json",
    "identifiers/deprecations.json",
    "model/atlas_model.json",
]
DEEP = b"[" * 200_000 + b"]" * 200_000
TOO_DEEP = f"nested more than {MAX_JSON_DEPTH} levels deep"


@pytest.fixture(scope="module")
def ranked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bundle that holds every kind of JSON file a bundle has, ranking.json included."""
    root = tmp_path_factory.mktemp("ranked")
    build_bundle([f"local={_corpus(root)}"], root / "bundle", model="hash", progress=False)
    assert (root / "bundle" / "ranking.json").is_file()
    return root / "bundle"


def _deep(ranked: Path, tmp_path: Path, rel: str) -> Path:
    """A copy of `ranked` whose `rel` is nested 200,000 deep, re-hashed into the manifest."""
    bundle = Path(shutil.copytree(ranked, tmp_path / "deep"))
    (bundle / rel).write_bytes(DEEP)
    if rel != "manifest.json":
        reseal(bundle, rel)
    return bundle


def _atlas(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "atlas_ls.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,  # a safety net: a hang fails the test instead of the run
    )


def _refused_in_one_line(run: subprocess.CompletedProcess[str], rel: str, code: int = 2) -> None:
    out = run.stdout + run.stderr
    assert "Traceback" not in out and "RecursionError" not in out, out[-2000:]
    assert run.returncode == code, out[-2000:]
    if code == 0:  # diff compares pages only, with a note naming the file it could not read
        assert rel in run.stdout and TOO_DEEP in run.stdout, out
    elif code == 2:  # one line naming the file, then the hint
        lines = run.stderr.strip().splitlines()
        assert len(lines) <= 2 and rel in lines[0], lines
        assert lines[-1].lstrip().startswith("hint:"), lines
    else:  # verify: one line per problem, each starting with the file it is about
        assert any(line.startswith(f"{rel}: ") for line in run.stdout.splitlines()), out


@pytest.mark.parametrize("rel", JSON_FILES)
def test_a_json_file_nested_too_deep_is_refused_by_name_everywhere(
    ranked: Path, tmp_path: Path, rel: str
) -> None:
    bundle = _deep(ranked, tmp_path, rel)
    assert any(line.startswith(f"{rel}: ") and TOO_DEEP in line for line in verify_bundle(bundle))

    # A server opens without verify: it refuses the bundle or the request by the file's name,
    # or answers (a ranking it cannot read is replaced by the untrained fusion).
    try:
        with Engine.open(bundle) as engine:
            engine.warm_up(WARM_MODES)
            assert engine.search("create a widget record", top_k=3)
            assert rel == "ranking.json", f"{rel} nested too deep was served"
            assert engine.info().extra["ranking"].startswith("untrained fusion: ")
    except BundleError as exc:
        assert rel in exc.one_line() and TOO_DEEP in exc.one_line(), exc.one_line()

    with pytest.raises(DistributionError, match=rel.replace(".", r"\.")):
        install_path(bundle, tmp_path / "data")


@pytest.mark.parametrize(
    ("rel", "command", "code"),
    [
        ("manifest.json", "verify", 1),
        ("manifest.json", "info", 2),
        ("manifest.json", "search", 2),
        ("manifest.json", "diff", 2),
        ("manifest.json", "install", 2),
        ("ranking.json", "verify", 1),
        ("mentions/meta.json", "verify", 1),
        ("identifiers/deprecations.json", "diff", 0),
        ("identifiers/meta.json", "install", 2),
        ("model/atlas_model.json", "info", 2),
    ],
)
def test_the_cli_names_a_json_file_nested_too_deep_in_one_line(
    ranked: Path, tmp_path: Path, rel: str, command: str, code: int
) -> None:
    bundle = _deep(ranked, tmp_path, rel)
    args: dict[str, list[str | Path]] = {
        "verify": ["verify", bundle],
        "info": ["info", bundle],
        "search": ["search", "--bundle", bundle, "create a widget record"],
        "diff": ["diff", ranked, bundle],
        "install": ["install", bundle, "--output", tmp_path / "data"],
    }
    _refused_in_one_line(_atlas(*args[command]), rel, code)


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


@pytest.mark.parametrize("rel", ["manifest.json", "ranking.json"])
@pytest.mark.parametrize("plant", [_fifo, _dev_zero], ids=["fifo", "dev-zero"])
def test_a_fifo_or_a_device_in_place_of_a_file_is_refused_at_once(
    ranked: Path, tmp_path: Path, rel: str, plant: Callable[[Path], None]
) -> None:
    bundle = Path(shutil.copytree(ranked, tmp_path / "bundle"))
    (bundle / rel).unlink()
    plant(bundle / rel)
    commands: list[list[str | Path]] = [
        ["verify", bundle],
        ["info", bundle],
        ["search", "--bundle", bundle, "create a widget record"],
        ["diff", ranked, bundle],
    ]
    # Side by side: each would hang or fill memory on its own before the fix.
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "atlas_ls.cli", *map(str, args)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for args in commands
    ]
    try:
        results = [
            (args, *proc.communicate(timeout=120), proc.returncode)
            for args, proc in zip(commands, procs, strict=True)
        ]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    for args, out, err, code in results:
        run = subprocess.CompletedProcess(args, code, out, err)
        if args[0] == "diff" and rel == "ranking.json":
            # diff compares manifests and identifier tables; it never opens the ranking file.
            assert code == 0 and "Traceback" not in out + err, out + err
        else:
            _refused_in_one_line(run, rel, 1 if args[0] == "verify" else 2)


@pytest.mark.parametrize("rel", ["manifest.json", "identifiers/deprecations.json"])
def test_hot_reload_keeps_the_bundle_it_serves(tmp_path: Path, rel: str) -> None:
    root = tmp_path / "install"
    v1, v2 = build_release(root, "v1"), build_release(root, "v2")
    flip_current(root, v1)
    current = root / "current"
    holder: EngineHolder[Engine] = EngineHolder(Engine.open(current))
    events: list[ReloadEvent] = []
    reloader = BundleReloader(
        holder, [current], Engine.open, on_event=events.append, verify=False, warm_up=WARM_MODES
    )
    (v2 / rel).write_bytes(DEEP)
    if rel != "manifest.json":
        reseal(v2, rel)
    flip_current(root, v2)
    event = reloader.check()
    assert event is not None and event.kind == "failed", events
    assert rel in event.message and "keeps serving" in event.message, event.message
    assert holder.generation == 1
    engine = holder.engine
    assert engine is not None
    assert "v1" in engine.search("release details", mode="keyword")[0].title
    reloader.stop()
    engine.close()
