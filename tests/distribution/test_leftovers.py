"""Unpack folders of killed installs (issue 27): an install killed between unpacking and its
cleanup left `releases/.incoming-<pid>/` behind for good (26 kills left 18 folders, 290 MB). The
next install removes them, and never the folder of an install that is running: that one holds the
install lock, so the next install is refused before it looks."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from atlas_core.distribution.install import RELEASES, current_target


def _atlas(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "atlas_ls.cli", *args], capture_output=True, text=True, timeout=120
    )


def _killed_install_left(root: Path, name: str) -> Path:
    """What a SIGKILL between unpacking and cleanup leaves: a half-filled unpack folder."""
    folder = root / name
    (folder / "bundle" / "mirror").mkdir(parents=True)
    (folder / "bundle" / "vectors.npy").write_bytes(b"\0" * 4096)
    return folder


def test_the_next_install_removes_what_killed_installs_left(
    bundles: dict[str, Path], tmp_path: Path
) -> None:
    root = tmp_path / "data"
    assert _atlas("install", str(bundles["v1"]), "--output", str(root)).returncode == 0
    # Process ids that are not running, and one that is (ours): a reused id proves nothing.
    stale = [
        _killed_install_left(root, f"{RELEASES}/.incoming-{pid}")
        for pid in (999_999_991, 999_999_992, os.getpid())
    ]
    stale.append(_killed_install_left(root, f".restore-{999_999_993}"))
    releases_before = {p.name for p in (root / RELEASES).iterdir() if not p.name.startswith(".")}

    done = _atlas("install", str(bundles["v2"]), "--output", str(root))
    assert done.returncode == 0, done.stderr
    assert [p for p in stale if p.exists()] == []
    assert not [p for p in (root / RELEASES).iterdir() if p.name.startswith(".")]
    # Only the leftovers went: the release installed before is still there beside the new one.
    releases_after = {p.name for p in (root / RELEASES).iterdir()}
    assert releases_before < releases_after
    target = current_target(root)
    assert target is not None and "Assets v2" in (target / "mirror/guide/assets.md").read_text()


# An install under way: it holds the lock and has unpacked part of a bundle, and waits.
_RUNNING_INSTALL = textwrap.dedent(
    """
    import os, sys
    from pathlib import Path
    from atlas_core.distribution.install import RELEASES, install_lock
    root = Path(sys.argv[1])
    with install_lock(root):
        folder = root / RELEASES / f".incoming-{os.getpid()}"
        folder.mkdir(parents=True)
        (folder / "manifest.json").write_text("{}")
        print(folder, flush=True)
        sys.stdin.read()
    """
)


def test_a_running_install_keeps_its_folder_and_a_killed_one_loses_it(
    bundles: dict[str, Path], tmp_path: Path
) -> None:
    root = tmp_path / "data"
    running = subprocess.Popen(
        [sys.executable, "-c", _RUNNING_INSTALL, str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert running.stdout is not None
        folder = Path(running.stdout.readline().strip())  # returns once the folder is there
        refused = _atlas("install", str(bundles["v1"]), "--output", str(root))
        assert refused.returncode == 2
        assert "another install" in refused.stderr and "Traceback" not in refused.stderr
        assert (folder / "manifest.json").is_file()

        running.send_signal(signal.SIGKILL)  # no cleanup runs: the folder stays behind
        running.wait(timeout=60)
        assert folder.is_dir()
        done = _atlas("install", str(bundles["v1"]), "--output", str(root))
        assert done.returncode == 0, done.stderr
        assert not folder.exists()
    finally:
        if running.poll() is None:
            running.kill()
            running.wait()
