"""Two small releases of one docs set for the hot-reload tests: every heading names its release, so
each answer shows which bundle served it."""

from __future__ import annotations

from pathlib import Path

from atlas_core.build import build_bundle


def build_release(root: Path, version: str, pages: int = 8) -> Path:
    """A hash-model bundle at ``root/releases/<version>`` whose headings read "Release <version>"."""
    docs = root / f"docs-{version}"
    (docs / "guide").mkdir(parents=True)
    for i in range(pages):
        (docs / "guide" / f"page{i}.md").write_text(
            f"# Release {version} topic {i}\n\n## Release {version} details {i}\n\n"
            f"Assets and domains in release {version}.\n"
        )
    out = root / "releases" / version
    build_bundle([f"local={docs}"], out, model="hash", progress=False)
    return out
