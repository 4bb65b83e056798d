"""Hostile sources against `atlas build` (issue 10, items 3 and 7): nothing outside a source reaches
the bundle, and a cheap input costs neither minutes, gigabytes nor a traceback.

Every case runs the real CLI as a subprocess, under a memory cap and a time limit far above what
the fixed code needs and far below what the quadratic (or unbounded) code before the fix took, so
a regression fails the case instead of stalling the suite. No case measures time.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.site_server import SiteServer

# The CLI, started with its address space capped: a bomb that slips through fails with
# MemoryError instead of taking the machine's memory (RLIMIT_AS is not enforced everywhere).
_LAUNCH = (
    "import resource, sys\n"
    "try:\n"
    "    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))\n"
    "except (ValueError, OSError):\n"
    "    pass\n"
    "from atlas_ls.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)
MARKER = "ATLAS-OUTSIDE-SECRET-7f3a9c"


def atlas(*args: str | Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _LAUNCH, *map(str, args)],
        capture_output=True,
        text=True,
        errors="replace",
        timeout=timeout,
    )


def build(
    output: Path, *sources: str | Path, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    specs = [arg for spec in sources for arg in ("--source", str(spec))]
    return atlas("build", *specs, "--output", output, "--model", "hash", "-q", timeout=timeout)


def assert_built(out: subprocess.CompletedProcess[str]) -> None:
    assert out.returncode == 0, out.stderr[-3000:]
    assert "Traceback" not in out.stderr


def assert_refused(out: subprocess.CompletedProcess[str], output: Path, *fragments: str) -> None:
    """Exit 2, one error line naming what was wrong, a hint, no traceback, no output written."""
    assert out.returncode == 2, out.stderr[-3000:]
    assert "Traceback" not in out.stderr
    errors = [line for line in out.stderr.splitlines() if line.startswith("atlas: error:")]
    assert len(errors) == 1, out.stderr[-3000:]
    for fragment in fragments:
        assert fragment in errors[0], errors[0]
    assert "  hint: " in out.stderr
    assert not output.exists()


def files_mentioning(root: Path, text: str) -> list[str]:
    """Files under root holding text, raw or in a decoded Parquet column (pages may compress)."""
    found = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        hit = text.encode() in path.read_bytes()
        if not hit and path.suffix == ".parquet":
            hit = text in json.dumps(pq.read_table(path).to_pylist(), default=str)
        if hit:
            found.append(str(path.relative_to(root)))
    return found


def manifest_sources(output: Path) -> list[dict]:
    return json.loads((output / "manifest.json").read_text())["sources"]


def page(folder: Path, rel: str = "page.md", text: str = "# Page\n\nKettle text.\n") -> Path:
    path = folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder next to the source holding files whose content must never reach a bundle."""
    folder = tmp_path / "outside"
    page(folder, "secret.md", f"# Secret\n\n{MARKER}\n")
    (folder / "meta.json").write_text(json.dumps({"marker": MARKER}))
    return folder


# --- item 3: sources never follow links -------------------------------------------------------

# Each case adds links to a source holding page.md and returns how many links it skipped.
LINK_CASES: dict[str, Callable[[Path, Path], int]] = {}


def link_case(name: str) -> Callable[[Callable[[Path, Path], int]], Callable[[Path, Path], int]]:
    def register(make: Callable[[Path, Path], int]) -> Callable[[Path, Path], int]:
        LINK_CASES[name] = make
        return make

    return register


@link_case("file link to an absolute path outside")
def _absolute(src: Path, outside: Path) -> int:
    (src / "leak.md").symlink_to(outside / "secret.md")
    return 1


@link_case("file link to /etc/passwd")
def _passwd(src: Path, outside: Path) -> int:
    (src / "passwd.md").symlink_to("/etc/passwd")
    return 1


@link_case("relative link climbing out")
def _relative(src: Path, outside: Path) -> int:
    (src / "docs").mkdir()
    (src / "docs" / "a.md").symlink_to(Path("..", "..", "outside", "secret.md"))
    return 1


