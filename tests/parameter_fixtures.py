"""A small OpenAPI spec and a few markdown pages that define parameters and properties, written
by the tests themselves (the Teapot API), and a bundle built from them.

The spec has what real specs have: query, header, cookie and path-level parameters, a `$ref`
parameter, an inline request body, a `$ref` body whose schema extends another through `allOf`, a
`$ref` to an enum schema, defaults, examples (of a parameter, a property, a schema, a request and a
response), a deprecated parameter and HTML descriptions. `nameMatchMode` is a query parameter of
two operations; `name` is a property of three schemas and a query parameter of one operation. The
bundle is built with the spec's developer portal named (`openapi=FILE#PORTAL`).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from tests.fixture_builds import build_fixture_bundle

MATCH_MODE = {
    "name": "nameMatchMode",
    "in": "query",
    "description": "The match mode used to compare <code>name</code>.<p>Use <b>EXACT</b> for one "
    "pot.</p>",
    "schema": {
        "type": "string",
        "enum": ["START", "END", "ANYWHERE", "EXACT"],
        "default": "ANYWHERE",
    },
}


def _json(schema: str) -> dict[str, Any]:
    return {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}}


SPEC: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Teapot API", "version": "2.0"},
    "servers": [{"url": "https://pot.example.test/rest/2.0"}],
    "tags": [{"name": "Pots"}, {"name": "Kettles"}],
    "paths": {
        "/pots": {
            "get": {
                "tags": ["Pots"],
                "operationId": "findPots",
                "summary": "Find pots",
                "parameters": [
                    MATCH_MODE,
                    {"name": "name", "in": "query", "schema": {"type": "string"}},
                    {"$ref": "#/components/parameters/Limit"},
                    {
                        "name": "X-Trace",
                        "in": "header",
                        "description": "A trace id<br>for the logs",
                        "schema": {"type": "string", "format": "uuid"},
                    },
                    {
                        "name": "session",
                        "in": "cookie",
                        "deprecated": True,
                        "schema": {"type": "string"},
                    },
                ],
                "responses": {
                    "200": {
                        "description": "Pots",
                        "content": {
                            "application/json": {
                                **_json("PotPage")["application/json"],
                                "examples": {
                                    "one": {"value": {"results": [{"name": "Brown Betty"}]}}
                                },
                            }
                        },
                    }
                },
            },
            "post": {
                "tags": ["Pots"],
                "operationId": "addPot",
                "summary": "Add a pot",
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            **_json("AddPotRequest")["application/json"],
                            "example": {"name": "Brown Betty", "capacity": 2},
                        }
                    },
                },
                "responses": {"201": {"description": "The new pot", "content": _json("Pot")}},
            },
        },
        "/pots/{potId}": {
            "parameters": [
                {
                    "name": "potId",
                    "in": "path",
                    "required": True,
                    "description": "The ID of the pot",
                    "schema": {"type": "string", "format": "uuid"},
                }
            ],
            "patch": {
                "tags": ["Pots"],
                "operationId": "changePot",
                "summary": "Change a pot",
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "required": ["colour"],
                                "properties": {
                                    "colour": {
                                        "type": "string",
                                        "description": "The new <i>colour</i>",
                                        "enum": ["RED", "BLUE"],
                                    },
                                    "sizeLitres": {"type": "number", "default": 1.5},
                                },
                            }
                        }
                    }
                },
                "responses": {"200": {"description": "Changed", "content": _json("Pot")}},
            },
        },
        "/kettles": {
            "get": {
                "tags": ["Kettles"],
                "operationId": "findKettles",
                "summary": "Find kettles",
                "parameters": [MATCH_MODE],
                "responses": {"200": {"description": "Kettles"}},
            }
        },
    },
    "components": {
        "parameters": {
            "Limit": {
                "name": "limit",
                "in": "query",
                "description": "At most this many results",
                "example": 25,
                "schema": {"type": "integer", "format": "int32", "default": 100, "example": 10},
            }
        },
        "schemas": {
            "PotStatus": {"type": "string", "enum": ["FULL", "EMPTY"]},
            "PotBase": {
                "type": "object",
                "required": ["name"],
                "properties": {
                    "name": {
                        "type": "string",
                        "description": 'The name of the pot; see <a href="https://pot.example.test'
                        '/names">naming</a>.',
                        "example": "Brown Betty",
                    },
                    "status": {"$ref": "#/components/schemas/PotStatus"},
                },
            },
            "AddPotRequest": {
                "allOf": [
                    {"$ref": "#/components/schemas/PotBase"},
                    {
                        "type": "object",
                        "properties": {
                            "capacity": {
                                "type": "integer",
                                "format": "int64",
                                "description": "<ul><li>in litres</li><li>whole</li></ul>",
                            }
                        },
                    },
                ]
            },
            "Pot": {
                "allOf": [{"$ref": "#/components/schemas/PotBase"}],
                "properties": {"id": {"type": "string", "format": "uuid"}},
                "example": {"id": "6f1c0d0e-0000-4000-8000-00000000beef", "name": "Brown Betty"},
            },
            "PotPage": {
                "type": "object",
                "properties": {
                    "results": {"type": "array", "items": {"$ref": "#/components/schemas/Pot"}}
                },
            },
        },
    },
}

# A generated client's page (operation table, operation section, parameter table), a model page,
# a response-fields table and two JSON blocks: one in an operation's section, one in none.
PAGES = {
    "client/pots-api.md": """# teapot.PotsApi

Method | HTTP request | Description
------------- | ------------- | -------------
[**find_pots**](PotsApi.md#find_pots) | **GET** /pots | Find pots

# **find_pots**

Find pots.

### Parameters

Name | Type | Description  | Notes
------------- | ------------- | ------------- | -------------
 **name_match_mode** | **str**| The match mode used to compare &lt;code&gt;name&lt;/code&gt;. | [optional] [default to &#39;ANYWHERE&#39;]
 **pot_id** | **str**| The ID of the pot |
""",
    "models/pot-request.md": """---
title: "PotRequest"
---

# PotRequest

## Properties
Name | Type | Description | Notes
------------ | ------------- | ------------- | -------------
**brew_temperature** | **int** | Degrees Celsius. | [optional]
**spout** | **str** | The spout shape. |
""",
    "guides/pouring.md": """# Pouring tea

## Pour a cup

Call POST /rest/2.0/pots/{potId}/pour with a body like this:

```json
{
  "cupCount": 2,
  "milkFirst": false
}
```

## Response fields

| Field | Type | Description |
|---|---|---|
| `pouredMillilitres` | integer | How much was poured |
| not a name | x | skipped: the first cell is not an identifier |

## A settings file

```json
{"unrelatedSetting": true}
```
""",
    "models/kettle-status.md": """---
title: "KettleStatus"
---

The state a kettle reports.
""",
}


def write_spec(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "teapot-api.json"
    path.write_text(json.dumps(SPEC, indent=1), encoding="utf-8")
    return path


def write_pages(directory: Path) -> Path:
    for name, text in PAGES.items():
        target = directory / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return directory


# Where the bundle says the spec is published: a developer portal laid out as GitBook does.
PORTAL = "https://dev.pot.example.test/api/references/teapot"


@functools.cache
def build_teapot_bundle(base: Path) -> Path:
    """The spec (with its portal) and the pages built with the hash embedder, once per
    session."""
    spec = write_spec(base / "teapot-src")
    docs = write_pages(base / "teapot-docs")
    return build_fixture_bundle([f"local={docs}", f"openapi={spec}#{PORTAL}"], name="teapot")
