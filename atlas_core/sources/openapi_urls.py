"""Web addresses of a spec's operations and schemas: where a person reads them in a browser.

The first of these that is known gives every address:

1. The developer portal the spec is published on: `--source openapi=FILE#PORTAL`, or, for
   Collibra's own specs (known by their title), Collibra's developer portal. Portals built on
   GitBook lay a spec out as one page per tag, `PORTAL/<tag slug>`, each operation at
   `#<method>-<path slug>` (`GET /assets/{assetId}` at `#get-assets-assetid`), and the schemas
   on `PORTAL/models`, each at `#the-<name>-object` (its heading there is "The Job object").
2. The spec's `externalDocs` (the operation's, else its tag's, else the spec's), with the
   anchor of the section on the generated page.
3. The spec file's own address: `--source openapi=FILE#URL` where URL names a `.json`,
   `.yaml` or `.yml` file; each operation and schema at its JSON pointer in that file
   (`#/paths/~1assets/get`, `#/components/schemas/Job`).

Otherwise an address is "", and hovers and results link the page in the bundle's mirror only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from atlas_core.markdown import github_slug
from atlas_core.sources.openapi_pages import slug

# Collibra's developer portal: where each of its specs' reference is published.
COLLIBRA_PORTALS: dict[str, str] = {
    "Collibra Data Governance Center Core API": (
        "https://developer.collibra.com/api/references/data-governance"
    ),
    "Collibra Import API": "https://developer.collibra.com/api/references/import",
}
SPEC_SUFFIXES = (".json", ".yaml", ".yml")
MODELS_PAGE = "models"
_NOT_SLUG_RE = re.compile(r"[^a-z0-9]+")


def operation_anchor(method: str, path: str) -> str:
    """GitBook's anchor of an operation: `get-assets-assetid` for GET /assets/{assetId}."""
    return _NOT_SLUG_RE.sub("-", f"{method} {path}".lower()).strip("-")


def json_pointer(*keys: str) -> str:
    """`#/paths/~1assets/get` for ("paths", "/assets", "get")."""
    return "#" + "".join("/" + key.replace("~", "~0").replace("/", "~1") for key in keys)


def _external(node: Any) -> str:
    docs = node.get("externalDocs") if isinstance(node, dict) else None
    return str(docs.get("url") or "").strip() if isinstance(docs, dict) else ""


@dataclass(frozen=True, slots=True)
class WebAddresses:
    """Where one spec's pages, operations and schemas live on the web (see the module doc)."""

    portal: str = ""  # the developer portal's base for this spec, without a trailing slash
    spec_url: str = ""  # the spec file's own address
    docs: str = ""  # the spec's top-level `externalDocs.url`

    @classmethod
    def of(cls, spec: dict[str, Any], title: str, given: str) -> WebAddresses:
        """The addresses of `spec` (whose `info.title` is `title`); `given` is the URL the
        source names after `#` ("" for none)."""
        given = given.strip()
        is_file = given.split("?", 1)[0].split("#", 1)[0].lower().endswith(SPEC_SUFFIXES)
        portal = "" if is_file else given or COLLIBRA_PORTALS.get(title, "")
        return cls(
            portal=portal.rstrip("/"),
            spec_url=given if is_file else "",
            docs=_external(spec),
        )

    @property
    def source(self) -> str:
        """What gives the addresses, for the build's description of the source."""
        if self.portal:
            return "portal"
        return "externalDocs" if self.docs else "spec" if self.spec_url else ""

    def tag_page(self, tag: str, tag_meta: dict[str, Any], tagged: bool) -> str:
        """The web page of a tag's generated page; `tagged` is False for the page of
        operations that have no tag, which a portal does not have."""
        if self.portal and tagged:
            return f"{self.portal}/{slug(tag)}"
        return _external(tag_meta) or self.docs or self.spec_url

    def operation(
        self,
        *,
        method: str,
        path: str,
        tag: str,
        tagged: bool,
        own_docs: str,
        page: str,
        anchor: str,
    ) -> str:
        """An operation documented under `tag`, at `anchor` on a generated page whose web page
        is `page`; `own_docs` is the operation's own `externalDocs.url`."""
        if self.portal and tagged:
            return f"{self.portal}/{slug(tag)}#{operation_anchor(method, path)}"
        base = own_docs or (page if page != self.spec_url else "")
        if base:
            return f"{base}#{anchor}" if anchor else base
        if self.spec_url:
            return self.spec_url + json_pointer("paths", path, method.lower())
        return ""

    def schemas_page(self) -> str:
        if self.portal:
            return f"{self.portal}/{MODELS_PAGE}"
        return self.docs or self.spec_url

    def schema(self, name: str, anchor: str) -> str:
        if self.portal:
            return f"{self.portal}/{MODELS_PAGE}#{github_slug(f'The {name} object')}"
        if self.docs:
            return f"{self.docs}#{anchor}" if anchor else self.docs
        if self.spec_url:
            return self.spec_url + json_pointer("components", "schemas", name)
        return ""
