"""Checking client code against the API the bundle's specs describe.

`ApiModel` (`model.py`) holds the documented operations; `matching.py` finds the operation a call
names (`locate`, `operation_of_call`); `endpoints.py` and `keys.py` judge one call's endpoint and method, its
keys and values, each finding made as `findings.py` says; `check.py` checks a whole document's
calls (`check_located`, over what `atlas_core.recognize.calls.scan.scan_calls` finds), its
generated-client calls (`check_client_calls`) or one request (`check_request`). Findings are
`atlas_core.types.ApiFinding`; `Engine.check_code` and `Engine.check_request` are the public face.

Names load on first use: the language server's first hover reads `model` (deprecation wording)
and has no call to check yet.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas_core import lazy_exports

if TYPE_CHECKING:
    from atlas_core.apicheck.check import check_client_calls, check_located, check_request
    from atlas_core.apicheck.evidence import merge_evidence
    from atlas_core.apicheck.findings import CHECKS
    from atlas_core.apicheck.foreign import shows_collibra
    from atlas_core.apicheck.matching import locate, operation_of_call
    from atlas_core.apicheck.model import (
        ApiModel,
        Disagreement,
        Notice,
        Operation,
        build_model,
        says_removed,
    )

_EXPORTS = {
    "CHECKS": "findings",
    "check_client_calls": "check",
    "locate": "matching",
    "operation_of_call": "matching",
    "check_located": "check",
    "check_request": "check",
    "ApiModel": "model",
    "Operation": "model",
    "build_model": "model",
    "merge_evidence": "evidence",
    "Disagreement": "model",
    "Notice": "model",
    "says_removed": "model",
    "shows_collibra": "foreign",
}
__all__ = [
    "CHECKS",
    "ApiModel",
    "Disagreement",
    "Notice",
    "Operation",
    "build_model",
    "check_client_calls",
    "check_located",
    "check_request",
    "locate",
    "merge_evidence",
    "operation_of_call",
    "says_removed",
    "shows_collibra",
]
__getattr__ = lazy_exports(__name__, _EXPORTS)