@link_case("folder link outside")
def _folder(src: Path, outside: Path) -> int:
    (src / "docs").symlink_to(outside, target_is_directory=True)
    return 1


@link_case("chain of links through the source")
def _chain(src: Path, outside: Path) -> int:
    (src / "inner").mkdir()
    (src / "inner" / "hop.md").symlink_to(outside / "secret.md")
    (src / "start.md").symlink_to(Path("inner", "hop.md"))
    return 2


@link_case("loops, a broken link and a FIFO")
def _loops(src: Path, outside: Path) -> int:
    (src / "loop.md").symlink_to("loop.md")
    (src / "ring-a.md").symlink_to("ring-b.md")
    (src / "ring-b.md").symlink_to("ring-a.md")
    (src / "again").symlink_to(".", target_is_directory=True)
    (src / "gone.md").symlink_to(outside / "missing.md")
    if hasattr(os, "mkfifo"):
        os.mkfifo(src / "pipe.md")  # not a link, not a regular file: neither read nor counted
    return 5


@link_case("link inside the source")
def _inside(src: Path, outside: Path) -> int:
    # Skipped too: its target is read under its own path, following would only index it twice.
    (src / "alias.md").symlink_to("page.md")
    return 1


@pytest.mark.parametrize("case", list(LINK_CASES))
def test_local_source_never_follows_links(tmp_path: Path, outside: Path, case: str) -> None:
    src = tmp_path / "src"
    page(src)
    skipped = LINK_CASES[case](src, outside)
    output = tmp_path / "bundle"
    out = build(output, f"local={src}")
    assert_built(out)
    assert files_mentioning(output, MARKER) == []
    assert files_mentioning(output, "root:x:0:0") == []
    (source,) = manifest_sources(output)
    assert source["skipped_links"] == skipped
    assert source["documents"] == 1
    assert f"skipped {skipped} symbolic link(s)" in out.stdout
    assert f"{skipped} symbolic link(s) skipped" in out.stderr  # the warning names them


def test_mirror_source_never_follows_links(tmp_path: Path, outside: Path) -> None:
    mirror = tmp_path / "mirror"
    page(mirror / "markdown" / "guides")
    (mirror / "markdown" / "guides" / "leak.md").symlink_to(outside / "secret.md")
    # crawl_meta.json's values go into the manifest: a link there would publish another file.
    (mirror / "crawl_meta.json").symlink_to(outside / "meta.json")
    output = tmp_path / "bundle"
    out = build(output, f"mirror={mirror}")
    assert_built(out)
    assert files_mentioning(output, MARKER) == []
    (source,) = manifest_sources(output)
    assert source["skipped_links"] == 1
    assert "crawl" not in source
    assert "guides/leak.md" in out.stderr


def test_mirror_whose_markdown_folder_is_a_link_is_refused(tmp_path: Path, outside: Path) -> None:
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "markdown").symlink_to(outside, target_is_directory=True)
    output = tmp_path / "bundle"
    assert_refused(build(output, f"mirror={mirror}"), output, "markdown/ is a symbolic link")


def _git(repo: Path, *args: str | bytes) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.test", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    page(repo)
    _git(repo, "init", "-q", "-b", "main")
    return repo


def test_git_source_skips_committed_links(git_repo: Path, outside: Path, tmp_path: Path) -> None:
    (git_repo / "leak.md").symlink_to(outside / "secret.md")
    (git_repo / "climb.md").symlink_to(Path("..", "outside", "secret.md"))
    (git_repo / "docs").symlink_to(outside, target_is_directory=True)
    _git(git_repo, "add", "-A")
    _git(git_repo, "commit", "-q", "-m", "links")
    output = tmp_path / "bundle"
    out = build(output, f"git={git_repo}")
    assert_built(out)
    assert files_mentioning(output, MARKER) == []
    (source,) = manifest_sources(output)
    assert source["skipped_links"] == 3
    assert source["documents"] == 1
    assert "skipped 3 symbolic link(s)" in out.stdout


