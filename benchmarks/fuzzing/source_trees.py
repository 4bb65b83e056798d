"""Hostile source trees for the `sources` class: one honest page plus the ingredients a recipe
names, written under a case folder whose `outside/` holds files marked with `MARKER`.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

MARKER = "ATLAS-FUZZ-OUTSIDE-7d41c2"
PAGE = (
    "# Kettle guide\n\nHow to boil water with the kettle API.\n\n## Steps\n\nFill it, then boil.\n"
)

LINKS = [
    "link-file-abs",
    "link-file-rel",
    "link-dir",
    "link-chain",
    "link-loop",
    "link-broken",
    "link-inside",
    "fifo",
]
MARKDOWN = [
    "alias-bomb",
    "recursive-alias",
    "deep-yaml",
    "python-tag",
    "junk-front-matter",
    "heading-flood",
    "bad-utf8-name",
    "bad-utf8-content",
    "nul",
    "huge-line",
    "hostile-heading",
    "deep-nesting",
    "empty",
]
MIRROR_ONLY = ["hostile-markup", "link-crawl-meta", "link-markdown-dir"]
OPENAPI = [
    "deep-json",
    "deep-yaml-spec",
    "ref-cycle",
    "ref-chain",
    "ref-external",
    "yaml-bomb",
    "yaml-recursive-alias",
    "python-tag",
    "many-tags",
    "junk-types",
    "huge-description",
]
MARKUP = [
    "{% a ",
    "{% hint %}x",
    "{% hint ",
    "<table>",
    "<pre>",
    "<figure>",
    "<figcaption>",
    "<a href=x>",
    "<summary>",
    "<i class='fa-x'>",
    "\\<p ",
    "<img ",
    "<a ",
    "`",
    "<td colspan=50>x",
]
HEADINGS = ["# x" + " " * 1000 + "y", "# " + "[", "# [a](", "# <a", "# a" + "_" * 1000 + "a"]


def _laughs(levels: int, width: int) -> str:
    lines = ["a0: &a0 [" + ",".join(['"lol"'] * width) + "]"]
    for n in range(1, levels):
        lines.append(f"a{n}: &a{n} [" + ",".join([f"*a{n - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


def _page(folder: Path, rel: str, text: str | bytes) -> None:
    path = folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")


class Source:
    """Writes one case's source under `case/` and says how to pass it to the build."""

    def __init__(self, case: Path, spec: dict[str, Any]) -> None:
        self.case = case
        self.kind = spec["kind"]
        self.rng = random.Random(spec["seed"])
        self.outside = case / "outside"
        self.outside.mkdir(parents=True)
        _page(self.outside, "secret.md", f"# Secret\n\n{MARKER}\n")
        _page(self.outside, "meta.json", json.dumps({"marker": MARKER}))
        _page(self.outside, "secret.yaml", f"Secret:\n  type: string\n  description: {MARKER}\n")
        self.root = case / "src"
        self.docs = self.root / "markdown" / "guides" if self.kind == "mirror" else self.root
        self.spec: dict[str, Any] = {
            "openapi": "3.0.3",
            "info": {"title": "Kettle", "version": "1"},
            "paths": {"/kettle": {"get": {"responses": {"200": {"description": "ok"}}}}},
        }
        self.yaml_tail = ""

    def write(self, ingredients: list[str]) -> str:
        if self.kind != "openapi":
            _page(self.docs, "page.md", PAGE)
        # Wrong JSON types go in last, so the ingredients before them still find a spec's shape.
        for name in sorted(ingredients, key=lambda n: n == "junk-types"):
            getattr(self, "_" + name.replace("-", "_"))()
        if self.kind == "openapi":
            return self._write_spec()
        if self.kind == "git":
            self._commit()
        return f"{self.kind}={self.root}"

    # links and special files

    def _link(self, name: str, target: str | Path, *, folder: bool = False) -> None:
        path = self.docs / name
        path.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, path, target_is_directory=folder)

    def _link_file_abs(self) -> None:
        self._link(f"leak-{self.rng.randrange(99)}.md", self.outside / "secret.md")

    def _link_file_rel(self) -> None:
        climb = os.path.relpath(self.outside / "secret.md", self.docs / "docs")
        self._link("docs/a.md", climb)

    def _link_dir(self) -> None:
        self._link(f"linked-{self.rng.randrange(99)}", self.outside, folder=True)

    def _link_chain(self) -> None:
        self._link("inner/hop.md", self.outside / "secret.md")
        self._link("start.md", Path("inner", "hop.md"))

    def _link_loop(self) -> None:
        self._link("loop.md", "loop.md")
        self._link("ring-a.md", "ring-b.md")
        self._link("ring-b.md", "ring-a.md")
        self._link("again", ".", folder=True)

    def _link_broken(self) -> None:
        self._link("gone.md", self.outside / "missing.md")

    def _link_inside(self) -> None:
        self._link("alias.md", "page.md")

    def _fifo(self) -> None:
        if hasattr(os, "mkfifo"):
            os.mkfifo(self.docs / "pipe.md")

    def _link_crawl_meta(self) -> None:
        os.symlink(self.outside / "meta.json", self.root / "crawl_meta.json")

    def _link_markdown_dir(self) -> None:
        shutil.rmtree(self.root / "markdown")
        os.symlink(self.outside, self.root / "markdown", target_is_directory=True)

    # markdown

    def _front_matter(self, yaml_text: str) -> None:
        _page(
            self.docs, f"fm-{self.rng.randrange(999)}.md", f"---\n{yaml_text}---\n# Page\n\nBody.\n"
        )

    def _alias_bomb(self) -> None:
        self._front_matter(_laughs(self.rng.randrange(3, 10), self.rng.randrange(3, 10)))

    def _recursive_alias(self) -> None:
        self._front_matter("title: x\nloop: &loop [*loop]\n")

    def _deep_yaml(self) -> None:
        depth = self.rng.choice([50, 99, 101, 500, 5000])
        self._front_matter("deep: " + "[" * depth + "]" * depth + "\n")

    def _python_tag(self) -> None:
        pwned = self.outside / "pwned"
        tag = f"!!python/object/apply:os.system ['touch {pwned}']"
        if self.kind == "openapi":
            self.yaml_tail += f"x-run: {tag}\n"
        else:
            self._front_matter(f"title: {tag}\n")

    def _junk_front_matter(self) -> None:
        self._front_matter(
            self.rng.choice(
                [
                    "title: [1, 2]\n",
                    "title: {a: b}\n",
                    "- a\n- b\n",
                    "title: 'unterminated\n",
                    "\ttitle: tab\n",
                    "title: !!binary aGVsbG8=\n",
                    "title: 2025-13-45\n",
                    "? [a, b]\n: c\n",
                ]
            )
        )

    def _heading_flood(self) -> None:
        n = self.rng.randrange(2_000, 30_000)
        pattern = self.rng.choice(["##", "###", "mixed"])
        heads = (
            f"{'##' if i % 2 else '###'} H{i}\n" if pattern == "mixed" else f"{pattern} H{i}\n"
            for i in range(n)
        )
        _page(self.docs, "headings.md", "".join(heads))

    def _bad_utf8_name(self) -> None:
        _page(self.docs, os.fsdecode(b"caf\xe9-%d.md" % self.rng.randrange(99)), PAGE)
        if self.rng.random() < 0.5:
            _page(self.docs / os.fsdecode(b"sub-\xff"), "inner.md", PAGE)

    def _bad_utf8_content(self) -> None:
        _page(self.docs, "latin.md", b"# Caf\xe9\n\nLatin-1 \xff text.\n")

    def _nul(self) -> None:
        _page(
            self.docs,
            "nul.md",
            "# Nul\n\nA \x00 in text and \x000\x00 like a placeholder `\x000\x00`.\n",
        )

    def _huge_line(self) -> None:
        size = self.rng.randrange(1, 8) * 1024 * 1024
        word = self.rng.choice(["kettle ", "x", "findAssets() ", "é"])
        _page(
            self.docs, "huge.md", "# Huge\n\n" + (word * (size // len(word.encode())))[:size] + "\n"
        )

    def _hostile_heading(self) -> None:
        head = self.rng.choice(HEADINGS)
        _page(self.docs, "heading.md", head * self.rng.randrange(1, 200) + "\n\nBody.\n")

    def _deep_nesting(self) -> None:
        depth = self.rng.randrange(1_000, 50_000)
        text = self.rng.choice([">" * depth + " quote", "- " * depth + "item", "*" * depth + "x"])
        _page(self.docs, "nested.md", "# Nested\n\n" + text + "\n")

    def _empty(self) -> None:
        _page(
            self.docs,
            "empty.md",
            self.rng.choice(["", "---\ntitle: Empty\n---\n", "\ufeff", "\n\n\n"]),
        )

    def _hostile_markup(self) -> None:
        piece = self.rng.choice(MARKUP)
        _page(self.docs, "markup.md", "# Markup\n\n" + piece * self.rng.randrange(1_000, 100_000))

    # OpenAPI

    def _deep_json(self) -> None:
        depth = self.rng.choice([99, 101, 1000, 5000, 20000])
        self.spec["x-deep"] = "DEEP"
        self.deep = depth

    def _deep_yaml_spec(self) -> None:
        depth = self.rng.choice([99, 101, 1000, 5000])
        self.yaml_tail += "x-deep: " + "[" * depth + "]" * depth + "\n"

    def _schemas(self) -> dict[str, Any]:
        return self.spec.setdefault("components", {}).setdefault("schemas", {})

    def _ref_cycle(self) -> None:
        schemas = self._schemas()
        size = self.rng.randrange(1, 5)
        for i in range(size):
            schemas[f"C{i}"] = {"$ref": f"#/components/schemas/C{(i + 1) % size}"}
        self._use("#/components/schemas/C0")

    def _ref_chain(self) -> None:
        n = self.rng.choice([10, 31, 33, 1000, 20000])
        schemas = self._schemas()
        for i in range(n):
            schemas[f"S{i}"] = {"$ref": f"#/components/schemas/S{i + 1}"}
        schemas[f"S{n}"] = {"type": "string"}
        self._use("#/components/schemas/S0")

    def _ref_external(self) -> None:
        refs = [
            "../outside/secret.yaml#/Secret",
            f"{(self.outside / 'secret.yaml').as_uri()}#/Secret",
            f"{self.outside / 'secret.yaml'}#/Secret",
            "http://127.0.0.1:9/secret.yaml#/Secret",
        ]
        self._use(self.rng.choice(refs))

    def _use(self, ref: str) -> None:
        get = self.spec["paths"]["/kettle"]["get"]
        get["responses"]["200"]["content"] = {"application/json": {"schema": {"$ref": ref}}}

    def _yaml_bomb(self) -> None:
        self.yaml_tail += _laughs(self.rng.randrange(3, 10), self.rng.randrange(3, 10))

    def _yaml_recursive_alias(self) -> None:
        self.yaml_tail += "x-loop: &x {y: *x}\n"

    def _many_tags(self) -> None:
        n = self.rng.randrange(1_000, 30_000)
        alike = self.rng.random() < 0.5
        self.spec["paths"] |= {
            f"/op{i}": {
                "get": {
                    "tags": [f"t{'!' * (i % 7)}{i}" if alike else f"tag {i}"],
                    "responses": {"200": {"description": "ok"}},
                }
            }
            for i in range(n)
        }

    def _junk_types(self) -> None:
        where, value = self.rng.choice(
            [
                (("paths",), [1, 2]),
                (("paths", "/kettle"), "get"),
                (("paths", "/kettle", "get"), None),
                (("paths", "/kettle", "get", "parameters"), {"a": 1}),
                (("paths", "/kettle", "get", "responses"), None),
                (("info",), "x"),
                (("openapi",), 3),
                (("paths", "/kettle", "get", "tags"), "not-a-list"),
                (("components",), {"schemas": [1]}),
            ]
        )
        node: Any = self.spec
        for key in where[:-1]:
            node = node[key]
        node[where[-1]] = value

    def _huge_description(self) -> None:
        size = self.rng.randrange(1, 8) * 1024 * 1024
        self.spec["info"]["description"] = "kettle " * (size // 7)

    def _write_spec(self) -> str:
        deep = getattr(self, "deep", 0)
        if self.yaml_tail:
            import yaml

            head = yaml.safe_dump(self.spec, sort_keys=False)
            path = self.case / "spec.yaml"
            path.write_text(head + self.yaml_tail, encoding="utf-8")
        else:
            text = json.dumps(self.spec)
            if deep:
                text = text.replace('"DEEP"', "[" * deep + "]" * deep)
            path = self.case / "spec.json"
            path.write_text(text, encoding="utf-8")
        return f"openapi={path}"

    def _commit(self) -> None:
        git = ["git", "-c", "user.name=f", "-c", "user.email=f@example.invalid"]
        for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "x"]):
            subprocess.run([*git, *args], cwd=self.root, check=True, capture_output=True)
