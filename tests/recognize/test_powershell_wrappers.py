"""PowerShell functions that run a web cmdlet with their parameters: each call is read with the
parameters bound to its arguments (named, positional, bare words, defaults), where the call
writes them; a function whose request its arguments do not change is its body's call."""

from __future__ import annotations

from atlas_core.recognize.calls.scan import scan_calls

SCRIPT = """\
function Send-Dg {
    param(
        [Parameter(Mandatory)] [string]$Route,
        [string]$Verb = 'GET',
        $Payload
    )
    $target = "$script:Root/rest/2.0/$Route"
    Invoke-RestMethod -Uri $target -Method $Verb -Body ($Payload | ConvertTo-Json) -Headers $h
}
function Open-Dg($Name) {
    Invoke-RestMethod -Uri "$Root/rest/2.0/auth/sessions" -Method Post -Body @{ username = $Name }
}
$found = Send-Dg -Route "scopes?limit=10"
Send-Dg -Route "scopes/$scopeId" -Verb Delete
Send-Dg roles
Open-Dg $me
# Send-Dg -Route 'traits'
"""


def test_calls_of_a_function_running_a_cmdlet_are_read_where_they_are_written() -> None:
    found = [
        (i.line, i.site.role, i.site.method, i.site.url, i.site.name)
        for i in scan_calls(SCRIPT, "powershell")
        if i.line > 10
    ]
    assert found == [
        (12, "endpoint", "GET", "{}/rest/2.0/scopes", ""),
        (12, "query", "GET", "{}/rest/2.0/scopes", "limit"),
        (13, "endpoint", "DELETE", "{}/rest/2.0/scopes/{}", ""),
        (14, "endpoint", "GET", "{}/rest/2.0/roles", ""),
    ]
    line = SCRIPT.splitlines()[14]
    site = next(i.site for i in scan_calls(SCRIPT, "powershell") if i.line == 14)
    assert line[site.start : site.end] == "roles"
