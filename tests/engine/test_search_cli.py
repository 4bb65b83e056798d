"""`atlas search`, `atlas lookup`, `atlas symbols` as subprocesses, and how the bundle is found."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from atlas_core.config import installed_bundle_dir, load_settings
from atlas_core.errors import BundleError, ConfigError
from atlas_core.serving.locator import resolve_bundle_paths
from tests.search_fixtures import build_search_bundle

ROOT = Path(__file__).resolve().parents[2]
HIT_KEYS = {
    "rank",
    "score",
    "file",
    "publication",
    "title",
    "heading",
    "chunk_id",
    "url",
    "snippet",
    "line_start",
    "line_end",
}
CANDIDATE_KEYS = {"name", "kind", "file", "line", "url", "confidence", "summary"}


def atlas(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "atlas_ls.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


def test_search_json_shape(tiny: Path) -> None:
    out = atlas(
        "search", "how", "do", "I", "create", "a", "domain", "--bundle", str(tiny), "--json"
    )
    assert out.returncode == 0, out.stderr
    hits = json.loads(out.stdout)
    assert 1 <= len(hits) <= 10
    assert set(hits[0]) >= HIT_KEYS
    assert hits[0]["heading"] == "Domains API > Create a domain"
    assert [h["rank"] for h in hits] == list(range(1, len(hits) + 1))
    assert "bundle" not in hits[0]


def test_search_modes_and_options(tiny: Path) -> None:
    for mode in ("keyword", "vector", "hybrid"):
        out = atlas(
            "search",
            "token",
            "--bundle",
            str(tiny),
            "--mode",
            mode,
            "--top-k",
            "2",
            "--publication",
            "guides",
            "--json",
        )
        hits = json.loads(out.stdout)
        assert 1 <= len(hits) <= 2 and {h["publication"] for h in hits} == {"guides"}, mode
    code = json.loads(atlas("search", "session", "--bundle", str(tiny), "--code", "--json").stdout)
    assert code and all(h["is_code"] for h in code)


def test_search_human_output(tiny: Path) -> None:
    out = atlas("search", "findWidgets", "--bundle", str(tiny), "--top-k", "2")
    assert out.returncode == 0
    lines = out.stdout.splitlines()
    assert lines[0].startswith(" 1. Widgets API > Find widgets")
    assert "rest-core/widgets-api.md:" in lines[1] and "https://docs.acme.invalid/" in lines[1]
    assert len(lines) == 6


def test_lookup_and_symbols_json(tiny: Path) -> None:
    out = atlas("lookup", "GET /rest/2.0/widgets/{widgetId}", "--bundle", str(tiny), "--json")
    candidates = json.loads(out.stdout)
    assert set(candidates[0]) >= CANDIDATE_KEYS
    assert candidates[0]["file"] == "rest-core/widgets-api.md"
    assert candidates == sorted(candidates, key=lambda c: -c["confidence"])
    human = atlas("lookup", "/widgets/{widgetId}", "--bundle", str(tiny))
    assert human.returncode == 0 and "GET /widgets/{widgetId}" in human.stdout

    out = atlas("symbols", "widg", "--bundle", str(tiny), "--limit", "3", "--json")
    symbols = json.loads(out.stdout)
    assert 1 <= len(symbols) <= 3
    assert {"name", "kind", "file", "line", "url", "score"} <= set(symbols[0])
    assert atlas("symbols", "widg", "--bundle", str(tiny)).stdout.strip()


def test_several_bundles(tiny: Path, tmp_path: Path) -> None:
    team = build_search_bundle(tmp_path / "team", name="team")
    out = atlas("search", "bearer", "--bundle", str(tiny), "--bundle", str(team), "--json")
    assert {h["bundle"] for h in json.loads(out.stdout)} == {"tiny", "team"}
    joined = os.pathsep.join([str(tiny), str(team)])
    out = atlas("lookup", "findWidgets", "--json", env={"ATLAS_BUNDLE": joined})
    assert {c["bundle"] for c in json.loads(out.stdout)} >= {"tiny", "team"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["search", "   "], "empty query"),
        (["search", "x", "--top-k", "0"], "top_k must be at least 1"),
        (["lookup", ""], "empty identifier"),
        (["symbols", "x", "--limit", "-3"], "limit must be at least 1"),
    ],
)
def test_bad_input_is_one_clear_line(tiny: Path, args: list[str], message: str) -> None:
    out = atlas(*args, "--bundle", str(tiny))
    assert out.returncode == 2
    assert out.stderr.startswith(f"atlas: error: {message}")
    assert "Traceback" not in out.stderr


def test_unknown_mode_and_missing_bundle(tiny: Path, tmp_path: Path) -> None:
    out = atlas("search", "x", "--bundle", str(tiny), "--mode", "fuzzy")
    assert out.returncode == 2 and "invalid choice" in out.stderr
    out = atlas("search", "x", "--bundle", str(tmp_path / "nothing"))
    assert out.returncode == 2 and out.stderr.startswith("atlas: error:") and "hint:" in out.stderr


def test_huge_and_odd_queries_do_not_crash(tiny: Path) -> None:
    out = atlas("search", "widget " * 15_000, "--bundle", str(tiny), "--json", "--top-k", "1000000")
    assert out.returncode == 0 and 1 <= len(json.loads(out.stdout)) <= 100
    out = atlas("search", "(?P<x>[a-z]+\\", "--bundle", str(tiny), "--json")
    assert out.returncode == 0 and isinstance(json.loads(out.stdout), list)


def test_locator_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    assert resolve_bundle_paths([str(a), str(b)]) == [a, b]
    assert resolve_bundle_paths([os.pathsep.join([str(a), str(b)])]) == [a, b]
    monkeypatch.setenv("ATLAS_BUNDLE", os.pathsep.join([str(b), str(a)]))
    assert resolve_bundle_paths(None, load_settings()) == [b, a]
    monkeypatch.delenv("ATLAS_BUNDLE")

    config = Path(os.environ["ATLAS_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[bundle]\npath = "{a.as_posix()}"\n')
    try:
        assert resolve_bundle_paths(None, load_settings()) == [a]
        config.write_text("[bundle]\npath = 3\n")
        with pytest.raises(ConfigError, match=r"\[bundle\] path"):
            load_settings()
    finally:
        config.unlink()

    monkeypatch.setenv("ATLAS_DATA_DIR", str(tmp_path / "data"))
    installed = installed_bundle_dir()
    with pytest.raises(BundleError, match="none installed"):
        resolve_bundle_paths(None, load_settings(), allow_demo=False)
    build_search_bundle(installed)
    assert resolve_bundle_paths(None, load_settings()) == [installed]
