"""`Engine.describe`: the one composition of a name's answers that the hover and MCP's
`lookup_identifier` render, at a cursor and for a name asked for by hand."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from atlas_core.engine import DescribeContext, Engine
from atlas_core.recognize import RecognizerSet


@pytest.fixture(scope="module")
def engine(hash_bundle: Path) -> Iterator[Engine]:
    with Engine.open(hash_bundle) as opened:
        yield opened


def _at_cursor(engine: Engine, line: str, word: str, language: str = "python") -> DescribeContext:
    resolution = engine.resolve_at(
        [line], 0, line.index(word) + 1, language, RecognizerSet.default()
    )
    assert resolution is not None, line
    return DescribeContext(resolution=resolution, usages=4)


def test_a_name_by_hand_describes_every_candidate_with_its_section(engine: Engine) -> None:
    described = engine.describe("findAssets", DescribeContext(limit=5, usages=3, sections=True))
    assert described.candidates == tuple(engine.resolve("findAssets", 5))
    assert described.subject == described.candidates[0]
    assert described.source is None and described.resolution is None
    assert described.sections == tuple(
        engine.section_at(c.bundle, c.file, c.line) for c in described.candidates
    )
    assert described.sections[0].heading  # a page's section, not the bare line
    assert len(described.usages) == len(described.candidates)  # a docs bundle: none of them
    assert described.deprecation is None  # each candidate carries its own flags


def test_a_name_by_hand_reads_nothing_it_was_not_asked_for(engine: Engine) -> None:
    described = engine.describe("findAssets", DescribeContext(limit=3, definitions=0))
    assert described.sections == () and described.definitions == ()
    assert all(uses == () for uses in described.usages)


def test_at_a_cursor_the_subject_is_described_with_its_deprecation(engine: Engine) -> None:
    context = _at_cursor(engine, "legacy = api.getVocabulary(domain_id)", "getVocabulary")
    described = engine.describe("getVocabulary", context)
    assert context.resolution is not None
    assert described.candidates == context.resolution.candidates
    assert described.subject is not None and described.subject.name == "getVocabulary"
    subject = described.subject
    assert subject.deprecated and subject.replacement == "getDomain"
    # The docs' list is asked for the subject's names (a hover shows either).
    assert described.deprecation == engine.deprecation_of(subject.name, subject.operation_id)
    assert len(described.usages) == 1  # the subject's only
    assert described.definitions == ()  # an operation: no parameter definitions read


def test_an_unknown_name_is_described_as_not_found(engine: Engine) -> None:
    described = engine.describe("noSuchOperationAnywhere", DescribeContext(sections=True))
    assert not described.found
    assert described.subject is None and described.sections == () and described.usages == ()