# --- item 7a: YAML that expands or nests without bound -----------------------------------------


def _laughs(levels: int = 9) -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for n in range(1, levels):
        lines.append(f"a{n}: &a{n} [" + ",".join([f"*a{n - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


BAD_FRONT_MATTER = {
    # ~500 bytes that stand for 9**9 strings: 190 s and 10.4 GB before the fix.
    "billion laughs": (_laughs(), "expands to more than 10,000 values"),
    "recursive alias": ("title: x\nloop: &loop [*loop]\n", "refers to itself"),
    "nested 5,000 deep": ("deep: " + "[" * 5000 + "]" * 5000 + "\n", "nested more than 100"),
    # int() refuses over 4,300 digits with a bare ValueError; base 60 costs quadratic arithmetic.
    "5,000-digit number": ("n: " + "9" * 5000 + "\n", "a number written with 5,000 characters"),
    "base-60 number of 20,000 parts": ("n: 1" + ":59" * 20_000 + "\n", "a number written with"),
    # A date YAML resolves but Python cannot build: a bare ValueError before.
    "impossible date": ("date: 2001-13-45\n", "month must be in 1..12"),
}


@pytest.mark.parametrize("case", list(BAD_FRONT_MATTER))
def test_bad_front_matter_is_refused_naming_the_file(tmp_path: Path, case: str) -> None:
    yaml_text, problem = BAD_FRONT_MATTER[case]
    src = tmp_path / "src"
    page(src)
    page(src, "bomb.md", f"---\n{yaml_text}---\n# Bomb\n\nBody.\n")
    output = tmp_path / "bundle"
    assert_refused(build(output, f"local={src}"), output, "bomb.md:", problem)


# --- item 7b: heading-only files chunk in linear time ----------------------------------------

HEADING_FILES = {
    # The case: 80 s for 40,000 headings and over 600 s for 200,000 before the fix, so a
    # quadratic step would take about 180 s here against the 120 s the build is given; linear,
    # it takes a few seconds.
    "60,000 H2 headings": "".join(f"## Heading {i}\n" for i in range(60_000)),
    # Each further shape went through another quadratic step (sub-heading paths, filing
    # sub-headings under their section); 100,000 already took hours there, 40,000 far past 120 s.
    "40,000 H3 headings under one H2": "## Top\n"
    + "".join(f"### Heading {i}\n" for i in range(40_000)),
    "40,000 H2 and H3 headings": "".join(
        f"{'##' if i % 2 else '###'} Heading {i}\n" for i in range(40_000)
    ),
}


@pytest.mark.parametrize("case", list(HEADING_FILES))
def test_a_file_of_headings_builds(tmp_path: Path, case: str) -> None:
    src = tmp_path / "src"
    page(src)  # the headings alone are navigation and give no chunk; a build needs some text
    page(src, "headings.md", HEADING_FILES[case])
    output = tmp_path / "bundle"
    assert_built(build(output, f"local={src}", timeout=120))
    (source,) = manifest_sources(output)
    assert source["documents"] == 2


# --- item 7c: OpenAPI specs nested, aliased or chained without bound ---------------------------

_OPERATION = {"get": {"responses": {"200": {"description": "ok"}}}}


def _spec(**extra: object) -> dict:
    return {
        "openapi": "3.0.3",
        "info": {"title": "Kettle", "version": "1"},
        "paths": {"/kettle": _OPERATION},
        **extra,
    }


def _yaml_spec(tail: str) -> str:
    head = 'openapi: 3.0.3\ninfo: {title: Kettle, version: "1"}\n'
    return (
        head
        + "paths:\n  /kettle:\n    get:\n      responses:\n        '200': {description: ok}\n"
        + tail
    )


def _ref_chain(n: int) -> str:
    schemas = {f"S{i}": {"$ref": f"#/components/schemas/S{i + 1}"} for i in range(n)}
    schemas[f"S{n}"] = {"type": "string"}
    return json.dumps(_spec(components={"schemas": schemas}))


BAD_SPECS = {
    "JSON nested 5,000 deep": (
        "spec.json",
        json.dumps(_spec(x=[])).replace("[]", "[" * 5000 + "]" * 5000),
        "nested more than 100 levels deep",
    ),
    "YAML nested 5,000 deep": (
        "spec.yaml",
        _yaml_spec("x: " + "[" * 5000 + "]" * 5000 + "\n"),
        "nested more than 100 levels deep",
    ),
    "YAML billion laughs": ("spec.yaml", _yaml_spec(_laughs(9)), "expands to more than"),
    "YAML recursive alias": ("spec.yaml", _yaml_spec("x: &x {y: *x}\n"), "refers to itself"),
    "JSON 5,000-digit number": (
        "spec.json",
        json.dumps(_spec(x=[])).replace("[]", "9" * 5000),
        "a number written with 5,000 characters",
    ),
    "YAML 5,000-digit number": (
        "spec.yaml",
        _yaml_spec("x: " + "9" * 5000 + "\n"),
        "a number written with 5,000 characters",
    ),
    "$ref chain 20,000 long": ("spec.json", _ref_chain(20_000), "$ref chain longer than 32"),
    "circular $ref": (
        "spec.json",
        json.dumps(
            _spec(
                components={
                    "schemas": {
                        "A": {"$ref": "#/components/schemas/B"},
                        "B": {"$ref": "#/components/schemas/A"},
                    }
                }
            )
        ),
        "circular $ref",
    ),
}


@pytest.mark.parametrize("case", list(BAD_SPECS))
def test_hostile_openapi_spec_is_refused_naming_the_file(tmp_path: Path, case: str) -> None:
    name, text, problem = BAD_SPECS[case]
    (tmp_path / name).write_text(text)
    output = tmp_path / "bundle"
    assert_refused(build(output, f"openapi={tmp_path / name}"), output, name, problem)


def _alike_tags(n: int) -> list[str]:
    """n distinct short tags that all slug to `t`: `t!`, `t$`, ..., `t!!`, `t!$`, ..."""
    marks = "!$%&'()+,.:;=?@~"
    tags: list[str] = []
    for length in range(1, 6):
        tags += ["t" + "".join(p) for p in itertools.product(marks, repeat=length)]
        if len(tags) >= n:
            break
    return tags[:n]


def _tagged_spec(declared: list[str], operations: int) -> str:
    """Tags declared at the top level (a page only for those an operation uses), and
    operations each tagged with one of the first tags."""
    paths = {
        f"/op{i}": {"get": {**_OPERATION["get"], "tags": [declared[i]]}} for i in range(operations)
    }
    return json.dumps({**_spec(), "paths": paths, "tags": [{"name": tag} for tag in declared]})


GOOD_SPECS = {
    "self-referencing schema": json.dumps(
        _spec(
            components={
                "schemas": {
                    "Node": {
                        "type": "object",
                        "properties": {
                            "children": {
                                "type": "array",
                                "items": {"$ref": "#/components/schemas/Node"},
                            }
                        },
                    }
                }
            }
        )
    ),
    # Every tag scanned every operation: quadratic in tags times operations (3e9 steps here,
    # minutes, against the 120 s the build is given; the build's own time is in the operations).
    "300,000 tags, 10,000 operations": _tagged_spec([f"tag {i}" for i in range(300_000)], 10_000),
    # Each tag that slugs like an earlier one retried every suffix from 1.
    "30,000 tags that slug alike": _tagged_spec(_alike_tags(30_000), 1),
}


@pytest.mark.parametrize("case", list(GOOD_SPECS))
def test_large_or_recursive_openapi_spec_builds(tmp_path: Path, case: str) -> None:
    (tmp_path / "spec.json").write_text(GOOD_SPECS[case])
    output = tmp_path / "bundle"
    assert_built(build(output, f"openapi={tmp_path / 'spec.json'}", timeout=120))


def test_openapi_external_refs_are_never_read_or_fetched(tmp_path: Path, outside: Path) -> None:
    (outside / "secret.yaml").write_text(f"Secret:\n  type: string\n  description: {MARKER}\n")
    server = SiteServer().start()
    try:
        server.add("/secret.yaml", f"Secret: {{description: {MARKER}}}\n")
        refs = [
            "../outside/secret.yaml#/Secret",
            f"{(outside / 'secret.yaml').as_uri()}#/Secret",
            server.url("/secret.yaml") + "#/Secret",
        ]
        spec = _spec(components={"schemas": {f"S{i}": {"$ref": ref} for i, ref in enumerate(refs)}})
        spec["paths"]["/kettle"]["get"]["responses"]["200"]["content"] = {
            "application/json": {"schema": {"$ref": refs[0]}}
        }
        (tmp_path / "spec").mkdir()
        (tmp_path / "spec" / "spec.json").write_text(json.dumps(spec))
        output = tmp_path / "bundle"
        out = build(output, f"openapi={tmp_path / 'spec' / 'spec.json'}")
        assert_built(out)
        assert files_mentioning(output, MARKER) == []
        assert sum(server.hits.values()) == 0
        assert "4 external $ref(s) not followed" in out.stderr
    finally:
        server.stop()


# --- item 7d: names and contents that are not what they should be ------------------------------


def test_undecodable_file_names_are_skipped_and_the_bundle_reads(tmp_path: Path) -> None:
    if sys.platform == "darwin":
        pytest.skip("macOS file systems refuse names that are not UTF-8")
    # The source folder's own name is not UTF-8 either: it names top-level pages' publication.
    src = tmp_path / os.fsdecode(b"docs-\xe9")
    page(src)
    page(src, os.fsdecode(b"caf\xe9.md"))
    page(src / os.fsdecode(b"sub-\xff"), "inner.md")
    output = tmp_path / "bundle"
    out = build(output, f"local={src}")
    assert_built(out)
    assert "caf\\xe9.md" in out.stderr and "sub-\\xff/" in out.stderr
    assert "skipped 2 file(s) whose names are not UTF-8" in out.stdout
    (source,) = manifest_sources(output)
    assert source["skipped_names"] == 2 and source["documents"] == 1
    assert "docs-\\xe9" in source["path"]
    verify = atlas("verify", output)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    chunks = pq.read_table(output / "chunks.parquet").to_pylist()
    assert {chunk["file"] for chunk in chunks} == {"page.md"}
    assert {chunk["publication"] for chunk in chunks} == {"docs-\\xe9"}


def test_git_file_names_that_are_not_utf8_are_skipped(git_repo: Path, tmp_path: Path) -> None:
    if sys.platform == "darwin":
        pytest.skip("macOS file systems refuse names that are not UTF-8")
    page(git_repo, os.fsdecode(b"caf\xe9.md"))
    _git(git_repo, "add", "-A")
    _git(git_repo, "commit", "-q", "-m", "latin-1 name")
    output = tmp_path / "bundle"
    out = build(output, f"git={git_repo}")
    assert_built(out)
    assert "caf\\xe9.md" in out.stderr
    (source,) = manifest_sources(output)
    assert source["skipped_names"] == 1 and source["documents"] == 1


ODD_CONTENT = {
    # (file bytes, None when the build succeeds, else the problem the one error line names)
    "not UTF-8": (b"# Caf\xe9\n\nLatin-1.\n", "not UTF-8 (invalid byte 0xe9"),
    "empty": (b"", None),
    "only front matter": (b"---\ntitle: Empty\n---\n", None),
    "NUL bytes": (b"# Nul\n\nA \x00 in text and \x000\x00 like a placeholder.\n", None),
    # A placeholder of the GitBook cleaner inside code: restored into itself, forever, before.
    "NUL placeholder in code": (b"# Nul\n\nSee `\x000\x00` here.\n", None),
}


@pytest.mark.parametrize("case", list(ODD_CONTENT))
def test_odd_file_content_builds_or_is_one_clear_line(tmp_path: Path, case: str) -> None:
    data, problem = ODD_CONTENT[case]
    mirror = tmp_path / "mirror"
    page(mirror / "markdown" / "guides")
    (mirror / "markdown" / "guides" / "odd.md").write_bytes(data)
    output = tmp_path / "bundle"
    out = build(output, f"mirror={mirror}")  # a mirror: the GitBook cleaner runs
    if problem is None:
        assert_built(out)
        if b"\x00" in data:  # CommonMark's rule: NUL becomes U+FFFD, also in the bundle
            assert b"\x00" not in (output / "mirror" / "guides" / "odd.md").read_bytes()
    else:
        assert_refused(out, output, "odd.md", problem)


# --- cheap inputs that were quadratic in the GitBook cleaner and the heading parser ------------

HOSTILE_MARKUP = {
    "unclosed liquid tags": "{% a " * 50_000,
    "hints without endhint": "{% hint %}x" * 20_000,
    "hint tags without %}": "{% hint " * 200_000 + "{% endhint %}",
    "unclosed tables": "<table>" * 200_000,
    "unclosed pre": "<pre>" * 200_000,
    "unclosed figures": "<figure>" * 200_000,
    "figure of unclosed captions": "<figure>" + "<figcaption>" * 200_000 + "</figure>",
    "unclosed links": "<a href=x>" * 200_000,
    "unclosed summaries": "<summary>" * 200_000,
    "unclosed icons": "<i class='fa-x'>" * 200_000,
    "icon class without a quote": "<i class='" + "fa-" * 200_000,
    "escaped tags without >": "\\<p " * 200_000,
    "images without >": "<img " * 200_000,
    "tags without >": "<a " * 200_000,
    "backtick runs of every length": "".join("`" * k + "a" for k in range(1, 1000)),
    "pre of backticks": "<pre>" + "`" * 1_000_000 + "</pre>",
    "table of a million columns": "<table><tr>"
    + "<td colspan=50>x" * 20_000
    + "<tr><td>y" * 5000
    + "</table>",
}


@pytest.mark.parametrize("case", list(HOSTILE_MARKUP))
def test_hostile_gitbook_markup_builds(tmp_path: Path, case: str) -> None:
    mirror = tmp_path / "mirror"
    # What cleaning leaves of some markup is links or nothing, navigation that gives no chunk:
    # a plain page beside it gives the build its text.
    page(mirror / "markdown" / "guides")
    page(mirror / "markdown" / "guides", "hostile.md", "# Hostile\n\n" + HOSTILE_MARKUP[case])
    output = tmp_path / "bundle"
    assert_built(build(output, f"mirror={mirror}"))
    assert (output / "mirror" / "guides" / "hostile.md").is_file()


HOSTILE_HEADINGS = {
    "spaces before a last word": "# x" + " " * 200_000 + "y",
    "unclosed brackets": "# " + "[" * 400_000,
    "unclosed link targets": "# " + "[a](" * 200_000,
    "nested brackets": "# " + "[" * 200_000 + "]" * 200_000,
    "unclosed tags": "# " + "<a" * 400_000,
    "underscores inside a word": "# a" + "_" * 200_000 + "a",
}


@pytest.mark.parametrize("case", list(HOSTILE_HEADINGS))
def test_hostile_heading_builds(tmp_path: Path, case: str) -> None:
    src = tmp_path / "src"
    page(src, "hostile.md", HOSTILE_HEADINGS[case] + "\n\nBody.\n")
    output = tmp_path / "bundle"
    assert_built(build(output, f"local={src}"))
