"""The population rules: every member of each class, found in the corpus or the specs.

One module per group of classes (`endpoints`: path, operation; `fields`: parameter, property,
json_key; `names`: constant, type, cli, near_tie), each rule returning `Member`s with their
expected files; `spellings` says how code writes them. The rules are described in the package
docstring of `benchmarks.devset`.
"""

from __future__ import annotations

from benchmarks.devset.corpus import Corpus
from benchmarks.devset.population.endpoints import operation_members, path_members
from benchmarks.devset.population.fields import (
    json_key_members,
    parameter_members,
    property_members,
)
from benchmarks.devset.population.member import Member
from benchmarks.devset.population.names import (
    cli_members,
    constant_members,
    near_tie_members,
    type_members,
)

__all__ = ["CLASSES", "Member", "populations"]

# The order classes are drawn in: a name an earlier class drew leaves the later pools.
CLASSES = (
    "path",
    "operation",
    "parameter",
    "property",
    "json_key",
    "constant",
    "type",
    "cli",
    "near_tie",
)


def populations(c: Corpus) -> dict[str, list[Member]]:
    """Every class's whole population; `near_tie` knows which tokens the other classes list."""
    found: dict[str, list[Member]] = {
        "path": path_members(c),
        "operation": operation_members(c),
        "parameter": parameter_members(c),
        "property": property_members(c),
        "json_key": json_key_members(c),
        "constant": constant_members(c),
        "type": type_members(c),
        "cli": cli_members(c),
    }
    others = {m.name for members in found.values() for m in members}
    found["near_tie"] = near_tie_members(c, others)
    return found
