"""The words of JavaScript request options and the syntax a URL or an options object passes
through unchanged, as the JavaScript call reader (`javascript`) reads them."""

from __future__ import annotations

from atlas_core.recognize.calls.site import BODY, HEADER, QUERY

OPTION_ROLES = {
    "params": QUERY,
    "searchParams": QUERY,
    "query": QUERY,
    "qs": QUERY,
    "body": BODY,
    "payload": BODY,  # Google Apps Script's `UrlFetchApp.fetch(url, {payload})`
    "data": BODY,
    "json": BODY,
    "form": BODY,
    "headers": HEADER,
}
TYPED = frozenset({"as_expression", "satisfies_expression", "non_null_expression"})
WITH_BODY = frozenset({"post", "put", "patch"})
PASS_THROUGH = frozenset(
    {
        "array",
        "parenthesized_expression",
        "spread_element",
        "await_expression",
        "as_expression",
        "satisfies_expression",
        "non_null_expression",
        "ternary_expression",
        "type_assertion",
    }
)

# The keys of a request config that hold its URL (`path`: Node's `https.request`, generated
# TypeScript clients' `this.request({path, method})`).
URL_KEYS = frozenset({"url", "uri", "path"})
