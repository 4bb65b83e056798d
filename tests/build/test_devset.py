"""The development-set drawer (`python -m benchmarks.devset`) on a tiny corpus and spec written here.

The pages and specs below are made up for this test and shaped like the real ones the rules read
(front matter, a generated client's operations table, a model page, `api/` reference headings, an
import page with JSON, a command page); every class of the method has at least one member here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

FIELDS = (
    "class",
    "identifier",
    "expected_files",
    "primary",
    "needs_spec",
    "ambiguous",
    "spelling",
    "canonical",
    "source",
)
CLASSES = {
    "path",
    "operation",
    "parameter",
    "property",
    "json_key",
    "constant",
    "type",
    "cli",
    "near_tie",
}
# The files `load_openapi` renders the two specs into, by the naming rule in the package docstring:
# `<slug(spec file stem)>/<slug(first tag)>.md`, and every schema on `<stem>/schemas.md`.
SPEC_PAGES = {
    "dgc-rest/domains.md",
    "dgc-rest/workflow-instances.md",
    "dgc-rest/schemas.md",
    "dgc-importer-rest/import-jobs.md",
    "dgc-importer-rest/schemas.md",
}

PAGES = {
    "rest-core/domains-api.md": """---
title: "DomainsApi"
---

Method | HTTP request | Description
------------- | ------------- | -------------
[**find_domains**](#find_domains) | **GET** /domains | Find domains
[**get_domain**](#get_domain) | **GET** /domains/{domainId} | Get a domain

# **find_domains**

Returns the domains whose name matches; set a `retryPolicy` on the client for large results.

### Parameters

Name | Type | Description
------------- | ------------- | -------------
**name** | **str** | The name to match
**name_match_mode** | **str** | How the name is matched

# **get_domain**

### Parameters

Name | Type | Description
------------- | ------------- | -------------
**domain_id** | **str** | The domain's id
""",
    "rest-core-models/Domain.md": """---
title: "Domain"
---

## Properties

Name | Type | Description
------------ | ------------- | -------------
**id** | **str** | The domain's id
**name** | **str** | The domain's name
**description** | **str** | What the domain holds
""",
    "api/domains.md": """---
title: "Domains"
---

# Domains

## Find domains

```json
{"operationId":"findDomains","parameters":[{"name":"nameMatchMode","in":"query"}]}
```

## The Domain object

A domain groups assets.
""",
    "import-api/import-json.md": """---
title: "Import JSON"
---

# Import JSON

Field | Meaning
----- | -------
externalSystemId | The system the import comes from
sendNotification | Whether to mail the owner

```json
{"identifier": {"name": "Orders"}, "externalSystemId": "crm", "batchSize": 500}
```

Set `retryPolicy` to resend a failed batch.
""",
    "cli/commands.md": """---
title: "Commands"
---

# Commands

Run a sync with the token in the environment:

```bash
export COLLIBRA_API_TOKEN=secret
collibra sync run --full
```

Variable | Meaning
-------- | -------
COLLIBRA_API_TOKEN | The token the command sends

full-sync

Start from a call:

```bash
curl -X POST https://acme.example/rest/2.0/jobs/cancel
curl https://acme.example/rest/2.0/domains
```

## retryPolicy

How often a failed request is tried again.
""",
    "workflows/beans.md": """---
title: "Beans"
---

# Beans

DomainService bean

Mentions `retryPolicy` once more.
""",
}


def _op(tag: str, operation_id: str, summary: str, **extra: Any) -> dict[str, Any]:
    return {"tags": [tag], "operationId": operation_id, "summary": summary, **extra}


def _query(name: str, schema: dict[str, Any], required: bool = False) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": required, "schema": schema}


def _json_body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


UUID = {"type": "string", "format": "uuid"}

CORE_SPEC = {
    "openapi": "3.0.1",
    "servers": [{"url": "/rest/2.0"}],
    "tags": [{"name": "Domains"}, {"name": "Workflow Instances"}],
    "paths": {
        "/domains": {
            "get": _op(
                "Domains",
                "findDomains",
                "Find domains",
                parameters=[
                    _query("name", {"type": "string"}),
                    _query(
                        "nameMatchMode",
                        {"type": "string", "enum": ["START", "END", "ANYWHERE", "EXACT"]},
                    ),
                    _query("limit", {"type": "integer"}),
                ],
            )
        },
        "/domains/bulk": {
            "delete": _op(
                "Domains",
                "removeDomains",
                "Remove domains",
                requestBody=_json_body({"type": "array", "items": UUID}),
            )
        },
        "/domains/{domainId}": {
            "get": _op(
                "Domains",
                "getDomain",
                "Get a domain",
                parameters=[{"name": "domainId", "in": "path", "required": True, "schema": UUID}],
            )
        },
        "/workflowInstances": {
            "post": _op(
                "Workflow Instances",
                "startWorkflowInstances",
                "Start workflow instances",
                requestBody=_json_body(
                    {"$ref": "#/components/schemas/StartWorkflowInstancesRequest"}
                ),
            )
        },
        "/relations": {
            "post": _op(
                "Workflow Instances",
                "addRelation",
                "Add a relation",
                requestBody=_json_body({"$ref": "#/components/schemas/AddRelationRequest"}),
            )
        },
    },
    "components": {
        "schemas": {
            "Domain": {
                "type": "object",
                "properties": {"id": UUID, "name": {"type": "string"}},
            },
            "StartWorkflowInstancesRequest": {
                "type": "object",
                "required": ["workflowDefinitionId"],
                "properties": {
                    "workflowDefinitionId": UUID,
                    "businessItemIds": {"type": "array", "items": UUID},
                    "businessItemType": {"type": "string", "enum": ["ASSET", "DOMAIN"]},
                },
            },
            "AddRelationRequest": {
                "type": "object",
                "required": ["sourceId", "targetId"],
                "properties": {"sourceId": UUID, "targetId": UUID, "typeId": UUID},
            },
        }
    },
}

IMPORT_SPEC = {
    "openapi": "3.0.1",
    "servers": [{"url": "/rest/2.0"}],
    "tags": [{"name": "Import Jobs"}],
    "paths": {
        "/import/json-job": {
            "post": _op(
                "Import Jobs",
                "importJsonInJob",
                "Import JSON in a job",
                requestBody=_json_body({"$ref": "#/components/schemas/ImportJobRequest"}),
            )
        }
    },
    "components": {
        "schemas": {
            "ImportJobRequest": {
                "type": "object",
                "properties": {
                    "sendNotification": {"type": "boolean"},
                    "batchSize": {"type": "integer"},
                },
            }
        }
    },
}


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A `--shared` folder: `collibra-docs/markdown/` and `collibra-openapi/` with both specs."""
    root = tmp_path_factory.mktemp("shared")
    for name, text in PAGES.items():
        page = root / "collibra-docs" / "markdown" / name
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(text, encoding="utf-8")
    specs = root / "collibra-openapi"
    specs.mkdir()
    (specs / "dgc-rest.json").write_text(json.dumps(CORE_SPEC, indent=2), encoding="utf-8")
    (specs / "dgc-importer-rest.json").write_text(json.dumps(IMPORT_SPEC), encoding="utf-8")
    return root


def _draw(shared: Path, out: Path) -> tuple[bytes, bytes]:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.devset",
            "--shared",
            str(shared),
            "--seed",
            "7",
            "--out",
            str(out / "cases.jsonl"),
            "--snippets-out",
            str(out / "snippets.jsonl"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return (out / "cases.jsonl").read_bytes(), (out / "snippets.jsonl").read_bytes()


@pytest.fixture(scope="module")
def drawn(shared: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, bytes]:
    return _draw(shared, tmp_path_factory.mktemp("first"))


@pytest.fixture(scope="module")
def cases(drawn: tuple[bytes, bytes]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in drawn[0].decode("utf-8").splitlines()]


def test_same_seed_same_bytes(
    shared: Path, drawn: tuple[bytes, bytes], tmp_path_factory: pytest.TempPathFactory
) -> None:
    again = _draw(shared, tmp_path_factory.mktemp("second"))
    assert again == drawn
    assert drawn[0] and drawn[1]


def test_every_class_is_drawn(cases: list[dict[str, Any]]) -> None:
    assert {case["class"] for case in cases} == CLASSES


def test_every_case_has_the_documented_fields(cases: list[dict[str, Any]]) -> None:
    for case in cases:
        missing = [name for name in FIELDS if name not in case]
        assert not missing, f"{case.get('id')}: no {missing}"
        assert case["expected_files"], case["id"]
        assert case["primary"] == case["expected_files"][0], case["id"]
        assert isinstance(case["needs_spec"], bool) and isinstance(case["ambiguous"], bool)
        assert case["identifier"] and case["canonical"] and case["spelling"], case["id"]


def test_no_identifier_in_two_cases(cases: list[dict[str, Any]]) -> None:
    identifiers = [case["identifier"] for case in cases]
    assert len(identifiers) == len(set(identifiers))
    canonical = [case["canonical"] for case in cases]
    assert len(canonical) == len(set(canonical))


def test_expected_files_are_corpus_pages_or_named_spec_pages(
    cases: list[dict[str, Any]], shared: Path
) -> None:
    markdown = shared / "collibra-docs" / "markdown"
    for case in cases:
        for file in case["expected_files"]:
            assert (markdown / file).is_file() or file in SPEC_PAGES, f"{case['id']}: {file}"
        assert case["needs_spec"] == all(f in SPEC_PAGES for f in case["expected_files"])


def test_snippets_point_at_spec_operations(drawn: tuple[bytes, bytes]) -> None:
    snippets = [json.loads(line) for line in drawn[1].decode("utf-8").splitlines()]
    operations = {
        (method.upper(), path)
        for spec in (CORE_SPEC, IMPORT_SPEC)
        for path, item in spec["paths"].items()
        for method in item
    }
    assert snippets
    for snippet in snippets:
        code_lines = snippet["code"].split("\n")
        for cursor in snippet["cursors"]:
            expect = cursor["expect"]
            assert (expect["method"], expect["path"]) in operations, snippet["id"]
            assert cursor["text"] in code_lines[cursor["line"]], snippet["id"]
