"""`atlas crawl-validate` tells findings that change the bundle from cosmetic ones."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from atlas_core.crawl.validate import BUNDLE, COSMETIC, validate_mirror
from atlas_core.sources import load_sources

HEAD = "---\ntitle: {title}\nsource_url: https://docs.example.invalid/{title}\n---\n\n"

# GitBook blocks and inline HTML the build's cleaning rewrites: cosmetic.
CLEANED = HEAD.format(title="cleaned") + (
    "# Cleaned\n\n"
    '{% hint style="info" %}\n'
    "Use the bulk endpoint.\n"
    "{% endhint %}\n\n"
    "Returns assets.<p>Only non-null parameters filter.\n"
)
# An unrendered GitBook variable the cleaning keeps, so it reaches the chunks: affects the bundle.
# The docs' own `{{domain}}` placeholder is content and no finding at all.
KEPT = HEAD.format(title="kept") + (
    "# Kept\n\nCall {{ book.apiHost }}/rest/2.0/assets to list them.\n\n"
    "Replace {{domain}} with your environment's host name.\n"
)


def _atlas(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "atlas_ls.cli", *args], capture_output=True, text=True, timeout=120
    )


def _mirror(root: Path, pages: dict[str, str]) -> Path:
    for rel, text in pages.items():
        path = root / "markdown" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_each_finding_says_whether_the_bundle_sees_it(tmp_path: Path) -> None:
    root = _mirror(
        tmp_path / "m",
        {
            "sec/cleaned.md": CLEANED,
            "sec/kept.md": KEPT,
            "sec/untitled.md": "# Untitled\n\nNo front matter here.\n",
            "sec/diagram.png": "not a page",
        },
    )
    (root / "crawl_meta.json").write_text("{}", encoding="utf-8")
    effects = {(f.file.rsplit("/", 1)[-1], f.line, f.effect) for f in validate_mirror(root)}
    assert effects == {
        ("crawl_meta.json", 0, COSMETIC),  # only the manifest's crawl summary is shorter
        ("cleaned.md", 8, COSMETIC),
        ("cleaned.md", 10, COSMETIC),
        ("cleaned.md", 12, COSMETIC),
        ("kept.md", 8, BUNDLE),
        ("untitled.md", 1, BUNDLE),  # no title or link for its chunks
        ("diagram.png", 0, COSMETIC),  # the build skips it
    }
    # the claim behind the split: what is cosmetic is gone from the built text, the rest is not
    built = {d.path: d.text for d in load_sources([f"mirror={root}"]).documents}
    assert "{%" not in built["sec/cleaned.md"] and "<p>" not in built["sec/cleaned.md"]
    assert "{{ book.apiHost }}" in built["sec/kept.md"]

    result = _atlas("crawl-validate", str(root))
    assert result.returncode == 1
    out = result.stdout
    assert out.index("2 affect the bundle:") < out.index("5 cosmetic (the build is unaffected):")
    assert "  markdown/sec/kept.md:8: GitBook syntax left" in out
    assert "7 finding(s)" in result.stderr and "2 affect the bundle, 5 cosmetic" in result.stderr


def test_a_mirror_with_only_cosmetic_findings_passes(tmp_path: Path) -> None:
    fixed = KEPT.replace("{{ book.apiHost }}", "HOST")
    root = _mirror(tmp_path / "m", {"sec/cleaned.md": CLEANED, "sec/kept.md": fixed})
    result = _atlas("crawl-validate", "--json", str(root))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["counts"] == {"bundle": 0, "cosmetic": 3}
    assert [(f["file"], f["line"], f["effect"]) for f in report["findings"]] == [
        ("markdown/sec/cleaned.md", line, "cosmetic") for line in (8, 10, 12)
    ]
    assert report["findings"][0]["message"].startswith("GitBook syntax left: {% hint")
