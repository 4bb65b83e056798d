"""Two small releases of one docs set for the hot-reload tests: every heading names its release, so
each answer shows which bundle served it. And `reseal`, for bundles damaged on purpose."""

from __future__ import annotations

import json
from pathlib import Path

from atlas_core.bundle.manifest import file_entry, sha256_file
from tests.support.bundles import BundleFactory, bundle_factory


def build_release(root: Path, version: str, pages: int = 8) -> Path:
    """A hash-model bundle at ``root/releases/<version>`` whose headings read "Release <version>":
    the test's own copy (it may change or delete it) of the one the run's factory built."""
    texts = {
        f"guide/page{i}.md": f"# Release {version} topic {i}\n\n## Release {version} details {i}\n\n"
        f"Assets and domains in release {version}.\n"
        for i in range(pages)
    }
    built = bundle_factory().build_pages(texts, name=version)
    return BundleFactory.copy(built, root / "releases" / version)


def reseal(root: Path, *rels: str) -> None:
    """Re-hash changed files into the manifest (size, SHA-256, and dtype/shape of arrays), as
    someone who edits a bundle on purpose would, so hashes alone no longer show the damage."""
    manifest = json.loads((root / "manifest.json").read_text())
    for rel in rels:
        try:
            manifest["files"][rel] = file_entry(root / rel)
        except ValueError:  # a flip in an array's header: keep the listed dtype and shape
            path = root / rel
            manifest["files"][rel].update(sha256=sha256_file(path), size=path.stat().st_size)
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2))
