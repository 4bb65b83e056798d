"""Navigation-only passages (link bars, breadcrumbs, auth-scheme stubs, lone headings) never become
chunks; a passage with any content, or a back-link, stays whole."""

from __future__ import annotations

import pytest

from atlas_core.markdown.chunker import chunk_documents
from atlas_core.markdown.navigation import is_navigation_only
from atlas_core.types import Document

NAVIGATION = [
    "### Example\n\n* Basic Authentication (basicAuth):",
    "* Api Key Authentication (apiKey):\n* OAuth Authentication (oauth2):",
    "* Bearer (JWT) Authentication (bearerAuth):",
    "[Home](/) > [REST API](/rest) > Assets",
    "[Home](/) › [Guides](/guides) › [Import](/guides/import)",
    "## Related topics\n\n- [Assets API](assets.md)\n- [Domains API](domains.md)\n"
    "* <https://developer.collibra.com/rest>",
    "[Previous](a.md) | [Next](b.md)",
    "> [Back to overview](index.md)",
    "# Title\n\n## Part",
    '---\n\n<a name="files"></a>\n\n***',
    "1. [First step](one.md)\n2. [Second step](two.md)",
]

CONTENT = [
    "Use the bulk endpoint for more than ten assets.",
    "### Example\n\n* Basic Authentication (basicAuth):\n```python\nimport collibra_core\n```",
    "- [Assets API](assets.md): find, add and change assets",
    "See [the Assets API](assets.md) for the parameters.",
    "Main menu > Settings > Workflows",  # a path through the product's own menus
    "![Architecture](arch.png)",
    "| Name | Type |\n|---|---|\n| [**id**](Id.md) | string |",
    "# **add_mapping**\n> Mapping add_mapping(add_mapping_request=add_mapping_request)",
    "[[Back to top]](#)\n\nAdds a new mapping.",
    # Back-links alone are kept: dropping them measured worse (atlas_core/markdown/navigation.py).
    "[[Back to Model list]](../README.md#documentation-for-models) "
    "[[Back to API list]](../README.md#documentation-for-api-endpoints) "
    "[[Back to README]](../README.md)",
    "## Find kettles\n\n[[Back to top]](#) [[Back to API list]](../README.md#apis)",
    "Title\n=====",
    "* Basic Authentication is what the examples use (basicAuth):",
    "",
]


@pytest.mark.parametrize("text", NAVIGATION)
def test_navigation_only_passages(text: str) -> None:
    assert is_navigation_only(text)


@pytest.mark.parametrize("text", CONTENT)
def test_passages_with_content(text: str) -> None:
    assert not is_navigation_only(text)


# The shape openapi-generator writes for every operation and model (made up here, not copied).
GENERATED = """# KettlesApi

Method | HTTP request | Description
------------- | ------------- | -------------
[**boil**](KettlesApi.md#boil) | **POST** /kettles/{id}/boil | Boils a kettle.

# **boil**
> Kettle boil(id)

Boils the kettle identified by its id.

### Example

* Basic Authentication (basicAuth):
```python
import kettles
api = kettles.KettlesApi(kettles.ApiClient())
api.boil("k1")
```

### Parameters

Name | Type | Description  | Notes
------------- | ------------- | ------------- | -------------
 **id** | **str**| The kettle id. |

[[Back to top]](#) [[Back to API list]](../README.md#apis) [[Back to README]](../README.md)

# Kettle

A kettle that boils water.

[[Back to Model list]](../README.md#models) [[Back to README]](../README.md)
"""


def _chunks(max_tokens: int) -> list[str]:
    document = Document(
        path="api/kettles.md", publication="api", title="KettlesApi", url="", text=GENERATED
    )
    chunks = chunk_documents(
        [document], count_tokens=lambda t: len(t.split()) + 2, max_tokens=max_tokens
    )
    lines = GENERATED.split("\n")
    for c in chunks:  # still exact slices of the page
        assert c.text == "\n".join(lines[c.line_start - 1 : c.line_end]).strip("\n")
    return [c.text for c in chunks]


def test_the_chunker_drops_navigation_only_pieces_and_keeps_all_content() -> None:
    for max_tokens in (40, 60, 256):
        texts = _chunks(max_tokens)
        assert not any(is_navigation_only(t) for t in texts), texts
        joined = "\n".join(texts)
        for content in (
            "Boils the kettle identified by its id.",
            "api.boil(",
            "The kettle id.",
            "A kettle that boils water.",
            "| **POST** /kettles/{id}/boil |",
        ):
            assert content in joined, (max_tokens, texts)
    # with small pieces the auth stub came out as a chunk of its own; the back-links stay
    small = _chunks(40)
    assert not any(t.startswith("### Example\n\n* Basic") for t in small)
    assert any("[[Back to top]]" in t for t in small)
