"""`atlas crawl-validate`: is a mirror clean enough to build from?

Checks the layout (``markdown/<section>/**/*.md``, a readable ``crawl_meta.json`` when present),
that every page has front matter with a title and a source URL, and that no GitBook syntax or stray
HTML survived outside code fences and inline code.

Each finding says whether it **affects the bundle** a build makes from the mirror (what ends up in
its chunks, identifiers, titles and links) or is **cosmetic** (only the mirror's files show it):

- bundle: a missing or unreadable ``markdown/`` folder, page or ``crawl_meta.json`` (the build
  fails or leaves the page out), missing front matter, title or source URL (chunks get a guessed
  title and no link), a page outside a section folder (its publication becomes the mirror's name),
  and GitBook syntax or HTML that the build's cleaning leaves in the page text,
- cosmetic: a ``crawl_meta.json`` without sections (only the manifest's crawl summary is shorter),
  a file that is not a ``.md`` page (the build skips it, or reads a ``.markdown`` page all the
  same), and GitBook syntax or HTML that the cleaning a mirror build applies
  (`atlas_core.markdown.gitbook.clean`) removes, found by checking the cleaned page again.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from atlas_core.crawl.crawler import META_FILE
from atlas_core.markdown import clean_gitbook as clean
from atlas_core.markdown import split_front_matter

BUNDLE = "bundle"
COSMETIC = "cosmetic"
EFFECTS = (BUNDLE, COSMETIC)

# GitBook tags, and its variables (`{{ book.host }}`, `{{ page.title }}`) left unrendered. A bare
# `{{domain}}` is the docs' own placeholder for the reader to fill in (`{{domain}}/rest/2.0/...`):
# content, not crawl damage.
_GITBOOK = re.compile(
    r"\{%-?\s*[a-z-]+|\{\{\s*(?:book|page|config|site|file|glossary|variables|vars)\.\w"
)
_HTML_TAG = re.compile(
    r"</?(div|span|table|thead|tbody|tr|td|th|mark|figure|figcaption|img|details|summary|"
    r"i|p|br|hr|a|ul|ol|li|section|iframe|script|style|font|center|sup|sub)\b[^>]*>",
    re.IGNORECASE,
)
_INLINE_CODE = re.compile(r"`+[^`]*`+")
REQUIRED_KEYS = ("title", "source_url")


@dataclass(frozen=True, slots=True)
class Finding:
    file: str  # relative to the mirror root
    line: int  # 1-based; 0 when the finding is about the whole file
    message: str
    effect: str = BUNDLE  # BUNDLE or COSMETIC (module docstring)

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.message}"

    def to_json(self) -> dict[str, object]:
        return {
            "file": self.file,
            "line": self.line,
            "message": self.message,
            "effect": self.effect,
        }


def count_effects(findings: list[Finding]) -> dict[str, int]:
    """Findings per effect, every effect present."""
    counts = Counter(f.effect for f in findings)
    return {effect: counts[effect] for effect in EFFECTS}


def validate_mirror(root: Path) -> list[Finding]:
    findings: list[Finding] = []
    markdown = root / "markdown"
    if not markdown.is_dir():
        return [Finding("markdown", 0, "missing markdown/ folder: not a crawl mirror")]
    meta_path = root / META_FILE
    if meta_path.exists():
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            if not isinstance(meta, dict) or "sections" not in meta:
                findings.append(Finding(META_FILE, 0, "has no 'sections' object", COSMETIC))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            findings.append(Finding(META_FILE, 0, f"unreadable: {exc}"))
    pages = sorted(markdown.rglob("*"))
    if not any(p.suffix == ".md" for p in pages):
        findings.append(Finding("markdown", 0, "no .md pages"))
    for path in pages:
        rel = path.relative_to(root).as_posix()
        if path.is_dir():
            continue
        if path.suffix != ".md":
            findings.append(Finding(rel, 0, "not a markdown page (.md)", COSMETIC))
            continue
        if len(path.relative_to(markdown).parts) < 2:
            findings.append(Finding(rel, 0, "page outside a section folder (markdown/<section>/)"))
        findings.extend(_check_page(path, rel))
    return findings


def _check_page(path: Path, rel: str) -> list[Finding]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        return [Finding(rel, 0, f"not UTF-8 (byte {exc.start})")]
    findings: list[Finding] = []
    meta, body = split_front_matter(text, strict=False)
    if not meta:
        findings.append(Finding(rel, 1, "no front matter (--- title/source_url ---)"))
    for key in REQUIRED_KEYS:
        if meta and not meta.get(key):
            findings.append(Finding(rel, 1, f"front matter lacks {key!r}"))
    offset = text.count("\n", 0, len(text) - len(body)) if meta else 0
    # What the build keeps of each piece of markup: the same checks over the cleaned page.
    kept = Counter(token for _, token, _ in _markup(clean(body), 1))
    for number, token, message in _markup(body, offset + 1):
        effect = BUNDLE if kept[token] > 0 else COSMETIC
        kept[token] -= 1
        findings.append(Finding(rel, number, message, effect))
    return findings


def _markup(body: str, first_line: int) -> list[tuple[int, str, str]]:
    """(line, token, message) for each GitBook tag or HTML tag outside code in `body`."""
    found: list[tuple[int, str, str]] = []
    fence: str | None = None
    for number, line in enumerate(body.split("\n"), start=first_line):
        stripped = line.lstrip()
        if fence is None and stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
            continue
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
            continue
        prose = _INLINE_CODE.sub("", line)
        gitbook = _GITBOOK.search(prose)
        if gitbook:
            found.append((number, gitbook.group(0), "GitBook syntax left: " + prose.strip()[:80]))
        tag = _HTML_TAG.search(prose)
        if tag:
            found.append((number, tag.group(0).lower(), f"stray HTML {tag.group(0)[:60]}"))
    return found
