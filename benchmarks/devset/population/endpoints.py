"""Population rules of the `path` and `operation` classes."""

from __future__ import annotations

from collections import Counter, defaultdict

from benchmarks.devset.corpus import Corpus
from benchmarks.devset.population.member import Member, by_weight, dedupe
from benchmarks.devset.population.spellings import (
    called_path_spellings,
    operation_spellings,
    path_spellings,
    tag_receiver,
)
from benchmarks.devset.written import api_pages_of, template_re


def path_members(c: Corpus) -> list[Member]:
    calls_by_op: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    matched: set[int] = set()
    for op in c.ops:
        pattern = template_re(c.spec(op.stem).base + op.path)
        for i, (verb, url, file) in enumerate(c.calls):
            if verb == op.method and pattern.match(url):
                calls_by_op[(op.stem, op.method, op.path)].add(file)
                matched.add(i)
    members: list[Member] = []
    for op in c.ops:
        client = c.written.client_ops.get(op.key) if op.stem == "dgc-rest" else None
        expected = dedupe(
            [
                client[1] if client else "",
                *api_pages_of(op, c.written),
                op.page,
                *sorted(calls_by_op[(op.stem, op.method, op.path)]),
            ]
        )
        members.append(
            Member(
                "path",
                f"{op.method} {op.path}",
                "import-api" if op.stem != "dgc-rest" else "core",
                expected,
                path_spellings(op.method, op.path, c.spec(op.stem).base),
                f"spec:{op.stem} {op.method} {op.path}",
            )
        )
    extra: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for i, (verb, url, file) in enumerate(c.calls):
        if i not in matched:
            extra[(verb, url.rstrip("."))][file] += 1
    for (verb, url), files in sorted(extra.items()):
        members.append(
            Member(
                "path",
                f"{verb} {url}",
                "corpus-only",
                by_weight(dict(files)),
                called_path_spellings(verb, url),
                f"markdown:call example {verb} {url}",
            )
        )
    return members


def operation_members(c: Corpus) -> list[Member]:
    by_name: dict[str, Member] = {}
    for op in c.ops:
        if not op.operation_id:
            continue
        client = c.written.client_ops.get(op.key) if op.stem == "dgc-rest" else None
        api = api_pages_of(op, c.written)
        verbatim = [f for f in api if f'"operationId":"{op.operation_id}"' in c.pages[f].text]
        expected = dedupe([*verbatim, op.page, client[1] if client else "", *api])
        name = op.operation_id
        member = by_name.setdefault(
            name,
            Member(
                "operation",
                name,
                "operationId",
                [],
                operation_spellings(name, tag_receiver(op.tag)),
                f"spec:{op.stem} {op.method} {op.path} operationId",
            ),
        )
        member.expected = dedupe([*member.expected, *expected])
    spec_ops = {op.key: op for op in c.ops if op.stem == "dgc-rest"}
    for key, (name, file) in sorted(c.written.client_ops.items()):
        op = spec_ops.get(key)
        expected = dedupe([file, *([op.page, *api_pages_of(op, c.written)] if op else [])])
        member = by_name.setdefault(
            name,
            Member(
                "operation",
                name,
                "python-client",
                [],
                operation_spellings(name, "api_instance"),
                f"markdown:{file} client method ({key[0]} {key[1]})",
            ),
        )
        member.expected = dedupe([*member.expected, *expected])
    return list(by_name.values())
