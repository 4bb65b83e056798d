"""The real-code evaluation set: its split is the frozen one, its labels are well formed and point
at lines that exist, and the scorer counts what `benchmarks/real_clients.py` says it counts."""

from __future__ import annotations

import csv
import importlib.util
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import SHARED

ROOT = Path(__file__).resolve().parent.parent
REALCODE = ROOT / "benchmarks" / "realcode"
CLIENTS = SHARED / "real-clients"
METHODS = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}
VIA = {"direct", "helper", "generated-client", "java-api"}
KINDS = {
    "unknown-parameter",
    "unknown-body-key",
    "unknown-endpoint",
    "wrong-method",
    "missing-required",
    "bad-value",
    "deprecated",
}

needs_clients = pytest.mark.skipif(
    not (CLIENTS / "SOURCES.tsv").is_file(), reason="no ../shared/real-clients here"
)


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _labels() -> list[dict]:
    return [
        json.loads(p.read_text(encoding="utf-8"))
        for p in sorted((REALCODE / "labels").glob("*.json"))
    ]


@needs_clients
def test_the_split_is_the_one_drawn_before_tuning() -> None:
    split = _load("realcode_split", REALCODE / "split.py")
    frozen = json.loads((REALCODE / "split.json").read_text(encoding="utf-8"))
    assert split.draw(CLIENTS) == frozen
    origins = frozen["origins"]
    assert set(origins.values()) == {"dev", "test"}
    # Every origin's files fall in one split.
    with (CLIENTS / "SOURCES.tsv").open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            assert frozen["files"][row["local_file"]] == origins[row["origin"]]


@needs_clients
def test_every_file_is_labelled_once_and_every_label_line_exists() -> None:
    with (CLIENTS / "SOURCES.tsv").open(newline="", encoding="utf-8") as fh:
        files = {row["local_file"] for row in csv.DictReader(fh, delimiter="\t")}
    labels = _labels()
    assert sorted(label["file"] for label in labels) == sorted(files)
    for label in labels:
        text = (CLIENTS / "files" / label["file"]).read_text(encoding="utf-8", errors="replace")
        count = text.count("\n") + 1
        for call in label["calls"]:
            assert call["method"] in METHODS, (label["file"], call)
            assert call["via"] in VIA, (label["file"], call)
            assert isinstance(call["documented"], bool)
            assert 1 <= call["line"] <= count and 1 <= call.get("call_line", 1) <= count
            if call["documented"]:
                assert call["path"].startswith("/"), (label["file"], call)
        for mistake in label["mistakes"]:
            assert mistake["kind"] in KINDS, (label["file"], mistake)
            assert 1 <= mistake["line"] <= count
            assert mistake["name"] and mistake["evidence"]


@dataclass
class _Finding:
    line: int
    check: str
    message: str
    severity: str = "warning"


@dataclass
class _Target:
    method: str
    path: str


class _Engine:
    """Answers as an engine would for the snippet below: every scanned call resolves to
    GET /assets; two findings on the mistake's line (0-based 1), one on line 5, and a deprecation
    hint on the mistake's line (struck through, not a problem)."""

    def resolve_call(self, site: object, *, define: bool = True) -> _Target:
        return _Target("GET", "/assets")

    def check_code(self, text: str, language: str) -> list[_Finding]:
        return [
            _Finding(1, "unknown-param", "pages is not a parameter"),
            _Finding(1, "unknown-param", "pages again"),
            _Finding(4, "unknown-endpoint", "wrong"),
            _Finding(1, "deprecated", "'pages' is deprecated", "hint"),
        ]

    def deprecated_terms(self) -> None:
        return None


def test_the_scorer_counts_recognised_calls_and_each_mistake_once() -> None:
    scorer = _load("real_clients_scorer", ROOT / "benchmarks" / "real_clients.py")
    code = 'import requests\nrequests.get("https://x.collibra.com/rest/2.0/assets", params={"pages": 1})\n'
    label = {
        "file": "snippet.py",
        "language": "python",
        "calls": [
            {
                "line": 2,
                "call_line": 2,
                "method": "GET",
                "path": "/rest/2.0/assets",
                "documented": True,
                "shape": "requests",
            },
            {
                "line": 3,
                "method": "GET",
                "path": "/rest/2.0/domains",
                "documented": True,
                "shape": "requests",
            },
            {
                "line": 4,
                "method": "GET",
                "path": "/rest/2.0/x",
                "documented": True,
                "endpoint_in_file": False,
                "shape": "requests",
            },
            {
                "line": 5,
                "method": "GET",
                "path": "/rest/1.0/x",
                "documented": False,
                "shape": "requests",
            },
        ],
        "mistakes": [{"line": 2, "kind": "unknown-parameter", "name": "pages", "evidence": "spec"}],
    }
    result = scorer.score_file(_Engine(), label, code)
    figures = result.tally.figures()
    assert figures["documented_calls"] == 2 and figures["recognised"] == 1
    assert figures["documented_not_in_file"] == 1
    # One right, the repeat and the finding on an undocumented call wrong.
    assert (figures["right"], figures["diagnostics"]) == (1, 3)
    assert figures["diagnostics_on_undocumented"] == 1
    # The hint claims no mistake and is no problem shown: counted apart.
    assert (figures["hints"], figures["hints_on_mistakes"], figures["errors"]) == (1, 1, 0)
    assert result.missed == ["3: GET /rest/2.0/domains (requests)"]
    assert result.unfound == []


EXTRA = REALCODE / "extra"
EXTRA_FILES = Path("/work/extra-clients/files")


def _extra_sources() -> dict[str, dict[str, str]]:
    rows: dict[str, dict[str, str]] = {}
    for path in sorted(EXTRA.glob("sources-*.tsv")):
        with path.open(newline="", encoding="utf-8") as fh:
            rows.update({row["local_file"]: row for row in csv.DictReader(fh, delimiter="\t")})
    return rows


def test_the_extra_set_points_at_its_origins_and_is_labelled_in_the_same_format() -> None:
    """Every label of the extra development set names a file its sources list gives an origin
    and a commit or version for (the files themselves are not shipped), in the frozen set's
    format; none comes from an origin of the frozen set."""
    sources = _extra_sources()
    with (CLIENTS / "SOURCES.tsv").open(newline="", encoding="utf-8") as fh:
        frozen = {row["origin"] for row in csv.DictReader(fh, delimiter="\t")}
    labels = sorted((EXTRA / "labels").glob("*.json"))
    assert labels
    for path in labels:
        label = json.loads(path.read_text(encoding="utf-8"))
        row = sources[label["file"]]
        assert row["origin"] not in frozen and row["commit"], row
        for call in label["calls"]:
            assert call["method"] in METHODS and call["via"] in VIA, (label["file"], call)
            assert call["line"] >= 1 and isinstance(call["documented"], bool)
        for mistake in label["mistakes"]:
            assert mistake["kind"] in KINDS and mistake["evidence"], (label["file"], mistake)
        if EXTRA_FILES.is_dir():  # where the files were fetched: the labels point at real lines
            text = (EXTRA_FILES / label["file"]).read_text(encoding="utf-8", errors="replace")
            count = text.count("\n") + 1
            assert all(c["line"] <= count for c in label["calls"]), label["file"]
