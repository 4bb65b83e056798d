"""Checking client code against the API the bundle's specs describe.

`ApiModel` (`model.py`) holds the documented operations; `check.py` judges one call's endpoint,
method, keys and values, a whole document's calls (`check_located`, over what
`atlas_core.recognize.calls.scan.scan_calls` finds) or one request (`check_request`). Findings are
`atlas_core.types.ApiFinding`; `Engine.check_code` and `Engine.check_request` are the public face.
"""

from __future__ import annotations

from atlas_core.apicheck.check import CHECKS, check_located, check_request
from atlas_core.apicheck.model import ApiModel, Operation, build_model

__all__ = ["CHECKS", "ApiModel", "Operation", "build_model", "check_located", "check_request"]
