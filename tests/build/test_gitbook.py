"""The GitBook cleaner: every construct becomes plain markdown, code is never touched, and cleaning
twice changes nothing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from atlas_core.markdown.chunker import fence_ids
from atlas_core.markdown.gitbook import clean


def test_hint_becomes_a_labelled_blockquote():
    text = '{% hint style="warning" %}\nUnplug the kettle first.\n\nThen wait.\n{% endhint %}\n'
    assert clean(text) == "> **Warning:**\n> Unplug the kettle first.\n>\n> Then wait.\n"


def test_hint_around_a_fence_keeps_the_fence_intact():
    fence = "```bash\nkettle --boil\n```"
    text = '{% hint style="info" %}\nRun:\n\n' + fence + "\n{% endhint %}\n"
    out = clean(text)
    assert fence in out and "{%" not in out and "**Info:**" in out


def test_tabs_become_bold_titles():
    text = (
        "{% tabs %}\n"
        '{% tab title="Python" %}\nPython text.\n{% endtab %}\n'
        "{% tab title='Java' %}\nJava text.\n{% endtab %}\n"
        "{% endtabs %}\n"
    )
    assert clean(text) == "**Python**\n\nPython text.\n\n**Java**\n\nJava text.\n"


def test_columns_steppers_and_content_refs_keep_their_content():
    text = (
        "{% columns %}\n{% column %}\nLeft side.\n{% endcolumn %}\n"
        '{% column width="50%" %}\nRight side.\n{% endcolumn %}\n{% endcolumns %}\n\n'
        "{% stepper %}\n{% step %}\n### Fill\n\nAdd water.\n{% endstep %}\n{% endstepper %}\n\n"
        '{% content-ref url="boiling.md" %}\n[boiling.md](boiling.md)\n{% endcontent-ref %}\n'
    )
    out = clean(text)
    assert "{%" not in out
    for kept in ("Left side.", "Right side.", "### Fill", "Add water.", "[boiling.md](boiling.md)"):
        assert kept in out
    assert out.count("[boiling.md](boiling.md)") == 1


def test_embed_and_code_title():
    text = (
        '{% embed url="https://video.example.test/watch?v=1" %}\n\n'
        '{% code title="boil.py" lineNumbers="true" %}\n```python\nboil()\n```\n{% endcode %}\n'
    )
    out = clean(text)
    assert "[https://video.example.test/watch?v=1](https://video.example.test/watch?v=1)" in out
    assert "**boil.py**\n\n```python\nboil()\n```" in out


def test_inline_html_marks_icons_and_entities():
    text = (
        'Water is <mark style="color:blue;">hot</mark> <i class="fa-fire">:fire:</i> now. '
        "Use <b>care</b>, <em>always</em>, <code>boil()</code> &amp; wait&nbsp;a&emsp;bit.\n"
    )
    assert clean(text) == "Water is hot now. Use **care**, *always*, `boil()` & wait a bit.\n"


def test_figures_images_links_and_details():
    text = (
        '<figure><img src="img/kettle.png" alt="A kettle"><figcaption><p>The kettle</p>'
        "</figcaption></figure>\n\n"
        '<img src="img/cup.png" alt="Cup" width="40">\n\n'
        '<a href="https://example.test/tea">Tea <b>shop</b></a>\n\n'
        "<details>\n<summary>Why boil?</summary>\n\nTo make tea.\n\n</details>\n"
    )
    out = clean(text)
    assert "![The kettle](img/kettle.png)" in out
    assert "![Cup](img/cup.png)" in out
    assert "[Tea **shop**](https://example.test/tea)" in out
    assert "**Why boil?**" in out and "To make tea." in out
    assert "<" not in out


def test_html_table_to_markdown_table():
    text = (
        "<table><thead><tr><th>Name</th><th>Meaning</th></tr></thead><tbody>"
        "<tr><td><code>a|b</code></td><td>first<br>line</td></tr>"
        '<tr><td colspan="2"><strong>wide</strong> cell</td></tr>'
        "<tr><td>short</td></tr>"
        "</tbody></table>\n"
    )
    assert clean(text) == (
        "| Name | Meaning |\n"
        "| --- | --- |\n"
        "| `a\\|b` | first line |\n"
        "| **wide** cell | |\n"
        "| short | |\n"
    )


def test_table_without_header_uses_first_row():
    out = clean("<table><tr><td>k</td><td>v</td></tr><tr><td>1</td><td>2</td></tr></table>")
    assert out.startswith("| k | v |\n| --- | --- |\n| 1 | 2 |")


def test_paragraphs_breaks_and_lists_in_prose_quotes_and_table_rows():
    assert clean("One.<p>Two.</p><p>Three.</p>\n") == "One.\n\nTwo.\n\nThree.\n"
    assert clean("> \\<p>Quoted.\\</p>\\<p>Again.\\</p>\n") == "> Quoted.\n>\n> Again.\n"
    assert clean("Line one<br/>line two\n") == "Line one\nline two\n"
    assert clean("**id** | str | The id.<br/>Unique. | yes\n") == (
        "**id** | str | The id. Unique. | yes\n"
    )
    assert clean("Pick:<ul><li>green</li><li>black</li></ul>\n") == "Pick:\n\n- green\n- black\n"


def test_double_escaped_html_is_decoded_then_converted():
    text = "Unique id.&lt;br/&gt;Do not start with &lt;code&gt;0000-&lt;/code&gt;, it&#39;s reserved.\n"
    assert clean(text) == "Unique id.\nDo not start with `0000-`, it's reserved.\n"


def test_pre_blocks_become_fences():
    out = clean("<pre><code>if a &lt; b:\n    go()</code></pre>\n")
    assert "```\nif a < b:\n    go()\n```" in out


def test_code_fences_and_inline_code_are_never_touched():
    fence = (
        "```html\n<table><tr><td>x</td></tr></table>\n{% hint %}\n&amp; <br>\n```\n"
        "~~~\n<mark>kept</mark>\n~~~\n"
    )
    text = "Text with `<b>literal</b>` and `{% tab %}`.\n\n" + fence
    out = clean(text)
    assert out == text


def test_unknown_angle_placeholders_are_kept():
    text = "Replace <your-token> and <UUID> in the call.\n"
    assert clean(text) == text


def test_llms_banner_is_dropped():
    text = (
        "> For the complete documentation index, see [llms.txt](https://docs.example.test/llms.txt)."
        " Pages are also markdown.\n\n# Title\n"
    )
    assert clean(text) == "# Title\n"


SAMPLES = [
    '{% hint style="danger" %}\nHot!\n{% endhint %}\n',
    "<table><tr><th>a</th></tr><tr><td>&amp;lt;b&amp;gt;</td></tr></table>\n",
    "A&amp;amp;B &lt;p&gt;x&lt;/p&gt; <p>y</p>\n",
    '{% tabs %}\n{% tab title="A" %}\n```\n{% endtab %}\n```\n{% endtab %}\n{% endtabs %}\n',
    "<details><summary>S</summary>\n<ul><li>one<br>two</li></ul>\n</details>\n",
    "Already **clean** markdown with a [link](x.md).\n\n\n\nAnd gaps.\n",
]


@pytest.mark.parametrize("text", SAMPLES)
def test_idempotent(text: str):
    once = clean(text)
    assert clean(once) == once


def test_fixture_mirror_page_is_clean_and_stable():
    page = (
        Path(__file__).resolve().parents[1]
        / "fixtures"
        / "sources"
        / "mirror"
        / "markdown"
        / "guides"
    )
    text = (page / "brewing.md").read_text()
    once = clean(text)
    assert clean(once) == once
    outside_code = re.sub(r"```.*?```", "", once, flags=re.S)
    assert "{%" not in outside_code and "<table" not in outside_code


@pytest.mark.shared
def test_real_collibra_pages_clean_idempotently(shared_dir: Path):
    pages = sorted((shared_dir / "collibra-docs" / "markdown").rglob("*.md"))
    assert len(pages) > 300
    leftovers = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        once = clean(text)
        assert clean(once) == once, page
        lines = text.split("\n")
        ids = fence_ids(lines)
        for block in sorted(set(ids) - {-1}):
            fence = "\n".join(line for line, n in zip(lines, ids, strict=True) if n == block)
            assert fence in once, page  # code fences survive byte for byte
        out_lines = once.split("\n")
        outside = "\n".join(
            line for line, n in zip(out_lines, fence_ids(out_lines), strict=True) if n < 0
        )
        outside = re.sub(r"`[^`\n]*`", "", outside)
        if re.search(r"\{%|<(?:table|mark|br|p)\b|&lt;br", outside):
            leftovers.append(page.name)
    assert leftovers == []
