"""Everything the rules read: the written pages, the two specs and what was derived from them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from benchmarks.devset.pages import Page, read_pages
from benchmarks.devset.spec import Op, Spec, read_spec
from benchmarks.devset.written import Written, call_examples, read_written

SPEC_FILES = ("dgc-rest.json", "dgc-importer-rest.json")


@dataclass(slots=True)
class Corpus:
    pages: dict[str, Page]
    specs: list[Spec]
    written: Written
    calls: list[tuple[str, str, str]]

    @property
    def ops(self) -> list[Op]:
        return [op for spec in self.specs for op in spec.ops]

    def spec(self, stem: str) -> Spec:
        return next(s for s in self.specs if s.stem == stem)


def load_corpus(shared: Path) -> Corpus:
    markdown = shared / "collibra-docs" / "markdown"
    specs_dir = shared / "collibra-openapi"
    if not markdown.is_dir():
        raise SystemExit(
            f"{markdown}: no such folder (pass --shared, the folder holding "
            "collibra-docs/ and collibra-openapi/)"
        )
    missing = [name for name in SPEC_FILES if not (specs_dir / name).is_file()]
    if missing:
        raise SystemExit(f"{specs_dir}: missing {', '.join(missing)}")
    pages = read_pages(markdown)
    specs = [read_spec(specs_dir / name) for name in SPEC_FILES]
    return Corpus(pages, specs, read_written(pages), call_examples(pages))
