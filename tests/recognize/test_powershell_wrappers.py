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


POSITIONAL = """\
function Invoke-Dg {
    param([string]$Verb, [string]$Route, $Payload)
    Invoke-RestMethod -Method $Verb -Uri "$Root/rest/2.0$Route" -Headers $Headers
}
Invoke-Dg GET "/scopes?limit=5"
Invoke-Dg -Route "/scopes/$id" DELETE
"""


def test_positional_arguments_fill_the_parameters_left_in_order() -> None:
    """Each positional argument takes the first parameter no argument has bound yet: two
    positional arguments (a verb, then a path) read as the call they make, as do positional
    arguments after a named one. The second positional argument used to find no parameter."""
    found = [
        (i.line, i.site.method, i.site.url)
        for i in scan_calls(POSITIONAL, "powershell")
        if i.site.role == "endpoint" and i.line > 3
    ]
    assert found == [(4, "GET", "{}/rest/2.0/scopes"), (5, "DELETE", "{}/rest/2.0/scopes/{}")]
