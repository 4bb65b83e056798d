"""PowerShell's Invoke-RestMethod and Invoke-WebRequest, read as text: the URL through
expandable strings, `+`, `-f` and assignments, continued lines, splatting, and the keys of a
hashtable body; nothing where the URL is a value the script does not show."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from atlas_core.engine import Engine
from atlas_core.recognize.calls.scan import scan_calls
from tests.apicheck_bundle import build_apicheck_bundle
from tests.recognize.cursor import line_with, read

BASE = "https://acme.collibra.com/rest/2.0"

SCRIPT = f"""\
$server = "{BASE}"
$tablesUrl = "$server/tables"
# Invoke-RestMethod -Uri "$server/retired" -Method Delete
function Get-Table {{
    param([string]$Root, $TableId)
    Invoke-RestMethod -Uri "$Root/tables/$TableId" -Method Get
}}
$payload = @{{
    name = "Orders"
    "schemaId" = $schema
}} | ConvertTo-Json
Invoke-RestMethod -Uri $tablesUrl -Method Post `
    -ContentType "application/json" `
    -Body $payload
$request = @{{
    Uri = ("{{0}}/tables/{{1}}" -f $server, $tid)
    Method = 'DELETE'
}}
Invoke-WebRequest @request -UseBasicParsing
irm "$server/tables" -Body @{{ schemaId = "s1"; limit = 3 }}
Invoke-RestMethod -Meth Patch -Uri ($server + "/tables/" + $tid) -Body (ConvertTo-Json @{{ label = "x" }})
Invoke-RestMethod -Uri $env:TABLES_URL
"""


def _sites(code: str) -> list[tuple[int, str, str, str, str]]:
    return [
        (i.line, i.site.method, i.site.url, i.site.role, i.site.name)
        for i in scan_calls(code, "powershell")
    ]


def test_urls_methods_and_body_keys() -> None:
    tables = f"{BASE}/tables"
    assert _sites(SCRIPT) == [
        (1, "POST", tables, "endpoint", ""),
        (5, "GET", "{}/tables/{}", "endpoint", ""),
        (8, "POST", tables, "body", "name"),
        (9, "POST", tables, "body", "schemaId"),
        (15, "DELETE", tables + "/{}", "endpoint", ""),
        (19, "GET", tables, "endpoint", ""),
        (19, "GET", tables, "query", "schemaId"),
        (19, "GET", tables, "query", "limit"),
        (20, "PATCH", tables + "/{}", "endpoint", ""),
        (20, "PATCH", tables + "/{}", "body", "label"),
    ]


def test_hover_on_a_body_key_and_a_splatted_url() -> None:
    key = read(SCRIPT, "ps1", '"schemaId"', into=2)
    assert key is not None
    assert (key.method, key.role, key.name, key.url) == (
        "POST",
        "body",
        "schemaId",
        f"{BASE}/tables",
    )
    assert key.path_keys == ("name", "schemaId") and key.complete
    assert line_with(SCRIPT, '"schemaId"')[key.start : key.end] == "schemaId"
    site = read(SCRIPT, "powershell", "{0}/tables", into=4)
    assert site is not None and (site.method, site.role) == ("DELETE", "endpoint")
    assert read(SCRIPT, "powershell", "retired") is None  # a comment


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with Engine.open(build_apicheck_bundle(tmp_path_factory.getbasetemp())) as opened:
        yield opened


def test_checks_of_powershell_calls(engine: Engine) -> None:
    code = (
        f'$base = "{BASE}"\n'
        "$body = @{ name = 'n'; domainId = 'd' } | ConvertTo-Json\n"
        'Invoke-RestMethod -Uri "$base/assets" -Method Post -Body $body\n'
        'Invoke-RestMethod "$base/assets" -Body @{ nameMatchMode = "EXACTLY" }\n'
        "Invoke-RestMethod -Uri $env:COLLIBRA -Body @{ nameMatchMode = 'EXACTLY' }\n"
    )
    found = engine.check_code(code, "powershell")
    assert [(f.line, f.check) for f in found] == [(1, "missing-required"), (3, "bad-value")]


def test_long_and_broken_scripts_stay_bounded() -> None:
    many = 'Invoke-RestMethod -Uri "https://h/rest/2.0/assets"\n' * 100_000
    assert len(scan_calls(many, "powershell", budget_s=600)) == 5000  # the site limit
    junk_cases = (
        "Invoke-RestMethod (" * 5000,
        'irm "' + "x" * 100_000,
        "@{" * 5000 + "irm $a",
        "$(irm -Uri $u) `",  # a closing bracket ends the command
    )
    for junk in junk_cases:
        assert scan_calls(junk, "powershell") == []
