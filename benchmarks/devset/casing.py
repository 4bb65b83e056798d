"""How names change case between the specs, the written pages and code."""

from __future__ import annotations

import re


def norm(name: str) -> str:
    """Lowercase letters and digits only, so `name_match_mode` and `nameMatchMode` compare equal."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


def snake(name: str) -> str:
    name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()


def words(text: str) -> str:
    """Lowercase words joined by spaces: how a tag or summary is compared with a heading."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))
