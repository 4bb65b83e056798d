"""A search list's file changed in place at the same size after the build (which `Bundle.open`
cannot see: it checks sizes and headers) is found on first use, named once, and only that list
goes off: the engine and `atlas search` keep answering from the other."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

from atlas_core.engine import Engine
from atlas_core.errors import BundleError

ROOT = Path(__file__).resolve().parents[2]
QUERY = "create a domain"


def _zero_after_header(path: Path) -> None:
    """Same size, header intact, every value zero: vectors that match nothing."""
    data = bytearray(path.read_bytes())
    data[128:] = bytes(len(data) - 128)
    path.write_bytes(bytes(data))


def _flip_middle(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x40
    path.write_bytes(bytes(data))


@pytest.fixture(scope="module")
def damaged(tiny: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Copies of the tiny bundle with the vectors, or a keyword array, changed in place."""
    root = tmp_path_factory.mktemp("damaged")
    vector, keyword = root / "vector", root / "keyword"
    shutil.copytree(tiny, vector)
    shutil.copytree(tiny, keyword)
    _zero_after_header(vector / "vectors.npy")
    _flip_middle(keyword / "keyword" / "data.npy")
    return {"vector": vector, "keyword": keyword}


def _ids(engine: Engine, mode: str, *, fallback: bool = False) -> list[str]:
    return [h.chunk_id for h in engine.search(QUERY, mode=mode, top_k=5, fallback=fallback)]


@pytest.mark.parametrize(
    ("off", "on", "file"),
    [("vector", "keyword", "vectors.npy"), ("keyword", "vector", "keyword/data.npy")],
)
def test_the_damaged_list_is_off_and_the_other_answers(
    tiny: Path, damaged: dict[str, Path], off: str, on: str, file: str
) -> None:
    with Engine.open(tiny) as intact:
        expected = _ids(intact, on)
    assert expected
    with Engine.open(damaged[off]) as engine:
        assert engine.search_off() == {}  # opening hashes nothing
        assert _ids(engine, on) == expected
        with pytest.raises(BundleError) as raised:
            engine.search(QUERY, mode=off)
        assert file in raised.value.message and f"{off} search is off" in raised.value.message
        assert f"--mode {on}" in (raised.value.hint or "")
        assert _ids(engine, "hybrid") == expected  # hybrid answers from the list left
        assert _ids(engine, off, fallback=True) == expected  # a host that answers with a note
        assert list(engine.search_off()) == [off] and file in engine.search_off()[off]
        with pytest.raises(BundleError):  # still off, without hashing again
            engine.search(QUERY, mode=off)


def test_found_once_in_the_background_by_a_server(
    damaged: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from atlas_core.bundle import Bundle

    hashed: list[list[str]] = []
    changed = Bundle.changed

    def counting(self: Bundle, relpaths: Iterable[str]) -> list[str]:
        names = list(relpaths)
        hashed.append(names)
        return changed(self, names)

    monkeypatch.setattr(Bundle, "changed", counting)
    with Engine.open(damaged["vector"]) as engine:
        engine.prepare_vector_search()
        engine.wait_prepared()
        assert "vector" in engine.search_off()
        for _ in range(3):
            assert engine.search(QUERY, mode="hybrid")
    assert hashed.count(["vectors.npy"]) == 1


def _atlas(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "atlas_ls.cli", "search", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


@pytest.mark.parametrize(("off", "on"), [("vector", "keyword"), ("keyword", "vector")])
def test_atlas_search_refuses_the_damaged_mode_in_one_line(
    damaged: dict[str, Path], off: str, on: str
) -> None:
    bundle = str(damaged[off])
    refused = _atlas(QUERY, "--bundle", bundle, "--mode", off)
    assert refused.returncode != 0 and not refused.stdout
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 2 and "Traceback" not in refused.stderr, refused.stderr
    assert f"{off} search is off" in lines[0] and str(damaged[off]) in lines[0]
    assert f"--mode {on}" in lines[1]

    answered = _atlas(QUERY, "--bundle", bundle, "--mode", on)
    assert answered.returncode == 0 and "Create a domain" in answered.stdout
    assert "is off" not in answered.stderr

    hybrid = _atlas(QUERY, "--bundle", bundle)
    assert hybrid.returncode == 0 and "Create a domain" in hybrid.stdout
    assert f"{off} search is off" in hybrid.stderr
