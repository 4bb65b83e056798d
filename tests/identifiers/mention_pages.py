"""Small bundles for the mention-index tests, built from pages the tests write (`PAGES`, `SPEC`).
The fixtures that build them are in this folder's conftest."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from tests.support.bundles import bundle_factory

# A small API spec: its paths have no base, while the written pages call them under one.
SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "Widget API", "version": "1.0"},
    "paths": {
        "/widgets/{widgetId}": {
            "get": {
                "operationId": "getWidget",
                "summary": "Read a widget.",
                "parameters": [
                    {
                        "name": "widgetId",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                    },
                    {"name": "gizmoMatchMode", "in": "query", "schema": {"type": "string"}},
                ],
                "responses": {"200": {"description": "the widget"}},
            }
        }
    },
}

PAGES = {
    # A parameter table: the page that defines gizmoMatchMode.
    "guide/widget-parameters.md": """# Widget parameters

## Query parameters

| Name | Meaning |
|---|---|
| gizmoMatchMode | How names are compared: START, END or ANYWHERE. |
| `pageToken` | Where the next page starts. |
""",
    # Names gizmoMatchMode three times, in passing, and never defines it.
    "guide/tutorial.md": """# Tutorial

## First call

Call it with `gizmoMatchMode`, then again with `gizmoMatchMode` and a third time with
`gizmoMatchMode` set to `ANYWHERE`. Our nightly `sprocketSync` job also runs.

```bash
$ ./gradlew sprocketJar
curl -X GET 'https://<your_host>/acme/api/v9/widgets/42'
curl -X GET 'https://<your_host>/acme/api/v9/widgets/43'
curl -X POST 'https://<your_host>/acme/api/v9/gadgets/archive'
```
""",
    # The page about sprocketSync: its heading and its example.
    "guide/sprocket-sync.md": """# Sprockets

## The sprocketSync job

Run `sprocketSync` every night.

## Server Modes

A server runs in one of three modes.
""",
}


def build_pages(base: Path, pages: Mapping[str, str], *, spec: dict | None = None) -> Path:
    """The bundle of `pages` (and `spec`), named after `base`, from the run's bundle factory:
    built once per run for each distinct set. Read-only."""
    return bundle_factory().build_pages(pages, name=base.name, spec=spec)
