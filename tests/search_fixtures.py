"""A tiny search bundle written directly with the bundle writer, for the search tests.

The pages describe a made-up "Acme Catalog" product in this project's own words. Chunks are cut at
H2 headings here (not by the real chunker) so the tests know exactly which rows exist; vectors come
from the hash test embedder, the keyword index from `write_keyword_index`, and the identifier table
from `write_identifier_table` when that module is present.
"""

from __future__ import annotations

import hashlib
import itertools
from pathlib import Path

from atlas_core.bundle import BundleWriter
from atlas_core.embed import load_embedder
from atlas_core.search.keyword import write_keyword_index
from atlas_core.types import Chunk, Document

PAGES: dict[str, tuple[str, str, str]] = {
    # path: (publication, title, markdown body)
    "rest-core/widgets-api.md": (
        "rest-core",
        "Widgets API",
        """# Widgets API

The Widgets API manages widgets, the central records of the catalog.

## Find widgets

Call `GET /rest/2.0/widgets` (operation find_widgets) to list widgets that match a name filter.
Results are paged with offset and limit.

## Add a widget

Send `POST /rest/2.0/widgets` (operation add_widget) with a name and a domain identifier.
The response holds the new widget.

## Get a widget

`GET /rest/2.0/widgets/{widgetId}` returns one widget with its attributes.
""",
    ),
    "rest-core/domains-api.md": (
        "rest-core",
        "Domains API",
        """# Domains API

Domains group widgets that belong together.

## Create a domain

Creating a domain requires a community and a domain type. Use `POST /rest/2.0/domains`.

## Remove a domain

Removing a domain deletes every widget inside it, so back it up first.
""",
    ),
    "rest-core/communities-api.md": (
        "rest-core",
        "Communities API",
        """# Communities API

Communities are the top level of the hierarchy; they hold domains.

## List communities

`GET /rest/2.0/communities` lists communities, newest first.
""",
    ),
    "guides/getting-started.md": (
        "guides",
        "Getting started",
        """# Getting started

This guide walks through the first steps with the catalog: sign in, look around, add a widget.

## Sign in

Open the web console and sign in with the account your administrator gave you.

## Next steps

Read about authentication before writing scripts.
""",
    ),
    "guides/authentication.md": (
        "guides",
        "Authentication",
        """# Authentication

Scripts authenticate with a bearer token or with basic credentials.

## Token example

```python
import requests
session = requests.Session()
session.headers["Authorization"] = "Bearer " + token
```

## Session cookies

A browser session keeps a cookie that expires after thirty minutes of inactivity.
""",
    ),
    "guides/troubleshooting.md": (
        "guides",
        "Troubleshooting",
        """# Troubleshooting

## Slow responses

Large pages of results are slow; lower the limit or add a filter on the name.

## Permission denied

A 403 answer means the account lacks a global role for the operation.
""",
    ),
    "import/import-api.md": (
        "import",
        "Import API",
        """# Import API

The Import API loads many records from one JSON file in a single job.

## JSON format

Every entry has a resourceType, an identifier and attributes. Set continueOnError to keep going
after a bad entry.

## Job status

Poll the job until its state is COMPLETED or ERROR.
""",
    ),
}


def make_documents() -> list[Document]:
    return [
        Document(
            path=path,
            publication=pub,
            title=title,
            url=f"https://docs.acme.invalid/{path.removesuffix('.md')}",
            text=body,
            source="local",
        )
        for path, (pub, title, body) in PAGES.items()
    ]


def _slug(text: str) -> str:
    return "-".join("".join(ch if ch.isalnum() else " " for ch in text.lower()).split())


def make_chunks(documents: list[Document]) -> list[Chunk]:
    """One chunk per H2 section (and one for the text before the first H2)."""
    chunks: list[Chunk] = []
    for doc in documents:
        lines = doc.text.split("\n")
        starts = [i for i, line in enumerate(lines) if line.startswith("## ")]
        bounds = [0, *starts, len(lines)]
        for a, b in itertools.pairwise(bounds):
            body = "\n".join(lines[a:b]).strip()
            if not body:
                continue
            h2 = lines[a][3:].strip() if lines[a].startswith("## ") else ""
            heading = f"{doc.title} > {h2}" if h2 else doc.title
            anchor = _slug(h2 or doc.title)
            text = body if h2 else body.removeprefix(f"# {doc.title}").strip()
            chunk_id = hashlib.sha256(f"{doc.path}\n{heading}\n{text}".encode()).hexdigest()[:32]
            chunks.append(
                Chunk(
                    chunk_id=chunk_id,
                    file=doc.path,
                    publication=doc.publication,
                    title=doc.title,
                    heading=heading,
                    anchor=anchor,
                    url=f"{doc.url}#{anchor}",
                    line_start=a + 1,
                    line_end=b,
                    text=text,
                    embed_text=f"{heading}\n{text}",
                    is_code="```" in text,
                    cluster_tags=("security",) if "auth" in doc.path else (),
                    token_count=len(text.split()),
                )
            )
    return chunks


def build_search_bundle(output: Path, *, name: str | None = None) -> Path:
    """Write the tiny bundle to `output` and return it."""
    documents = make_documents()
    chunks = make_chunks(documents)
    embedder = load_embedder("hash")
    vectors = embedder.embed_documents([c.embed_text for c in chunks], progress=False)
    with BundleWriter(output, name=name) as writer:
        writer.write_mirror(documents)
        writer.write_chunks(chunks)
        writer.write_vectors(vectors)
        writer.set_section("keyword", write_keyword_index(chunks, writer.staging))
        try:
            from atlas_core.identifiers.extract.documents import write_identifier_table
        except ImportError:
            pass
        else:
            writer.set_section(
                "identifiers", write_identifier_table(documents, chunks, writer.staging)
            )
        model = embedder.stage(writer.staging / "model")
        return writer.commit(
            model=model,
            sources=[{"kind": "local", "path": "tests/search_fixtures.py"}],
            counts={"documents": len(documents)},
        )
