"""Client code held against the documented API: the model of the operations the bundles'
specs and docs describe (built on first use), the findings in a document's calls or in one
request, and where an open project's code calls each operation (its usages).

What these need loads on first use of one of them: a docs-only engine answering its first hover
builds no spec model and imports no code chunker."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atlas_core.engine.inputs import cleaned
from atlas_core.engine.parts import load_once
from atlas_core.errors import AtlasError, QueryError
from atlas_core.search import MAX_LIMIT, clamp_count
from atlas_core.types import ApiFinding, Usage

if TYPE_CHECKING:
    from atlas_core.apicheck import ApiModel, Operation
    from atlas_core.engine.parts import OpenBundle, OpenBundles
    from atlas_core.recognize import CallSite, Located


class ApiChecks:
    """The API model of the open documentation bundles and what is checked against it."""

    def __init__(self, bundles: OpenBundles, mirror_path: Callable[[str, str], Path]) -> None:
        self.bundles = bundles
        self._mirror_path = mirror_path
        self._api: ApiModel | None = None
        self._usages: dict[tuple[str, str], list[Usage]] | None = None
        self._lock = threading.Lock()

    def model(self) -> ApiModel:
        return load_once(self, "_api", self._lock, self._build_model)

    def _build_model(self) -> ApiModel:
        from atlas_core.apicheck import ApiModel, build_model, merge_evidence
        from atlas_core.identifiers import TABLE_DIR, read_api_evidence

        specs: list[Any] = []
        operations: list[Any] = []
        disagreements: list[Any] = []
        notices: list[Any] = []
        for _, part in self.bundles.documented:
            ids = part.identifiers()

            def page_url(relpath: str, part: OpenBundle = part) -> str:
                try:
                    return self._mirror_path(part.name, relpath).as_uri() if relpath else ""
                except (AtlasError, ValueError):
                    return ""

            found = build_model(
                part.name, part.bundle.manifest, ids.endpoint_rows(), ids.schema_params, page_url
            )
            # What the bundle's docs pages say beside its specs (none in bundles built before).
            evidence = read_api_evidence(part.bundle.path / TABLE_DIR)
            found = merge_evidence(part.name, *found, evidence)
            disagreements.extend(found[2])
            notices.extend(found[3])
            specs.extend(found[0])
            known = {(op.method, op.segments) for op in operations}
            operations.extend(op for op in found[1] if (op.method, op.segments) not in known)
        return ApiModel(tuple(specs), operations, tuple(disagreements), tuple(notices))

    def operation(self, method: str, url: str) -> Operation | None:
        from atlas_core.apicheck import locate, operation_of_call

        model = self.model()
        where = locate(model, url) if model else None
        if where is None:
            return None
        return operation_of_call(model, method, where.segments).operation

    def usages(self, method: str, path: str, limit: int) -> list[Usage]:
        if not isinstance(method, str) or not isinstance(path, str):
            return []
        limit = clamp_count(limit, "limit", MAX_LIMIT)
        usages = self._usages
        if usages is None:
            # Without docs beside a project there are no usages, and the API model (~0.2 s at
            # 12,500 endpoints) is not built for them.
            projects = self.bundles.projects_beside_docs()
            if projects:
                self.model()  # built first: it takes the same lock
            usages = load_once(self, "_usages", self._lock, lambda: self._find_usages(projects))
        return usages.get((method.strip().upper(), path.strip()), [])[:limit]

    def _find_usages(self, projects: list[OpenBundle]) -> dict[tuple[str, str], list[Usage]]:
        """Every API call the `projects` bundles' chunks recorded, resolved against the docs.
        Imported here: a docs-only engine (a language server's first hover) never imports the
        code chunker."""
        if not projects:
            return {}
        from atlas_core.sources import parse_call, qualified_name

        found: dict[tuple[str, str], list[Usage]] = {}
        seen: set[tuple[str, str, int]] = set()
        for part in projects:
            c = part.table().cols
            for row, calls in enumerate(c["calls"]):
                for entry in calls or ():
                    call = parse_call(entry)
                    if call is None:
                        continue
                    line, method, url = call
                    operation = self.operation(method, url)
                    file = c["file"][row]
                    if operation is None or (part.name, file, line) in seen:
                        continue
                    seen.add((part.name, file, line))
                    usage = Usage(
                        file=file,
                        line=line,
                        method=operation.method,
                        path=operation.path,
                        symbol=qualified_name(c["parent"][row] or "", c["symbol"][row] or ""),
                    )
                    found.setdefault((operation.method, operation.path), []).append(
                        self.bundles.tag(usage, part)
                    )
        for usages in found.values():
            usages.sort(key=lambda u: (u.bundle, u.file, u.line))
        return found

    def check_code(
        self,
        text: str,
        language: str,
        sites: Sequence[Located] | None,
        read_site: Callable[[int, int], CallSite | None] | None,
    ) -> list[ApiFinding]:
        from atlas_core.apicheck import check_client_calls, check_located, shows_collibra
        from atlas_core.recognize import CallReader, looks_generated, scan_calls

        if not isinstance(text, str) or not isinstance(language, str):
            raise QueryError("check_code takes the document text and its language id")
        model = self.model()
        if not model or looks_generated(text):
            return []  # generated code follows its own spec: no diagnostic rather than a guess
        lines = text.split("\n")
        found = list(sites) if sites is not None else scan_calls(text, language)
        findings = check_located(
            model,
            found,
            lambda n: lines[n] if 0 <= n < len(lines) else "",
            unshown_bases=shows_collibra(model, text),
        )
        reader = CallReader(capacity=1)  # parses the text once for every call it confirms

        def read_here(line: int, column: int) -> CallSite | None:
            return reader.read("memory:", text, None, language, line, column)

        findings += check_client_calls(model, text, read_site or read_here)
        findings.sort(key=lambda f: (f.line, f.start))
        return findings

    def check_request(
        self, method: str, path: str, params: Mapping[str, Any] | None, body: Any
    ) -> list[ApiFinding]:
        from atlas_core.apicheck import check_request

        if not isinstance(method, str) or not isinstance(path, str) or not path.strip():
            raise QueryError(
                "a request needs a method and a path",
                hint="pass e.g. method='GET', path='/rest/2.0/assets'",
            )
        if params is not None and not isinstance(params, Mapping):
            raise QueryError("params must be an object of query parameter names to values")
        verb = cleaned(method.upper(), limit=16, gaps="")
        return check_request(self.model(), verb, cleaned(path, gaps=""), params, body)[1]
