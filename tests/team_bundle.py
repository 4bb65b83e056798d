"""A team's own docs bundle, served beside the Collibra-like fixture bundle (``hash_bundle``).

Its manifest name is the fixture bundle's own ("fixture"), so an engine opening both renames it
``fixture-2``; one of its pages has the same path as a page of the fixture bundle
(``rest-core/assets-api.md``) with other content, and it has a page and an endpoint that exist only
here. A host that mixes the two bundles up shows the wrong page, or none.
"""

from __future__ import annotations

import functools
from pathlib import Path

from tests.fixture_builds import build_fixture_bundle

TEAM_NAME = "fixture-2"  # the engine's name for it: its manifest says "fixture", as the first's
TEAM_ENDPOINT = "/rest/2.0/teamAssets/archive"
TEAM_WORD = "zanzibarquux"  # a word only the team's docs contain
SHARED_PATH = "rest-core/assets-api.md"  # a page path both bundles have
TEAM_ONLY_PATH = "team-guides/onboarding.md"

PAGES = {
    SHARED_PATH: f"""# Team assets API

Our team wraps the catalog's assets API in a few endpoints of its own.

## Archive team assets

Call `POST {TEAM_ENDPOINT}` with the ids of the assets to archive. Archived assets keep their
history; the {TEAM_WORD} job moves them to cold storage at night.

## Restore team assets

Ask the platform team: restoring is not self-service yet.
""",
    TEAM_ONLY_PATH: f"""# Onboarding

Welcome to the team. Read this page on your first day.

## Accounts

Request a catalog account and a {TEAM_WORD} badge from the service desk.
""",
}


@functools.cache
def build_team_bundle(base: Path) -> Path:
    """Write the team's markdown under `base` and build its bundle there (once per session)."""
    docs = base / "team-docs"
    for rel, text in PAGES.items():
        (docs / rel).parent.mkdir(parents=True, exist_ok=True)
        (docs / rel).write_text(text, encoding="utf-8")
    return build_fixture_bundle([f"local={docs}"], name="fixture")
