"""Identifier entries of an OpenAPI spec's pages: what `lookup_identifier`, hover and the API
checks find by name.

An operation gets an `endpoint` entry (``GET /assets``) and, with an operationId, an `operation`
one; each of its parameters and inline body fields one at its table row; a schema one `schema`
entry and one `property` entry per field. Every entry points at its section's line and anchor and
carries the web address of the operation or schema.
"""

from __future__ import annotations

from typing import Any

from atlas_core.sources.openapi_model import Operation, SchemaInfo
from atlas_core.types import IdentifierEntry


def first_paragraph(text: str, cap: int = 400) -> str:
    from atlas_core.markdown import clean_gitbook as clean

    para = clean(text).strip().split("\n\n", 1)[0]
    para = " ".join(para.split())
    return para if len(para) <= cap else para[: cap - 1].rstrip() + "…"


def operation_entries(
    op: Operation, file: str, line: int, anchor: str, url: str, publication: str
) -> list[IdentifierEntry]:
    summary = op.summary
    detail = first_paragraph(op.description)
    if detail and detail.rstrip(".").lower() != summary.rstrip(".").lower():
        summary = f"{summary.rstrip('.')}. {detail}" if summary else detail
    common: dict[str, Any] = {
        "file": file,
        "line": line,
        "anchor": anchor,
        "url": url,
        "summary": summary,
        "publication": publication,
        "method": op.method,
        "path": op.path,
        "operation_id": op.operation_id,
        "params": tuple(op.params),
        "request_schema": op.request_schema,
        "response_schema": op.response_schema,
        "deprecated": op.deprecated,
        "replacement": op.replacement,
    }
    entries = [IdentifierEntry(name=f"{op.method} {op.path}", kind="endpoint", **common)]
    if op.operation_id:
        entries.append(IdentifierEntry(name=op.operation_id, kind="operation", **common))
    return entries


def parameter_entries(
    op: Operation,
    file: str,
    rows: dict[tuple[int, str, str], int],
    item: int,
    anchor: str,
    url: str,
    publication: str,
) -> list[IdentifierEntry]:
    """One `parameter` entry per path, query, header or cookie parameter of `op`, one
    `property` entry per field of its inline request body, each at its table row; `url` is the
    operation's."""
    entries: list[IdentifierEntry] = []
    for p in op.params:
        if p.location == "body" and p.name == "body":
            continue  # a named body type: its properties are the schema's entries
        line = rows.get((item, p.location, p.name))
        if line is None:
            continue
        entries.append(
            IdentifierEntry(
                name=p.name,
                kind="property" if p.location == "body" else "parameter",
                file=file,
                line=line,
                anchor=anchor,
                url=url,
                summary=first_paragraph(p.description),
                publication=publication,
                method=op.method,
                path=op.path,
                operation_id=op.operation_id,
                params=(p,),
                deprecated=op.deprecated,
            )
        )
    return entries


def schema_entries(
    schema: SchemaInfo,
    file: str,
    rows: dict[tuple[int, str, str], int],
    item: int,
    line: int,
    anchor: str,
    url: str,
    publication: str,
) -> list[IdentifierEntry]:
    """The `schema` entry of the `item`-th schema on the page, then one `property` entry per
    field, each at its table row (the section's line when the row is not found)."""
    return [
        IdentifierEntry(
            name=schema.name,
            kind="schema",
            file=file,
            line=line,
            anchor=anchor,
            url=url,
            summary=first_paragraph(schema.description),
            publication=publication,
            params=tuple(schema.properties),
            deprecated=schema.deprecated,
        ),
        *(
            IdentifierEntry(
                name=p.name,
                kind="property",
                file=file,
                line=rows.get((item, p.location, p.name), line),
                anchor=anchor,
                url=url,
                summary=first_paragraph(p.description),
                publication=publication,
                params=(p,),
                owner=schema.name,
            )
            for p in schema.properties
        ),
    ]
