"""Definitions down to parameters: every parameter and property of a spec, and the definition
tables, JSON examples and model pages of markdown, become entries tied to their owner; the table
keeps them readable by older readers; `Engine.definitions` reads them back, most common meaning
first; spec HTML becomes markdown."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from atlas_core.engine import Engine
from atlas_core.identifiers.extract.pages import extract_document
from atlas_core.identifiers.store.checks import checked_record
from atlas_core.identifiers.store.table import KIND_ORDER
from atlas_core.identifiers.store.table_reader import record_params
from atlas_core.markdown.html import spec_inline, spec_markdown
from atlas_core.sources import load_sources
from atlas_core.types import Document, IdentifierEntry
from tests.parameter_fixtures import PAGES, build_teapot_bundle, write_spec

RAW_TAG = re.compile(r"</?(?:b|i|code|p|br|ul|li|a|span|u|tt)\b[^>]*>", re.IGNORECASE)


@pytest.fixture(scope="module")
def spec_docs(tmp_path_factory: pytest.TempPathFactory) -> list[Document]:
    return load_sources([f"openapi={write_spec(tmp_path_factory.mktemp('spec'))}"]).documents


@pytest.fixture(scope="module")
def owned(spec_docs: list[Document]) -> dict[tuple[str, str, str], IdentifierEntry]:
    """Parameter and property entries by (name, operation or owner, kind)."""
    out = {}
    for doc in spec_docs:
        for e in doc.identifiers:
            if e.kind in ("parameter", "property"):
                out[(e.name, e.owner or f"{e.method} {e.path}", e.kind)] = e
    return out


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    return Engine.open(build_teapot_bundle(tmp_path_factory.getbasetemp()))


# --- OpenAPI ------------------------------------------------------------------------------------


def test_every_parameter_is_an_entry_of_its_operation(owned) -> None:
    mode = owned[("nameMatchMode", "GET /pots", "parameter")]
    assert (mode.operation_id, mode.file) == ("findPots", "teapot-api/pots.md")
    (p,) = mode.params
    assert (p.location, p.type, p.required) == ("query", "string", False)
    assert p.enum == ("START", "END", "ANYWHERE", "EXACT") and p.default == "ANYWHERE"
    assert p.description == "The match mode used to compare `name`.\n\nUse **EXACT** for one pot."
    assert ("nameMatchMode", "GET /kettles", "parameter") in owned

    limit = owned[("limit", "GET /pots", "parameter")].params[0]  # a $ref parameter
    assert (limit.type, limit.format, limit.default) == ("integer (int32)", "int32", "100")
    trace = owned[("X-Trace", "GET /pots", "parameter")].params[0]
    assert (trace.location, trace.format, trace.description) == (
        "header",
        "uuid",
        "A trace id\nfor the logs",
    )
    assert owned[("session", "GET /pots", "parameter")].params[0].location == "cookie"
    pot_id = owned[("potId", "PATCH /pots/{potId}", "parameter")].params[0]  # path-level
    assert (pot_id.location, pot_id.required) == ("path", True)


def test_body_and_schema_properties_follow_refs_and_allof(owned) -> None:
    colour = owned[("colour", "PATCH /pots/{potId}", "property")]  # an inline request body
    assert colour.owner == "" and colour.operation_id == "changePot"
    assert (colour.params[0].required, colour.params[0].enum) == (True, ("RED", "BLUE"))
    assert colour.params[0].description == "The new *colour*"
    assert owned[("sizeLitres", "PATCH /pots/{potId}", "property")].params[0].default == "1.5"

    # AddPotRequest = allOf [PotBase $ref, {capacity}]: PotBase's properties are its own too,
    # required as PotBase says; a $ref to an enum schema gives its values.
    name = owned[("name", "AddPotRequest", "property")]
    assert name.file == "teapot-api/schemas.md" and name.anchor == "addpotrequest"
    assert name.params[0].required
    assert name.params[0].description == (
        "The name of the pot; see [naming](https://pot.example.test/names)."
    )
    assert owned[("status", "AddPotRequest", "property")].params[0].enum == ("FULL", "EMPTY")
    capacity = owned[("capacity", "AddPotRequest", "property")].params[0]
    assert (capacity.type, capacity.format) == ("integer (int64)", "int64")
    assert capacity.description == "- in litres\n- whole"
    assert ("name", "Pot", "property") in owned and ("id", "Pot", "property") in owned
    # A named body is its schema's properties, not a parameter of the operation.
    assert not any(key[1] == "POST /pots" for key in owned)


def test_entries_point_at_their_table_rows(spec_docs, owned) -> None:
    texts = {doc.path: doc.text.split("\n") for doc in spec_docs}
    for e in owned.values():
        row = texts[e.file][e.line - 1]
        assert row.startswith(f"| `{e.name}` |"), (e.name, row)
    row = texts["teapot-api/pots.md"][owned[("nameMatchMode", "GET /pots", "parameter")].line - 1]
    assert "Values: `START`, `END`, `ANYWHERE`, `EXACT`. Default: `ANYWHERE`." in row


def test_examples_and_deprecations_reach_entries_and_pages(spec_docs, owned) -> None:
    # A parameter's own example describes its use and wins over its schema's.
    limit = owned[("limit", "GET /pots", "parameter")].params[0]
    assert (limit.default, limit.example) == ("100", "25")
    assert owned[("name", "AddPotRequest", "property")].params[0].example == "Brown Betty"
    session = owned[("session", "GET /pots", "parameter")].params[0]
    assert (
        session.deprecated and not owned[("X-Trace", "GET /pots", "parameter")].params[0].deprecated
    )

    texts = {doc.path: doc.text.split("\n") for doc in spec_docs}
    pots = texts["teapot-api/pots.md"]
    row = pots[owned[("limit", "GET /pots", "parameter")].line - 1]
    assert row.endswith("At most this many results. Default: `100`. Example: `25`. |"), row
    row = pots[owned[("session", "GET /pots", "parameter")].line - 1]
    assert row.endswith("| **Deprecated.** |"), row
    page = "\n".join(pots)
    # A request's and a response's example (an Example Object's value), compact JSON.
    assert 'Example request: `{"name": "Brown Betty", "capacity": 2}`' in page
    assert 'Example response (200): `{"results": [{"name": "Brown Betty"}]}`' in page
    schemas = "\n".join(texts["teapot-api/schemas.md"])
    assert (
        'Example: `{"id": "6f1c0d0e-0000-4000-8000-00000000beef", "name": "Brown Betty"}`'
        in schemas
    )


def test_no_raw_html_reaches_pages_or_entries(spec_docs) -> None:
    for doc in spec_docs:
        assert not RAW_TAG.search(doc.text), doc.path
        for e in doc.identifiers:
            for p in e.params:
                assert not RAW_TAG.search(p.description), (e.name, p.description)


# --- markdown -----------------------------------------------------------------------------------


def _page(path: str) -> Document:
    text = PAGES[path]
    title = path
    if text.startswith("---\n"):
        head, _, text = text[4:].partition("\n---\n")
        title = head.split('"')[1]
    return Document(path=path, publication=path.split("/")[0], title=title, url="", text=text)


def _found(path: str) -> dict[tuple[str, str], IdentifierEntry]:
    return {(f.entry.name, f.entry.kind): f.entry for f in extract_document(_page(path))}


def test_client_parameter_tables_belong_to_their_operation() -> None:
    found = _found("client/pots-api.md")
    mode = found[("name_match_mode", "parameter")]
    assert (mode.method, mode.path, mode.operation_id) == ("GET", "/pots", "find_pots")
    (p,) = mode.params
    assert (p.type, p.required, p.default) == ("str", False, "ANYWHERE")
    assert p.description == "The match mode used to compare `name`."
    assert mode.anchor == "parameters" and PAGES["client/pots-api.md"].split("\n")[
        mode.line - 1
    ].lstrip().startswith("**name_match_mode**")
    assert found[("pot_id", "parameter")].params[0].required  # no [optional] in its notes


def test_model_pages_define_their_type_and_its_properties() -> None:
    found = _found("models/pot-request.md")
    assert ("PotRequest", "schema") in found
    temperature = found[("brew_temperature", "property")]
    assert temperature.owner == "PotRequest" and temperature.params[0].type == "int"
    assert found[("spout", "property")].params[0].required
    # A page titled by a type name with no H1 documents that type.
    kettle = _found("models/kettle-status.md")[("KettleStatus", "type")]
    assert kettle.line == 1


def test_field_tables_and_json_examples_in_an_operation_section() -> None:
    found = _found("guides/pouring.md")
    cups = found[("cupCount", "property")]
    assert (cups.method, cups.path, cups.anchor) == ("POST", "/pots/{potId}/pour", "pour-a-cup")
    assert PAGES["guides/pouring.md"].split("\n")[cups.line - 1].strip().startswith('"cupCount"')
    poured = found[("pouredMillilitres", "property")]
    # A sibling section after the operation's is not the operation's.
    assert (poured.method, poured.params[0].type) == ("", "integer")
    names = {name for name, kind in found if kind == "property"}
    assert "unrelatedSetting" not in names  # a JSON block outside any operation's section
    assert "not a name" not in names and "Field" not in names


# --- the table and the reader -------------------------------------------------------------------


def test_new_kinds_are_appended_and_records_stay_readable(engine: Engine) -> None:
    assert KIND_ORDER[:8] == (
        "endpoint",
        "operation",
        "schema",
        "type",
        "json_key",
        "cli",
        "graphql",
        "heading",
    )
    directory = Path(engine.bundles[0].path) / "identifiers"
    meta = json.loads((directory / "meta.json").read_text())
    assert meta["kinds"][8:] == ["parameter", "property", "function", "method", "class"]
    assert meta["kind_counts"]["parameter"] and meta["kind_counts"]["function"] == 0
    records = [json.loads(line) for line in (directory / "records.jsonl").read_text().splitlines()]
    detailed = [r for r in records if "param_details" in r]
    assert detailed
    for record in records:
        # What readers written before param_details check: five-field params, text fields.
        assert all(len(p) == 5 for p in record.get("params", []))
        checked_record(record)
    with pytest.raises(ValueError, match="param_details"):
        checked_record({**detailed[0], "param_details": [{"enum": [1]}]})
    with pytest.raises(ValueError, match="param_details"):
        checked_record({**detailed[0], "param_details": [{"example": 25}]})
    # The example is read back; a record written before examples reads as having none.
    (limit,) = [r for r in detailed if len(r["params"]) == 1 and r["params"][0][0] == "limit"]
    assert record_params(limit)[0].example == "25"
    older = {
        **limit,
        "param_details": [{k: v for k, v in limit["param_details"][0].items() if k != "example"}],
    }
    assert record_params(checked_record(older))[0] == replace(record_params(limit)[0], example="")


def test_definitions_most_common_meaning_first(engine: Engine) -> None:
    found = engine.definitions("nameMatchMode")
    labels = [d.owner_label for d in found]
    assert labels.count("query parameter of GET /pots") == 2  # the spec's and the client's
    assert "query parameter of GET /kettles" in labels
    assert all(d.meaning == 3 for d in found)  # `string` and the client's `str` mean the same
    spec = next(d for d in found if d.file == "teapot-api/kettles.md")
    assert spec.enum == ("START", "END", "ANYWHERE", "EXACT") and spec.default == "ANYWHERE"

    # `name`: a property of three schemas first, then the query parameter of one operation.
    names = engine.definitions("name")
    assert [d.kind for d in names] == ["property"] * 3 + ["parameter"]
    assert (names[0].meaning, names[-1].meaning) == (3, 1)
    # The client's snake_case finds the wire name and the other way round.
    assert {d.file for d in engine.definitions("name_match_mode")} == {d.file for d in found}


def test_definitions_of_one_operation_or_schema(engine: Engine) -> None:
    (kettles,) = engine.definitions("nameMatchMode", method="GET", path="/rest/2.0/kettles")
    assert kettles.operation_id == "findKettles"
    # An operation's request schema holds its body properties.
    (body,) = engine.definitions("capacity", method="POST", path="/pots")
    assert body.owner == "AddPotRequest" and body.owner_label == "property of AddPotRequest"
    assert {d.owner for d in engine.definitions("name", schema="Pot")} == {"Pot"}
    assert engine.definitions("colour", method="GET", path="/pots") == []


@pytest.mark.parametrize(
    ("name", "found"),
    [
        ("", 0),
        ("   ", 0),
        ("x" * 10_000, 0),
        ("a\x00b\x1f", 0),
        ("\x00\x01\x02", 0),
        # Control characters and a lone surrogate are not part of a name: what is left resolves.
        ("\ud800nameMatchMode", 3),
        ("nameMatchMode" + "\n" * 500, 3),
    ],
)
def test_bad_names_get_a_clear_answer(engine: Engine, name: str, found: int) -> None:
    assert len(engine.definitions(name)) == found
    assert engine.definitions("nameMatchMode", method="\ud800", path="x" * 10_000) == []
    assert engine.definitions("nameMatchMode", schema="\x00") == []


# --- spec HTML as markdown ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("html", "markdown"),
    [
        ("Compare <code>name</code>.", "Compare `name`."),
        ("A <b>bold</b> and <i>slanted</i> word", "A **bold** and *slanted* word"),
        ("<p>One.</p><p>Two.</p>", "One.\n\nTwo."),
        ("first<br>second", "first\nsecond"),
        ("<ul><li>a</li><li>b</li></ul>", "- a\n- b"),
        ('See <a href="https://x.test/a">the guide</a>.', "See [the guide](https://x.test/a)."),
        ("<span class='x'>plain</span> <u>under</u> <tt>mono</tt>", "plain under `mono`"),
        ("use the <process> id", "use the \\<process> id"),
        ("keep `<b>` in code", "keep `<b>` in code"),
        ("&lt;b&gt;escaped&lt;/b&gt; &amp; more", "**escaped** & more"),
        ("", ""),
    ],
)
def test_spec_html_becomes_markdown(html: str, markdown: str) -> None:
    assert spec_markdown(html) == markdown


def test_spec_inline_is_one_bounded_line() -> None:
    assert spec_inline("<p>One.</p><ul><li>a</li></ul>") == "One. - a"
    cut = spec_inline("word " * 100, limit=40)
    assert len(cut) <= 40 and cut.endswith("…") and "\n" not in cut
