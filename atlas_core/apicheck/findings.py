"""What a finding of the API checks is: the check that raised it, how severe, where in the code,
and the documented operation it links.

Every check module builds its findings through `finding`, so each carries the same fields (fixes
without repeats, the operation's page and rule, the endpoint only when the call really names it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from atlas_core.apicheck.model import Operation
from atlas_core.types import ApiFinding

UNKNOWN_ENDPOINT = "unknown-endpoint"
METHOD_NOT_ALLOWED = "method-not-allowed"
UNKNOWN_PARAM = "unknown-param"
MISSING_REQUIRED = "missing-required"
BAD_VALUE = "bad-value"
DEPRECATED = "deprecated"
CHECKS = (
    UNKNOWN_ENDPOINT,
    METHOD_NOT_ALLOWED,
    UNKNOWN_PARAM,
    MISSING_REQUIRED,
    BAD_VALUE,
    DEPRECATED,
)

ERROR, WARNING, INFORMATION, HINT = "error", "warning", "information", "hint"
# How alike a misspelt name and a documented one must be (rapidfuzz ratio) to be offered.
SUGGEST_CUTOFF = 72.0
MAX_SUGGESTIONS = 3


@dataclass(frozen=True, slots=True)
class Place:
    """Where in the code a finding goes, and the text written there (for quick fixes); `end` is
    a column of `end_line` where the place goes on over lines (a literal from its ``{`` to its
    first key)."""

    line: int = 0
    start: int = 0
    end: int = 0
    text: str = ""
    end_line: int | None = None


def _rule(op: Operation) -> str:
    if op.spec is not None:
        title = op.spec.title or op.spec.file
        return f"{title} ({op.spec.file})" if op.spec.file and op.spec.file != title else title
    return f"docs page {op.file}"


def finding(
    check: str,
    severity: str,
    message: str,
    place: Place,
    op: Operation | None,
    *,
    fixes: Iterable[str] = (),
    deprecated: bool = False,
    target: str = "",
    matched: bool = True,
) -> ApiFinding:
    """A finding about a call to `op` (not `matched`: `op` is only the closest documented one,
    whose page and rule the finding links)."""
    return ApiFinding(
        check=check,
        severity=severity,
        message=message,
        line=place.line,
        start=place.start,
        end=place.end,
        end_line=place.end_line,
        fixes=tuple(dict.fromkeys(f for f in fixes if f)),
        href=op.url if op is not None else "",
        rule=_rule(op) if op is not None else "",
        deprecated=deprecated,
        endpoint=op.endpoint if op is not None and matched else "",
        target=target,
    )
