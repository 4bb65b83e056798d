"""Identifier questions over the documentation bundles: where a name is documented, what a
parameter means, workspace symbols, endpoint completion and deprecations. Each bundle answers
from its identifier table; the answers are merged best first, each under its bundle's name."""

from __future__ import annotations

from atlas_core.engine.inputs import cleaned
from atlas_core.engine.parts import OpenBundles
from atlas_core.errors import QueryError
from atlas_core.identifiers import one_per_subject
from atlas_core.search import MAX_LIMIT, clamp_count
from atlas_core.types import Candidate, Definition, Deprecation, Symbol


class IdentifierQueries:
    """The identifier tables of the open bundles, asked together."""

    def __init__(self, bundles: OpenBundles) -> None:
        self.bundles = bundles

    def lookup(self, identifier: str, limit: int) -> list[Candidate]:
        if not isinstance(identifier, str) or not identifier.strip():
            raise QueryError(
                "empty identifier", hint="pass an endpoint, operation, type or JSON key name"
            )
        text = cleaned(identifier)
        limit = clamp_count(limit, "limit", MAX_LIMIT)
        merged: list[tuple[int, Candidate]] = []
        for index, part in self.bundles.documented:
            for candidate in part.identifiers().lookup(text, limit):
                merged.append((index, self.bundles.tag(candidate, part)))
        merged.sort(key=lambda item: (-item[1].confidence, item[0]))
        return [candidate for _, candidate in merged[:limit]]

    def definitions(
        self, name: str, method: str, path: str, schema: str, limit: int
    ) -> list[Definition]:
        if not isinstance(name, str):
            raise QueryError(f"parameter name must be text, got {type(name).__name__}")
        limit = clamp_count(limit, "limit", MAX_LIMIT)
        text = cleaned(name)
        if not text or not all(isinstance(v, str) for v in (method, path, schema)):
            return []
        where = {
            "method": cleaned(method, limit=16, gaps=""),
            "path": cleaned(path, gaps=""),
            "schema": cleaned(schema, gaps=""),
        }
        if any(
            given and not where[key]
            for key, given in zip(where, (method, path, schema), strict=True)
        ):
            return []  # a restriction of nothing but control characters restricts to nothing
        merged: list[tuple[int, int, Definition]] = []
        for index, part in self.bundles.documented:
            for order, found in enumerate(
                part.identifiers().definitions(text, **where, limit=limit)
            ):
                merged.append((order, index, self.bundles.tag(found, part)))
        # Each bundle's list is already most common meaning first; several interleave by rank.
        merged.sort(key=lambda item: (-item[2].meaning, item[0], item[1]))
        return [found for _, _, found in merged[:limit]]

    def symbols(self, query: str, limit: int, project: bool) -> list[Symbol]:
        if not isinstance(query, str):
            raise QueryError(f"symbol query must be text, got {type(query).__name__}")
        text = cleaned(query)
        limit = clamp_count(limit, "limit", MAX_LIMIT)
        merged: list[tuple[int, Symbol]] = []
        # Room for the pages of one subject that `one_per_subject` folds away.
        wanted = min(limit * 2, MAX_LIMIT)
        parts = enumerate(self.bundles.parts) if project else self.bundles.documented
        for index, part in parts:
            for symbol in part.identifiers().symbols(text, wanted):
                merged.append((index, self.bundles.tag(symbol, part)))
        merged.sort(key=lambda item: (-item[1].score, item[0]))
        return one_per_subject([symbol for _, symbol in merged], limit)

    def endpoints(self, prefix: str, limit: int) -> list[Candidate]:
        limit = clamp_count(limit, "limit", MAX_LIMIT)
        text = cleaned(prefix or "")
        out: list[Candidate] = []
        for _, part in self.bundles.documented:
            for candidate in part.identifiers().endpoints(text, limit):
                out.append(self.bundles.tag(candidate, part))
        return out[:limit]

    def deprecations(self) -> list[Deprecation]:
        out: list[Deprecation] = []
        for _, part in self.bundles.documented:
            out.extend(part.identifiers().deprecations())
        return out
