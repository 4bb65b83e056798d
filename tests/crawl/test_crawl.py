"""The crawler against a docs site served on 127.0.0.1 by the tests themselves."""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from atlas_core.crawl import CrawlOptions, FetchSettings, crawl, validate_mirror
from atlas_core.crawl.llms_txt import mirror_relpath, parse_index
from atlas_core.errors import CrawlError
from atlas_core.markdown.frontmatter import split_front_matter
from tests.site_server import SiteServer

FAST = FetchSettings(delay_min=0.0, delay_max=0.0, timeout=5.0, retries=2, backoff_base=0.05)

ASSETS_PAGE = """---
description: Working with assets
---
# Assets

Assets are the things you govern.

{% hint style="info" %}
Use the bulk endpoint for more than ten assets.
{% endhint %}

## Find assets

Call `GET /rest/2.0/assets` with a name filter.
"""

DOMAINS_PAGE = "# Domains\n\nA domain groups assets of one kind.\n"
AUTH_PAGE = "# Authentication\n\nSend a session cookie or a bearer token.\n"
GRAPHQL_PAGE = "# GraphQL\n\nQuery the knowledge graph with cursors.\n"


def _atlas(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "atlas_ls.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _basic_site(site: SiteServer) -> None:
    site.add(
        "/llms.txt",
        "# Example docs\n\n"
        "## REST API\n\n"
        "- [Assets](/rest/assets.md): assets\n"
        "- [Domains](/rest/domains): extension-less, fetched as .md\n\n"
        "## Guides\n\n"
        f"- [Authentication]({site.url('/guides/auth.md')})\n"
        "- [More guides](/guides/llms.txt)\n"
        "- [A picture](/img/logo.png)\n",
        content_type="text/plain",
    )
    site.add("/rest/assets.md", ASSETS_PAGE, etag=True)
    site.add("/rest/domains.md", DOMAINS_PAGE)
    site.add("/guides/auth.md", AUTH_PAGE)
    site.add("/guides/llms.txt", "- [GraphQL](/guides/graphql.md)\n", content_type="text/plain")
    site.add("/guides/graphql.md", GRAPHQL_PAGE)


def test_index_parsing_sections_extensions_and_nesting() -> None:
    text = (
        "# Site\n\n## Core API\n\n- [A](/a.md)\n- [B](https://h/b)\n- [Img](/x.png)\n"
        "```\n- [In a fence](/fenced.md)\n```\n"
        "## Guides\n\n[Nested](/g/llms.txt) and [Full](/llms-full.txt) <https://h/c>\n"
    )
    links = parse_index(text, "https://h/llms.txt")
    got = [(link.url, link.section, link.nested) for link in links]
    assert got == [
        ("https://h/a.md", "core-api", False),
        ("https://h/b.md", "core-api", False),
        ("https://h/g/llms.txt", "guides", True),
        ("https://h/c.md", "guides", False),
    ]


@pytest.mark.parametrize(
    "url",
    [
        "http://h/../../etc/passwd.md",
        "http://h/a/%2e%2e/%2e%2e/etc/passwd.md",
        "http://h//abs/path.md",
        "http://h/a/..%2f..%2fsecret.md",
        "http://h/a\\..\\..\\win.md",
    ],
)
def test_mirror_paths_never_escape(url: str, tmp_path: Path) -> None:
    rel = mirror_relpath(url, "h")
    assert ".." not in rel.split("/")
    assert not rel.startswith("/")
    assert (tmp_path / rel).resolve().is_relative_to(tmp_path)


def test_crawl_cli_writes_a_mirror_the_build_accepts(site: SiteServer, tmp_path: Path) -> None:
    _basic_site(site)
    out = tmp_path / "mirror"
    result = _atlas(
        "crawl", "--output", str(out), "--index-url", site.url("/llms.txt"),
        "--delay-min", "0", "--delay-max", "0",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "4 fetched" in result.stdout
    markdown = out / "markdown"
    pages = sorted(p.relative_to(markdown).as_posix() for p in markdown.rglob("*.md"))
    assert pages == [
        "guides/guides/auth.md",
        "guides/guides/graphql.md",
        "rest-api/rest/assets.md",
        "rest-api/rest/domains.md",
    ]
    meta, body = split_front_matter(
        (markdown / "rest-api/rest/assets.md").read_text(), strict=False
    )
    assert meta["title"] == "Assets"
    assert meta["source_url"] == site.url("/rest/assets.md")
    assert meta["etag"] and len(meta["sha256"]) == 64 and meta["fetched_at"].endswith("Z")
    assert meta["description"] == "Working with assets"
    assert "{% hint" not in body and "bulk endpoint" in body  # GitBook syntax cleaned, text kept
    assert "description:" not in body
    crawl_meta = json.loads((out / "crawl_meta.json").read_text())
    assert crawl_meta["sections"]["rest-api"]["fetched"] == 2
    assert crawl_meta["sections"]["guides"]["found"] == 2
    assert crawl_meta["sections"]["rest-api"]["cleaned_bytes"] > 0
    assert any("Atlas" in ua for ua in site.user_agents)

    validated = _atlas("crawl-validate", str(out))
    assert validated.returncode == 0, validated.stdout

    bundle = tmp_path / "bundle"
    built = _atlas(
        "build", "--source", f"mirror={out}", "--output", str(bundle), "--model", "hash",
        timeout=300,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    assert (bundle / "mirror" / "rest-api/rest/assets.md").is_file()


# Fault injection against a live site, 4 s: .ci/run runs it.
@pytest.mark.stress
def test_faults_are_reported_and_never_abort(site: SiteServer, tmp_path: Path) -> None:
    index = ["## Docs"]
    ok_pages = {
        "/ok.md": "# Fine\n\nA page.\n",
        "/flaky.md": "# Flaky\n\nWorks on the second try.\n",
        "/limited.md": "# Limited\n\nRate limited once.\n",
        "/latin.md": "# Caf\xe9\n\nNa\xefve bytes.\n",
    }
    site.add("/ok.md", ok_pages["/ok.md"])
    site.add("/flaky.md", ok_pages["/flaky.md"], fail_first=1, fail_status=500)
    site.add(
        "/limited.md", ok_pages["/limited.md"], fail_first=1, fail_status=429,
        fail_headers={"Retry-After": "1"},
    )  # fmt: skip
    site.add("/latin.md", ok_pages["/latin.md"].encode("cp1252"), charset=None)
    site.add("/slow.md", "# Slow\n", delay=3.0)
    site.add("/away.md", status=302, headers={"Location": site.url("/ok.md", host="localhost")})
    site.add("/loop-a.md", status=302, headers={"Location": "/loop-b.md"})
    site.add("/loop-b.md", status=302, headers={"Location": "/loop-a.md"})
    site.add("/huge.md", stream_bytes=50 * 1024 * 1024)
    site.add("/html.md", "<!DOCTYPE html><html><body>hi</body></html>", content_type="text/html")
    site.add("/private/secret.md", "# Secret\n")
    for path in [*ok_pages, "/slow.md", "/away.md", "/loop-a.md", "/huge.md", "/html.md",
                 "/private/secret.md", "/../../escape.md", "/%2e%2e/%2e%2e/escape2.md",
                 "/missing.md"]:  # fmt: skip
        index.append(f"- [{path}]({path})")
    site.add("/llms.txt", "\n".join(index) + "\n", content_type="text/plain")

    out = tmp_path / "mirror"
    settings = FetchSettings(
        delay_min=0, delay_max=0, timeout=1.0, retries=1, backoff_base=0.05,
        max_bytes=10 * 1024 * 1024,
    )  # fmt: skip
    summary = crawl(
        CrawlOptions(output=out, index_url=site.url("/llms.txt"), fetch=settings, progress=False)
    )
    written = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert all(path.startswith(("markdown/docs/", "crawl_meta.json")) for path in written)
    assert {"markdown/docs/ok.md", "markdown/docs/flaky.md", "markdown/docs/limited.md",
            "markdown/docs/latin.md"} <= written  # fmt: skip
    assert site.hits["/flaky.md"] == 2 and site.hits["/limited.md"] == 2
    latin_meta, latin_body = split_front_matter(
        (out / "markdown/docs/latin.md").read_text(), strict=False
    )
    assert "Café" in latin_body and "windows-1252" in latin_meta["encoding_note"]

    problems = {p["url"].rsplit("/", 1)[-1]: p for p in summary.problems}
    assert "timed out" in problems["slow.md"]["message"]
    assert "allow-host localhost" in problems["away.md"]["message"]
    assert "loop" in problems["loop-a.md"]["message"]
    assert "larger than" in problems["huge.md"]["message"]
    assert "HTML" in problems["html.md"]["message"]
    assert "robots" in problems["secret.md"]["message"]
    assert "404" in problems["missing.md"]["message"]
    assert site.hits["/private/secret.md"] == 0
    meta = json.loads((out / "crawl_meta.json").read_text())
    assert meta["totals"]["errors"] + meta["totals"]["skipped"] == len(summary.problems)

    # The same redirect is followed once the other host is allowed.
    allowed = crawl(
        CrawlOptions(
            output=tmp_path / "mirror2", index_url=site.url("/llms.txt"), fetch=settings,
            allow_hosts=("localhost",), progress=False, max_pages=6,
        )
    )  # fmt: skip
    assert "away.md" not in {p["url"].rsplit("/", 1)[-1] for p in allowed.problems}


def test_incremental_crawl_skips_unchanged_and_removes_vanished(
    site: SiteServer, tmp_path: Path
) -> None:
    _basic_site(site)
    out = tmp_path / "mirror"
    options = CrawlOptions(output=out, index_url=site.url("/llms.txt"), fetch=FAST, progress=False)
    first = crawl(options)
    assert first.total("fetched") == 4

    site.add("/guides/auth.md", AUTH_PAGE + "\nNew paragraph.\n")
    site.add(
        "/llms.txt",
        f"## REST API\n\n- [Assets](/rest/assets.md)\n\n## Guides\n\n- [Auth]({site.url('/guides/auth.md')})\n"
        "- [More](/guides/llms.txt)\n",
        content_type="text/plain",
    )
    second = crawl(
        CrawlOptions(
            output=out, index_url=site.url("/llms.txt"), fetch=FAST, progress=False,
            incremental=True,
        )
    )  # fmt: skip
    assert site.conditional_hits["/rest/assets.md"] == 1  # ETag answered with 304
    assert second.total("unchanged") == 2  # assets (304) and graphql (same checksum)
    assert second.total("fetched") == 1  # auth changed
    assert second.removed == ["rest-api/rest/domains.md"]
    assert not (out / "markdown/rest-api/rest/domains.md").exists()
    assert "New paragraph" in (out / "markdown/guides/guides/auth.md").read_text()


def test_sections_and_max_pages_limit_the_crawl(site: SiteServer, tmp_path: Path) -> None:
    _basic_site(site)
    summary = crawl(
        CrawlOptions(
            output=tmp_path / "m", index_url=site.url("/llms.txt"), fetch=FAST, progress=False,
            sections=("guides",), max_pages=1,
        )
    )  # fmt: skip
    assert set(summary.sections) == {"guides"} and summary.total("fetched") == 1
    with pytest.raises(CrawlError, match="no pages in sections"):
        crawl(
            CrawlOptions(
                output=tmp_path / "n", index_url=site.url("/llms.txt"), fetch=FAST,
                progress=False, sections=("nope",),
            )
        )  # fmt: skip


@pytest.mark.stress
def test_five_thousand_links_with_bounded_memory(site: SiteServer, tmp_path: Path) -> None:
    lines = ["## Bulk"]
    for i in range(5000):
        site.add(f"/bulk/p{i}.md", f"# Page {i}\n\nBody {i}.\n")
        lines.append(f"- [Page {i}](/bulk/p{i}.md)")
    site.add("/llms.txt", "\n".join(lines) + "\n", content_type="text/plain")
    settings = FetchSettings(delay_min=0, delay_max=0, max_concurrent=20, timeout=10)
    tracemalloc.start()
    try:
        summary = crawl(
            CrawlOptions(
                output=tmp_path / "m", index_url=site.url("/llms.txt"), fetch=settings,
                progress=False, clean=False,
            )
        )  # fmt: skip
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert summary.total("fetched") == 5000
    # The test server shares this process, so the bound covers both; bodies are never all held.
    assert peak < 150 * 1024 * 1024, f"peak traced memory {peak / 1e6:.0f} MB"


def test_unreachable_index_is_one_line_and_exit_3(tmp_path: Path) -> None:
    result = _atlas(
        "crawl", "--output", str(tmp_path / "m"), "--index-url", "http://127.0.0.1:9/llms.txt",
        "--retries", "0", "--timeout", "2",
    )  # fmt: skip
    assert result.returncode == 3  # a network failure, not bad input
    assert result.stderr.startswith("atlas: error: could not fetch the index")
    assert "hint:" in result.stderr and "Traceback" not in result.stderr


def test_validate_reports_file_and_line(tmp_path: Path) -> None:
    root = tmp_path / "m"
    (root / "markdown" / "sec").mkdir(parents=True)
    (root / "markdown" / "sec" / "good.md").write_text(
        "---\ntitle: Good\nsource_url: https://x/good\n---\n\n# Good\n\n```html\n<div>ok in code</div>\n```\n"
        "Inline `<span>` is fine.\n"
    )
    (root / "markdown" / "sec" / "bad.md").write_text(
        '---\ntitle: Bad\n---\n\n# Bad\n\n{% hint style="info" %}\nText\n<mark>hi</mark>\n'
    )
    (root / "markdown" / "loose.md").write_text("no front matter\n")
    findings = [str(f) for f in validate_mirror(root)]
    assert "markdown/sec/bad.md:1: front matter lacks 'source_url'" in findings
    assert any(f.startswith("markdown/sec/bad.md:7: GitBook syntax") for f in findings)
    assert any(f.startswith("markdown/sec/bad.md:9: stray HTML <mark>") for f in findings)
    assert any(f.startswith("markdown/loose.md") and "section folder" in f for f in findings)
    assert not any("good.md" in f for f in findings)
    result = _atlas("crawl-validate", str(root))
    assert result.returncode == 1 and "bad.md:7" in result.stdout


def test_robots_txt_server_error_keeps_the_crawler_off_the_host(tmp_path: Path) -> None:
    # RFC 9309: a robots.txt that answers 5xx means the whole host is disallowed.
    site = SiteServer().start()
    try:
        site.add("/robots.txt", "busy", status=503, content_type="text/plain")
        site.add("/llms.txt", "- [Assets](/rest/assets.md)\n", content_type="text/plain")
        site.add("/rest/assets.md", ASSETS_PAGE)
        with pytest.raises(CrawlError, match="robots"):
            crawl(
                CrawlOptions(
                    output=tmp_path / "mirror",
                    index_url=site.url("/llms.txt"),
                    fetch=FAST,
                    progress=False,
                )
            )
        assert site.hits["/robots.txt"] >= 1
        assert site.hits["/llms.txt"] == 0 and site.hits["/rest/assets.md"] == 0
    finally:
        site.stop()
