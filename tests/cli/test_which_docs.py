"""CLI answers say which docs answered: the demo's end with one line saying so and how to get the
real docs, online or offline; a failed download names the offline routes; `info` and `verify`
default to the installed bundle."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from atlas_ls.cli import main
from atlas_ls.cli.hints import demo_line

ANSWERS = (
    ["search", "find assets", "--mode", "keyword"],
    ["search", "qqqq zzzz nothing", "--mode", "keyword"],
    ["lookup", "findAssets"],
    ["symbols", "AddAssetReq"],
    ["info"],
)


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = main(argv)
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


@pytest.mark.parametrize("argv", ANSWERS, ids=lambda a: " ".join(a[:2]))
def test_an_answer_from_the_demo_ends_with_the_demo_line(
    argv: list[str], demo_bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    where = [str(demo_bundle)] if argv[0] == "info" else ["--bundle", str(demo_bundle)]
    rc, _, err = _run([*argv, *where], capsys)
    assert rc == 0
    assert err.splitlines()[-1] == demo_line()
    assert "atlas download" in demo_line()
    assert "atlas install ARCHIVE" in demo_line()
    assert "atlas build --source mirror=DOCS_DIR --source openapi=SPEC.json" in demo_line()


@pytest.mark.parametrize("argv", ANSWERS, ids=lambda a: " ".join(a[:2]))
def test_an_answer_from_real_docs_has_no_demo_line(
    argv: list[str], hash_bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    where = [str(hash_bundle)] if argv[0] == "info" else ["--bundle", str(hash_bundle)]
    rc, _, err = _run([*argv, *where], capsys)
    assert rc == 0
    assert "demo" not in err


def test_a_json_answer_from_the_demo_stays_one_json_value(
    demo_bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc, out, err = _run(["search", "assets", "--json", "--bundle", str(demo_bundle)], capsys)
    assert rc == 0
    assert isinstance(json.loads(out), list)
    assert err.splitlines()[-1] == demo_line()


def test_a_download_that_cannot_reach_the_server_names_the_offline_routes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "root"
    argv = ["download", "--api-url", "http://127.0.0.1:9", "--output", str(root), "--no-progress"]
    rc, _, err = _run(argv, capsys)
    assert rc == 3
    error, hint = err.splitlines()
    assert error.startswith("atlas: error: cannot reach 127.0.0.1:9")
    assert "atlas install ARCHIVE" in hint
    assert "atlas build --source mirror=DOCS_DIR --source openapi=SPEC.json" in hint
    assert not root.exists()


@pytest.mark.parametrize("command", ["info", "verify"])
def test_info_and_verify_default_to_the_installed_bundle(
    command: str,
    hash_bundle: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from atlas_core.config import installed_bundle_dir

    monkeypatch.setenv("ATLAS_DATA_DIR", str(tmp_path / "data"))
    rc, _, err = _run([command], capsys)
    assert rc == 2
    assert err.splitlines()[0] == f"atlas: error: no bundle at {installed_bundle_dir()}"
    assert "download" in err  # nothing installed yet: how to install one
    main(["install", str(hash_bundle)])
    capsys.readouterr()
    rc, out, _ = _run([command], capsys)
    assert rc == 0
    assert str(tmp_path / "data" / "releases" / "fixture") in out  # what `current` points at


@pytest.mark.parametrize("command", ["info", "verify"])
def test_a_missing_bundle_path_is_no_bundle_there_not_a_download_hint(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no-such-bundle"
    rc, out, err = _run([command, str(missing)], capsys)
    assert rc == 2
    assert out == ""
    assert err.splitlines()[0] == f"atlas: error: no bundle at {missing}"
    assert "download" not in err
