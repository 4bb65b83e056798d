"""`atlas doctor` and `atlas smoke` as a user runs them: subprocesses, healthy and broken setups."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from atlas_core.console import installation


def _atlas(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "atlas_ls.cli", *args],
        capture_output=True, text=True, timeout=300, env={**os.environ, **(env or {})},
    )  # fmt: skip


def _by_name(report: dict) -> dict[str, dict]:  # type: ignore[type-arg]
    return {check["name"]: check for check in report["checks"]}


def test_doctor_json_reports_backends_bundle_and_tools(hash_bundle: Path) -> None:
    result = _atlas(
        "doctor", "--bundle", str(hash_bundle), "--json", "--refresh",
        env={"ATLAS_RELEASE_REPO": "acme/docs"},
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    checks = _by_name(report)
    assert "acme/docs (ATLAS_RELEASE_REPO)" in checks["release source"]["detail"]
    assert report["ok"] is True and report["packages"]["numpy"]
    assert checks["backend onnx-cpu"]["status"] == "OK"
    assert checks["backend onnx-cuda"]["status"] in ("OK", "MISS")
    # Fixes are commands for the way this Atlas was installed (a uv project here: `uv sync`).
    install = installation()
    assert checks["install"]["detail"].startswith(install.kind)
    if checks["backend onnx-cuda"]["status"] == "MISS":
        assert checks["backend onnx-cuda"]["fix"].startswith(install.add_extra("gpu"))
    assert not [name for name in checks if name.startswith("demo ")]  # a real bundle
    assert checks["selected backend"]["detail"].startswith(("onnx-cpu", "onnx-cuda", "mlx"))
    assert checks[f"bundle {hash_bundle}"]["status"] == "OK"
    assert checks["ripgrep"]["status"] == "OK"
    assert "rest_path" in checks["recognizers"]["detail"]


def test_doctor_survives_broken_bundle_and_config(hash_bundle: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(hash_bundle, broken)
    vectors = broken / "vectors.npy"
    data = bytearray(vectors.read_bytes())
    data[-1] ^= 0xFF
    vectors.write_bytes(bytes(data))
    config = tmp_path / "atlas.toml"
    config.write_text("[backend\nprefer = ")
    result = _atlas("doctor", "--bundle", str(broken), "--full", env={"ATLAS_CONFIG": str(config)})
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert f"FAIL sha256 {broken}: vectors.npy" in result.stdout
    assert "FAIL config" in result.stdout and "not valid TOML" in result.stdout

    (broken / "manifest.json").unlink()
    missing = _atlas("doctor", "--bundle", str(broken))
    assert missing.returncode == 1 and f"FAIL bundle {broken}" in missing.stdout


def test_doctor_says_when_the_demo_is_what_is_served(demo_bundle: Path, tmp_path: Path) -> None:
    demo = _atlas("doctor", "--bundle", str(demo_bundle))
    assert demo.returncode == 0, demo.stdout + demo.stderr
    assert (
        f"WARN demo {demo_bundle}: this is the embedded demo docs: sample pages written for "
        "Atlas, not Collibra's documentation\n     fix: run `atlas download`" in demo.stdout
    )
    # Nothing configured (the tests' isolated HOME): the servers would fall back to the demo.
    nothing = _atlas("doctor", env={"ATLAS_DATA_DIR": str(tmp_path / "data")})
    assert (
        "WARN bundle: no bundle given and none installed; the servers and `atlas search` "
        "serve the embedded demo docs" in nothing.stdout
    ), nothing.stdout


def test_smoke_passes_every_step_on_a_good_bundle(hash_bundle: Path) -> None:
    result = _atlas("smoke", "--bundle", str(hash_bundle))
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"atlas smoke: testing bundle fixture at {hash_bundle}"
    assert lines[-1] == f"8 passed, 0 failed on bundle fixture at {hash_bundle}"
    assert "demo" not in result.stdout
    for step in ("open bundle", "search keyword", "search vector", "search hybrid", "lookup",
                 "symbols", "language server", "mcp server"):  # fmt: skip
        assert f"PASS {step}" in result.stdout
    assert "8 passed, 0 failed" in result.stdout


def test_smoke_names_the_demo_as_the_demo(demo_bundle: Path, hash_bundle: Path) -> None:
    """What `atlas smoke` prints first and last (checked through the command on a real bundle
    above; a whole smoke run on the demo would start both servers again)."""
    from atlas_ls.cli.commands.smoke import _describe

    assert _describe([demo_bundle]) == (
        f"bundle atlas-demo at {demo_bundle} (the embedded demo docs: sample pages written for "
        "Atlas, not Collibra's documentation; run `atlas download` for the Collibra docs, or "
        "point ATLAS_BUNDLE at a bundle)"
    )
    assert _describe([hash_bundle]) == f"bundle fixture at {hash_bundle}"


def test_smoke_fails_loudly_on_a_missing_bundle(tmp_path: Path) -> None:
    result = _atlas("smoke", "--bundle", str(tmp_path / "nothing"))
    assert result.returncode == 1
    assert "FAIL open bundle" in result.stdout and "Traceback" not in result.stdout
