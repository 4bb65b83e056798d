"""Whether a document talks to another API: then a call whose base URL the code does not show is
that API's, not Collibra's.

A call such as ``api_request(f"{rest_root}assets/{kind}")`` is judged against Collibra's paths
only because ``assets`` is a Collibra resource (`matching.RESOURCE`). Marketing, issue-tracker and
catalog APIs have assets, domains and users too: a document that writes another API's versioned
base (``/api/REST/2.0/``, ``/rest/api/2``, ``/search/v1``) and shows no sign of Collibra (its
name, its base path) gives no ground for the guess, and the checks say nothing on such calls.
"""

from __future__ import annotations

import re

from atlas_core.apicheck.model import ApiModel

# A path whose last segment is an API version: ``/api/REST/2.0``, ``/rest/api/2``, ``/v1``.
_VERSIONED = re.compile(
    r"(?i)/(?:[a-z][\w-]*/){0,3}(?:v\d+(?:\.\d+)*|\d+\.\d+|(?<=api/|est/)\d+)(?![\w.])"
)
MAX_BASES = 200  # versioned paths looked at per document


def talks_to_other_api(model: ApiModel, text: str) -> bool:
    """Whether `text` writes another API's versioned base path and shows no sign of Collibra
    (the word, or a base path a spec declares, written as Collibra's code writes it)."""
    if "collibra" in text.lower():
        return False
    other = False
    for index, m in enumerate(_VERSIONED.finditer(text)):
        if index >= MAX_BASES:
            break
        # Whatever stands before the base (a host without a dot) is not Collibra's concern.
        if m.group().endswith(model.bases):
            return False
        other = True
    return other
