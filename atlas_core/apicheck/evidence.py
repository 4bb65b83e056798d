"""The docs as evidence in the API model: what ``identifiers/api_evidence.json`` (written at build
time by `atlas_core.identifiers.extract.api_evidence`) adds to the operations the spec files give.

- An operation a docs page's embedded spec defines replaces the spec file's definition when the
  page is newer (decided at build time: version, then date), or is added when no spec file has
  it; either way its findings name the page (`Operation.spec` is the page, `Operation.source`
  says what it was preferred over). A name only the older source has stays known: code written
  against it may still run, and precision comes first.
- A name a tutorial or example shows in use with an operation is one of its names (never
  "unknown", never rewritten); an endpoint a page shows in use exists (its keys unchecked).
- Disagreements and notices are kept for hover, ``atlas info`` and ``atlas diff``.

A bundle without the file gets the model it always had.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from atlas_core.apicheck.matching import locate, operation_of_call
from atlas_core.apicheck.model import (
    ApiModel,
    Disagreement,
    Notice,
    Operation,
    Spec,
    segments_of,
)
from atlas_core.recognize import BODY, QUERY
from atlas_core.types import Param

MAX_USES = 20_000


def merge_evidence(
    bundle: str,
    specs: Sequence[Spec],
    operations: Sequence[Operation],
    evidence: Mapping[str, Sequence[Mapping[str, Any]]],
) -> tuple[tuple[Spec, ...], list[Operation], list[Disagreement], list[Notice]]:
    """`specs` and `operations` of one bundle with its docs evidence applied."""
    all_specs = list(specs)
    ops = {(op.method, op.segments): op for op in operations}
    for d in evidence.get("definitions", ()):
        _define(bundle, d, ops, all_specs)
    model = ApiModel(tuple(all_specs), list(ops.values()))
    paging: dict[str, Param] = {}
    for use in list(evidence.get("uses", ()))[:MAX_USES]:
        added = _use(bundle, model, use, ops)
        if _PAGING_PAGE.search(str(use.get("page", ""))):
            paging.update((p.name, p) for p in added)
            paging.update((p.name, p) for p in _paging_style(str(use.get("page", ""))))
    _page_everywhere(paging, ops)
    disagreements = [_disagreement(d) for d in evidence.get("disagreements", ())]
    notices = [
        Notice(
            str(n.get("prefix", "")),
            str(n.get("page", "")),
            str(n.get("url", "")),
            str(n.get("text", "")),
        )
        for n in evidence.get("notices", ())
        if str(n.get("prefix", "")).startswith("/")
    ]
    return tuple(all_specs), list(ops.values()), disagreements, notices


def _define(
    bundle: str,
    d: Mapping[str, Any],
    ops: dict[tuple[str, tuple[str, ...]], Operation],
    specs: list[Spec],
) -> None:
    method, path = str(d.get("method", "")).upper(), str(d.get("path", ""))
    if not method or not path.startswith("/"):
        return
    key = (method, segments_of(path))
    old = ops.get(key)
    if old is not None and old.spec is not None and not d.get("wins", True):
        return  # the spec file is newer
    page, version = str(d.get("page", "")), str(d.get("version", ""))
    spec = Spec(
        publication="",
        title=str(d.get("title", "")) or "docs page",
        file=page,
        base_path=str(d.get("base_path", "")),
        version=version,
        url=str(d.get("url", "")),
    )
    if spec.base_path and all(s.base_path != spec.base_path for s in specs):
        specs.append(spec)
    source = f"the spec embedded in {page}" + (f" (version {version})" if version else "")
    if old is not None and old.spec is not None:
        source += f", newer than {old.spec.file}"
    params = _params(d.get("params"), "")
    body = _params(d.get("body"), BODY) if isinstance(d.get("body"), list) else None
    if old is not None:
        params = _union(params, old.params)
        if body is not None and old.body is not None:
            body = _union(body, old.body)
        elif body is None:
            body = old.body
    ops[key] = Operation(
        method=method,
        path=path,
        segments=key[1],
        params=params,
        body=body,
        body_schema=old.body_schema if old is not None else "",
        summary=str(d.get("summary", "")) or (old.summary if old is not None else ""),
        deprecated=bool(d.get("deprecated")),
        replacement=old.replacement if old is not None else "",
        file=page,
        line=int(d.get("line", 0) or 0),
        url=str(d.get("url", "")) or (old.url if old is not None else ""),
        spec=spec,
        bundle=bundle,
        operation_ids=tuple(
            dict.fromkeys(
                [
                    *([str(d["operation_id"])] if d.get("operation_id") else []),
                    *(old.operation_ids if old is not None else ()),
                ]
            )
        ),
        source=source,
    )


def _params(raw: Any, location: str) -> tuple[Param, ...]:
    out = []
    for p in raw if isinstance(raw, list) else ():
        if not isinstance(p, Mapping) or not p.get("name"):
            continue
        enum = p.get("enum")
        out.append(
            Param(
                name=str(p["name"]),
                location=location or str(p.get("in", "")),
                required=bool(p.get("required")),
                description=str(p.get("description", "")),
                enum=tuple(str(v) for v in enum) if isinstance(enum, list) else (),
                deprecated=bool(p.get("deprecated")),
            )
        )
    return tuple(out)


def _union(new: tuple[Param, ...], old: tuple[Param, ...]) -> tuple[Param, ...]:
    """`new`, then the names only `old` has (still known; only the newer source defines them)."""
    have = {(p.location, p.name) for p in new}
    return new + tuple(p for p in old if (p.location, p.name) not in have)


# A page about pagination shows its parameters on one operation as an example of all of them.
_PAGING_PAGE = re.compile(r"(?i)paginat")
_PAGED = frozenset({"offset", "limit"})
# A page on one style of paging is named for it, and so is that style's parameter
# (``cursor-based-pagination``: ``cursor``), even where the page's example shows only the others.
_PAGING_STYLE = re.compile(r"(?i)(?:^|/)([a-z]+)-based-paginat")


def _paging_style(page: str) -> tuple[Param, ...]:
    found = _PAGING_STYLE.search(page)
    if found is None or found.group(1).lower() in _PAGED:
        return ()
    shown = f"Not in the spec; the paging {page} describes."
    return (Param(name=found.group(1).lower(), location=QUERY, description=shown),)


def _page_everywhere(
    paging: dict[str, Param], ops: dict[tuple[str, tuple[str, ...]], Operation]
) -> None:
    """A query parameter a pagination page shows in use (``countLimit`` on ``GET /assets``) is a
    parameter of every operation paged by offset and limit: the page describes the paging, and
    the one call it shows is its example."""
    if not paging:
        return
    for key, op in list(ops.items()):
        names = {p.name for p in op.params if p.location == QUERY}
        if names >= _PAGED:
            extra = tuple(p for name, p in paging.items() if name not in names)
            if extra:
                ops[key] = replace(op, params=op.params + extra)


def _use(
    bundle: str,
    model: ApiModel,
    use: Mapping[str, Any],
    ops: dict[tuple[str, tuple[str, ...]], Operation],
) -> tuple[Param, ...]:
    """Apply one call the docs show; the query parameters it adds to a documented operation."""
    method, target = str(use.get("method", "")).upper(), str(use.get("target", ""))
    page, url = str(use.get("page", "")), str(use.get("url", ""))
    where = locate(model, target) if method and target else None
    if where is None:
        return ()
    found = operation_of_call(model, method, where.segments)
    op = found.operation
    shown = f"shown in use on {page}" + (f" ({url})" if url else "")
    if op is None:
        key = (method, where.segments)
        if key not in ops:
            ops[key] = Operation(
                method=method,
                path="/" + "/".join(where.segments),
                segments=where.segments,
                summary=shown,
                file=page,
                line=int(use.get("line", 0) or 0),
                url=url,
                bundle=bundle,
                source=f"a call {shown}",
            )
        return ()
    key = (op.method, op.segments)
    current = ops.get(key, op)
    query = _shown(use.get("query"), QUERY, current.params, shown)
    body = current.body
    if body is not None:
        body = body + _shown(use.get("body"), BODY, body, shown)
    if query or body is not current.body:
        ops[key] = replace(current, params=current.params + query, body=body)
    return query


def _shown(names: Any, location: str, have: tuple[Param, ...], shown: str) -> tuple[Param, ...]:
    known = {p.name for p in have if location == BODY or p.location == location}
    out = []
    for name in names if isinstance(names, list) else ():
        if isinstance(name, str) and name and name not in known:
            known.add(name)
            out.append(
                Param(name=name, location=location, description=f"Not in the spec; {shown}.")
            )
    return tuple(out)


def _disagreement(d: Mapping[str, Any]) -> Disagreement:
    return Disagreement(
        operation=str(d.get("operation", "")),
        name=str(d.get("name", "")),
        page_says=str(d.get("page_says", "")),
        file_says=str(d.get("file_says", "")),
        page=str(d.get("page", "")),
        url=str(d.get("url", "")),
        file=str(d.get("file", "")),
        follows=str(d.get("follows", "")),
    )
