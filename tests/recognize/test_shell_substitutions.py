"""Shell commands as scripts write them around their HTTP call: curl inside a command
substitution (``TOKEN=$(curl ...)``, backticks), options spread from an array
(``curl "${opts[@]}" URL``), a wrapper function called with a bare path word, and a method
held in a variable (``-X "$VERB"``)."""

from __future__ import annotations

from atlas_core.recognize import BODY, ENDPOINT, scan_calls


def _read(text: str) -> list[tuple[int, str, str, str, str]]:
    return [
        (i.line, i.site.role, i.site.method, i.site.url, i.site.name)
        for i in scan_calls(text, "shell")
    ]


def test_curl_in_a_substitution_ends_at_its_parenthesis() -> None:
    text = (
        'SESSION=$(curl -s -X POST "$DGC/rest/2.0/auth/sessions" -d \'{"username": "$U"}\')\n'
        "ROLES=`curl -s $DGC/rest/2.0/roles`\n"
        'MINE=$(curl -s "$DGC/rest/2.0/users/current" | jq -r .id)\n'
    )
    assert _read(text) == [
        (0, ENDPOINT, "POST", "{}/rest/2.0/auth/sessions", ""),
        (0, BODY, "POST", "{}/rest/2.0/auth/sessions", "username"),
        (1, ENDPOINT, "GET", "{}/rest/2.0/roles", ""),
        (2, ENDPOINT, "GET", "{}/rest/2.0/users/current", ""),
    ]


def test_options_spread_from_an_array_are_not_the_url() -> None:
    text = 'opts=(-s -u "$AUTH")\ncurl "${opts[@]}" "$DGC/rest/2.0/statuses"\n'
    assert _read(text) == [(1, ENDPOINT, "GET", "{}/rest/2.0/statuses", "")]


def test_a_wrapper_called_with_a_bare_path_word() -> None:
    text = (
        "dgc_get() {\n"
        '  curl -s -u "$AUTH" "$DGC/rest/2.0/$1"\n'
        "}\n"
        'dgc_get "domainTypes"\n'
        "dgc_get statuses\n"
    )
    found = [f for f in _read(text) if f[0] > 1]
    assert found == [
        (3, ENDPOINT, "GET", "{}/rest/2.0/domainTypes", ""),
        (4, ENDPOINT, "GET", "{}/rest/2.0/statuses", ""),
    ]


def test_a_method_in_a_variable_is_its_value_or_nothing() -> None:
    text = (
        "VERB=PATCH\n"
        'curl -X "$VERB" "$DGC/rest/2.0/tags/$TAG" -d \'{"name": "pii"}\'\n'
        'curl -X "$1" "$DGC/rest/2.0/tags/$TAG"\n'
    )
    found = {(f[0], f[2], f[3]) for f in _read(text)}
    assert found == {(1, "PATCH", "{}/rest/2.0/tags/{}")}  # never "$VERB", never a guess


def test_data_from_a_variable_names_no_key() -> None:
    text = (
        'curl -X POST "$DGC/rest/2.0/domains" -d "$PAYLOAD"\n'
        'curl -G "$DGC/rest/2.0/domains" -d "limit=5&name=$N"\n'
    )
    found = [(f[0], f[1], f[4]) for f in _read(text)]
    assert found == [
        (0, ENDPOINT, ""),
        (1, ENDPOINT, ""),
        (1, "query", "limit"),
        (1, "query", "name"),
    ]


def test_a_wrapper_given_its_method_as_an_argument() -> None:
    text = (
        "dgc() {\n"
        '  local verb="$1"\n'
        '  curl -s -u "$AUTH" -X "$verb" "$DGC/rest/2.0$2" "${@:3}"\n'
        "}\n"
        "dgc GET /statuses\n"
        'dgc DELETE "/tags/$TAG"\n'
        'dgc "$OTHER" /roles\n'
    )
    found = [(f[0], f[2], f[3]) for f in _read(text) if f[0] > 3]
    # a method the call does not show is none
    assert found == [(4, "GET", "{}/rest/2.0/statuses"), (5, "DELETE", "{}/rest/2.0/tags/{}")]


ONE_LINERS = """\
dg() { curl -s -u "$U:$P" -X "$1" "$DG/rest/2.0$2" "${@:3}"; }
dg GET /statuses
call() {
  local verb=$1 route=$2
  shift 2
  curl -s -X "$verb" "$DG/rest/2.0$route" "$@"
}
call DELETE "/scopes/$id"
"""


def test_one_line_wrappers_and_several_locals_on_a_line() -> None:
    """A wrapper written on one line (``dg() { curl ... "$1" ...; }``) is a wrapper, and
    ``local verb=$1 route=$2`` gives each name its own value (the second was never found, the
    first took the rest of the line)."""
    found = [
        (i.line, i.site.method, i.site.url)
        for i in scan_calls(ONE_LINERS, "shell")
        if i.site.role == "endpoint" and i.line in (1, 7)
    ]
    assert found == [(1, "GET", "{}/rest/2.0/statuses"), (7, "DELETE", "{}/rest/2.0/scopes/{}")]
