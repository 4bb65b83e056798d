"""Whether a document shows a sign of Collibra: only then is a call whose base URL the code does
not show judged as Collibra's.

A call such as ``api_request(f"{rest_root}assets/{kind}")`` is judged against Collibra's paths
only because ``assets`` is a Collibra resource (`matching.RESOURCE`). Marketing, issue-tracker,
catalog and a thousand in-house APIs have assets, domains and users too, and the language server
reads every file of a workspace: ``fetch(`${API}/users?page=2`)`` in a client of any other
service is no ground for "'page' is not a query parameter of GET /users". A document that names
Collibra or writes a base path a spec declares (``rest/2.0``) gives that ground; any other
document's calls are judged only where their URL shows Collibra's host or base path.
"""

from __future__ import annotations

from atlas_core.apicheck.model import ApiModel


def shows_collibra(model: ApiModel, text: str) -> bool:
    """Whether `text` names Collibra or writes a base path a spec declares (with or without its
    leading slash, as code joins it to a host)."""
    if "collibra" in text.lower():
        return True
    return any(base in text for base in model.base_paths)
