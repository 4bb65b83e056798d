"""The API-check development set: the generator is repeatable and writes well-formed cases, the
committed set has the size and spread the issue asks for, and the runner scores findings."""

from __future__ import annotations

import ast
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from atlas_core.engine import Engine
from benchmarks.api_checks import code_blocks, run_cases, score
from benchmarks.devset.api_cases import SHAPES, build_cases, problems_of, write_jsonl
from benchmarks.devset.apicases.plants import CHECKS
from tests.calls_bundle import CALLS_SPEC, build_calls_bundle

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "benchmarks" / "api_cases.jsonl"
KEYS = {"id", "shape", "language", "code", "planted", "operation"}
LANGUAGES = {"python", "javascript", "typescript", "shell", "groovy", "java"}


def _param(name: str, schema: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"name": name, "in": "query", "schema": schema, **extra}


# An invented spec in the shape of the Collibra one: enums, required and deprecated keys, a
# deprecated operation and a literal segment beside a parameter segment.
SPEC: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Invented", "version": "2.0"},
    "servers": [{"url": "/rest/2.0"}],
    "paths": {
        "/assets": {
            "get": {
                "operationId": "findAssets",
                "tags": ["Assets"],
                "parameters": [
                    _param("name", {"type": "string"}),
                    _param("nameMatchMode", {"type": "string", "enum": ["START", "EXACT"]}),
                    _param("limit", {"type": "integer"}),
                    _param("legacyScope", {"type": "boolean"}, deprecated=True),
                ],
            },
            "post": {
                "operationId": "addAsset",
                "tags": ["Assets"],
                "requestBody": {
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/AddAsset"}}
                    }
                },
            },
        },
        "/communities/{communityId}": {
            "parameters": [{"name": "communityId", "in": "path", "required": True, "schema": {}}],
            "get": {"operationId": "getCommunity", "tags": ["Communities"]},
            "delete": {
                "operationId": "removeCommunity",
                "tags": ["Communities"],
                "deprecated": True,
            },
        },
        "/communities/removalJobs": {
            "post": {
                "operationId": "removeCommunitiesInJob",
                "tags": ["Communities"],
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "array",
                                "items": {"type": "string", "format": "uuid"},
                            }
                        }
                    }
                },
            }
        },
    },
    "components": {
        "schemas": {
            "AddAsset": {
                "type": "object",
                "required": ["name", "domainId", "typeId"],
                "properties": {
                    "name": {"type": "string"},
                    "domainId": {"type": "string", "format": "uuid"},
                    "typeId": {"type": "string", "format": "uuid"},
                    "displayName": {"type": "string"},
                    "status": {"type": "string", "enum": ["DRAFT", "APPROVED"]},
                    "excludedFromAutoHyperlinking": {"type": "boolean", "deprecated": True},
                },
            }
        }
    },
}


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A `--shared` folder holding the invented spec and an empty second spec."""
    root = tmp_path_factory.mktemp("shared")
    specs = root / "collibra-openapi"
    specs.mkdir()
    (specs / "dgc-rest.json").write_text(json.dumps(SPEC), encoding="utf-8")
    empty = {"openapi": "3.0.3", "info": {"title": "Import", "version": "2.0"}, "paths": {}}
    (specs / "dgc-importer-rest.json").write_text(json.dumps(empty), encoding="utf-8")
    return root


def test_the_same_inputs_give_the_same_bytes(shared: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    write_jsonl(first, build_cases(shared, 13)[0])
    write_jsonl(second, build_cases(shared, 13)[0])
    assert first.read_bytes() == second.read_bytes()
    other = tmp_path / "c.jsonl"
    write_jsonl(other, build_cases(shared, 14)[0])
    assert other.read_bytes() != first.read_bytes()


def test_generated_cases_are_well_formed(shared: Path) -> None:
    cases, summary = build_cases(shared, 13)
    assert {row["class"] for row in summary} == {"correct", *CHECKS}
    for case in cases:
        assert set(case) == KEYS
        assert problems_of(case) == [], case["id"]
    planted = Counter(c["planted"]["check"] for c in cases if c["planted"])
    # Every class has a unit in the invented spec, so each appears.
    assert set(planted) == set(CHECKS)
    by_operation = {c["operation"]: c for c in cases if c["planted"] is None}
    # A correct snippet never calls a deprecated operation; the literal-segment one is there.
    assert "DELETE /communities/{communityId}" not in by_operation
    assert "POST /communities/removalJobs" in by_operation
    deprecated_keys = ("legacyScope", "excludedFromAutoHyperlinking")
    for case in by_operation.values():
        assert not any(key in case["code"] for key in deprecated_keys), case["id"]


def test_a_missing_property_leaves_out_a_required_one(shared: Path) -> None:
    cases, _ = build_cases(shared, 13)
    missing = [c for c in cases if c["planted"] and c["planted"]["check"] == "missing-required"]
    assert missing
    for case in missing:
        written = [k for k in ("name", "domainId", "typeId") if f'"{k}"' in case["code"]]
        written += [k for k in ("name", "domainId", "typeId") if f"{k}:" in case["code"]]
        assert 0 < len(set(written)) < 3, case["code"]


def _committed() -> list[dict[str, Any]]:
    return [json.loads(line) for line in COMMITTED.read_text(encoding="utf-8").splitlines()]


def test_the_committed_set_has_the_size_and_spread_asked_for() -> None:
    cases = _committed()
    planted = Counter(c["planted"]["check"] for c in cases if c["planted"])
    assert len(cases) >= 160
    assert sum(1 for c in cases if c["planted"] is None) >= 80
    assert sum(planted.values()) >= 80
    assert all(planted[check] >= 12 for check in CHECKS), planted
    assert {c["shape"] for c in cases} == set(SHAPES)
    assert {c["language"] for c in cases} == LANGUAGES
    assert len({c["id"] for c in cases}) == len(cases)
    for case in cases:
        assert set(case) == KEYS
        assert problems_of(case) == [], case["id"]
        if case["language"] == "python":
            ast.parse(case["code"])


@dataclass(frozen=True)
class _Finding:
    check: str
    line: int
    start: int
    end: int
    severity: str = "warning"
    message: str = ""
    end_line: int | None = None


def test_scoring_matches_check_line_and_overlap() -> None:
    code = 'requests.get(f"{BASE}/asset")\nx = 1\n'
    plant = {"check": "unknown-endpoint", "line": 0, "text": "asset"}
    cases = [
        {"id": "a", "shape": "s", "operation": "GET /assets", "code": code, "planted": plant},
        {"id": "b", "shape": "s", "operation": "GET /assets", "code": code, "planted": plant},
        {"id": "c", "shape": "s", "operation": "GET /assets", "code": code, "planted": None},
    ]
    findings = {
        # On the planted text, then the same again: the second is a duplicate, a false positive.
        "a": [_Finding("unknown-endpoint", 0, 14, 27), _Finding("unknown-endpoint", 0, 14, 27)],
        # Right check, wrong place: a false positive and a miss.
        "b": [_Finding("unknown-endpoint", 1, 0, 1)],
        "c": [_Finding("bad-value", 0, 0, 3)],
    }
    result = score(cases, findings)
    per = result["per_check"]
    assert per["unknown-endpoint"] == {
        "tp": 1,
        "fp": 2,
        "fn": 1,
        "precision": 0.3333,
        "recall": 0.5,
    }
    assert per["bad-value"]["fp"] == 1
    assert (result["cases"], result["correct"], result["planted"]) == (3, 1, 2)
    assert [m["case"] for m in result["misses"]] == ["b"]
    assert [fp["case"] for fp in result["false_positives"]] == ["a", "b", "c"]


def test_a_finding_over_lines_covers_the_planted_key_on_its_last_line() -> None:
    code = "body = {\n  'name': n,\n}\nrequests.post(URL, json=body)\n"
    case = {"id": "a", "shape": "s", "operation": "POST /assets", "code": code}
    case["planted"] = {"check": "missing-required", "line": 1, "text": "name"}
    over = _Finding("missing-required", 0, 7, 8, end_line=1)  # from `{` to the key's end column
    short = _Finding("missing-required", 0, 7, 3, end_line=1)  # ends before the key
    assert score([case], {"a": [over]})["per_check"]["missing-required"]["tp"] == 1
    assert score([case], {"a": [short]})["per_check"]["missing-required"]["tp"] == 0


def test_docs_blocks_are_the_code_languages_and_bare_curl() -> None:
    text = "\n".join(
        [
            "# Page",
            "```python",
            "requests.get(url)",
            "```",
            "```json",
            '{"a": 1}',
            "```",
            "```",
            "curl https://acme.collibra.com/rest/2.0/assets",
            "```",
            "```",
            "plain text",
            "```",
        ]
    )
    assert [(start, lang) for start, lang, _ in code_blocks(text)] == [(2, "python"), (8, "shell")]


@pytest.fixture(scope="module")
def calls_shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A `--shared` folder holding the calls fixture bundle's spec as JSON."""
    root = tmp_path_factory.mktemp("calls-shared")
    specs = root / "collibra-openapi"
    specs.mkdir()
    spec = yaml.safe_load(CALLS_SPEC.read_text(encoding="utf-8"))
    (specs / "dgc-rest.json").write_text(json.dumps(spec), encoding="utf-8")
    empty = {"openapi": "3.0.3", "info": {"title": "Import", "version": "2.0"}, "paths": {}}
    (specs / "dgc-importer-rest.json").write_text(json.dumps(empty), encoding="utf-8")
    return root


def test_the_runner_on_a_sample_against_the_fixture_bundle(
    calls_shared: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    cases, _ = build_cases(calls_shared, 13)
    # Five cases in Python shapes, which the call reader reads whole: correct ones and plants.
    python = [c for c in cases if c["language"] == "python"]
    wanted = ("unknown-param", "bad-value", "missing-required")
    sample = [c for c in python if c["planted"] is None][:2]
    for check in wanted:
        sample += [c for c in python if c["planted"] and c["planted"]["check"] == check][:1]
    assert len(sample) == 5
    with Engine.open(build_calls_bundle(tmp_path_factory.getbasetemp())) as engine:
        result = run_cases(engine, sample)
    assert (result["cases"], result["correct"], result["planted"]) == (5, 2, 3)
    for check in wanted:
        counts = result["per_check"][check]
        assert counts["tp"] + counts["fn"] == 1
    # The fixture spec knows these calls whole, so each plant is found where it was planted.
    assert result["misses"] == []
    assert result["recall"] == 1.0
