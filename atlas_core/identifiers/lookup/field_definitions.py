"""Parameter and property definitions of a name in an opened identifier table: which
operation or schema defines it, where, with what type, most common meaning first."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from atlas_core.identifiers.spelling import compact, path_key, strip_path
from atlas_core.identifiers.store.table import OWNED_KINDS
from atlas_core.identifiers.store.table_reader import StoredTable, record_params
from atlas_core.search import MAX_LIMIT, MAX_QUERY_CHARS, clamp_count
from atlas_core.types import Definition, Param

# Rows of one name read for its definitions: `id` or `name` is a property of hundreds of schemas,
# and no list a person reads needs more.
MAX_DEFINITION_ROWS = 200
MAX_CACHED_DEFINITIONS = 20_000  # decoded definitions kept (a few MB at most)
MAX_REMEMBERED_ANSWERS = 1024  # lookup and definitions answers kept, the oldest dropped first


class FieldDefinitions(StoredTable):
    """`definitions` of a name, and the memory of answers that `lookup` shares."""

    def __init__(self, directory: Path, meta: dict[str, Any]) -> None:
        super().__init__(directory, meta)
        # Decoded definitions by row: a hover inside a call asks for the same common names
        # (`limit`, `offset`, `name`: up to 200 rows each) again and again.
        self._definition_cache: dict[int, Definition] = {}
        # Answers of `lookup` and `definitions` by their arguments (insertion order: oldest first).
        self._answers: dict[tuple, tuple] = {}

    def definitions(
        self,
        name: str,
        *,
        method: str = "",
        path: str = "",
        schema: str = "",
        limit: int = 50,
    ) -> list[Definition]:
        """`_definitions`, remembered as `lookup` is."""
        key = ("definitions", name, method, path, schema, limit)
        found = self._answers.get(key)
        if found is None:
            found = self._remember(
                key, self._definitions(name, method=method, path=path, schema=schema, limit=limit)
            )
        return list(found)

    def _remember(self, key: tuple, answer: list) -> tuple:
        if len(self._answers) >= MAX_REMEMBERED_ANSWERS:
            self._answers.pop(next(iter(self._answers)))  # the oldest
        found = self._answers[key] = tuple(answer)
        return found

    def _definitions(
        self,
        name: str,
        *,
        method: str = "",
        path: str = "",
        schema: str = "",
        limit: int = 50,
    ) -> list[Definition]:
        """The parameter and property definitions of `name`, most common meaning first.

        `name` is matched exactly and by its compact key (``name_match_mode`` finds
        ``nameMatchMode``). `method` and `path` keep one operation's own parameters and the
        properties of its request and response schemas; `schema` keeps that schema's properties.
        Each definition's `meaning` counts the definitions sharing its kind, location and JSON
        type; groups come largest first, in table order within a group. At most
        `MAX_DEFINITION_ROWS` rows of a name are read."""
        limit = clamp_count(limit, "limit", MAX_LIMIT, strict=False)
        query = (name or "").strip()[:MAX_QUERY_CHARS]
        key = compact(query)
        if not key or not self.count:
            return []
        owned = {self._kind_names.index(k) for k in OWNED_KINDS if k in self._kind_names}
        if not owned:
            return []  # a table written before parameters and properties were
        rows = [r for r in self._rows_named(query) if self._kinds[r] in owned]
        rows += [r for r in self._rows("search", key) if self._kinds[r] in owned and r not in rows]
        found = [self._definition(row) for row in rows[:MAX_DEFINITION_ROWS]]
        if method or path or schema:
            schemas = {schema} if schema else set()
            if path:
                schemas |= self._operation_schemas(method, path)
            template = path_key(strip_path(path)[1]) if path else ""
            found = [
                d
                for d in found
                if (d.owner and d.owner in schemas)
                or (
                    template
                    and path_key(d.path) == template
                    and (not method or d.method == method.upper())
                )
            ]
        meaning = Counter(_meaning(d) for d in found)
        found.sort(key=lambda d: -meaning[_meaning(d)])  # stable: table order within a meaning
        return [replace(d, meaning=meaning[_meaning(d)]) for d in found[:limit]]

    def _definition(self, row: int) -> Definition:
        cached = self._definition_cache.get(row)
        if cached is None:
            if len(self._definition_cache) >= MAX_CACHED_DEFINITIONS:
                self._definition_cache.clear()
            cached = self._definition_cache[row] = self._decode_definition(row)
        return cached

    def _decode_definition(self, row: int) -> Definition:
        rec = self.record(row)
        params = record_params(rec)
        p = params[0] if params else Param(self._names[row], "")
        return Definition(
            name=self._names[row],
            kind=self.kind(row),
            location=p.location,
            type=p.type,
            required=p.required,
            description=p.description,
            file=rec["file"],
            line=rec["line"],
            format=p.format,
            enum=p.enum,
            default=p.default,
            owner=rec.get("owner", ""),
            method=rec.get("method", ""),
            path=rec.get("path", ""),
            operation_id=rec.get("operation_id", ""),
            anchor=rec.get("anchor", ""),
            url=rec.get("url", ""),
            publication=rec.get("publication", ""),
            example=p.example,
            deprecated=p.deprecated,
        )

    def _operation_schemas(self, method: str, path: str) -> set[str]:
        """The request and response schemas of the endpoints `method` and `path` name."""
        key = path_key(strip_path(path)[1])
        rows = self._rows("path", f"{method.upper()} {key}" if method else key)
        out: set[str] = set()
        for row in rows[:MAX_DEFINITION_ROWS]:
            rec = self.record(row)
            out.update(filter(None, (rec.get("request_schema"), rec.get("response_schema"))))
        return out


# A generated client's type names for the spec's JSON types: `str` and `string` mean the same.
_TYPE_FAMILIES = {"str": "string", "int": "integer", "bool": "boolean", "float": "number"}


def _meaning(d: Definition) -> tuple[str, str, str]:
    """What a definition means, apart from its owner: kind, location and JSON type (a spec's
    `string (uuid)` and a client's `str` are one meaning)."""
    family = d.type.split(" ", 1)[0].split("[", 1)[0].lower()
    return (d.kind, d.location, _TYPE_FAMILIES.get(family, family))
