"""Sources: local folders, crawled mirrors and git repositories become Documents; bad input is a
SourceError naming the file and what to do."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from atlas_core.errors import SourceError
from atlas_core.sources import load_sources, parse_spec
from atlas_core.sources.git import parse_git_spec

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "sources"
MIRROR = FIXTURES / "mirror"
LOCAL = FIXTURES / "local"


def by_path(source_set):
    return {doc.path: doc for doc in source_set.documents}


# --- local ------------------------------------------------------------------------------------------


def test_local_folder_paths_titles_and_publications():
    result = load_sources([f"local={LOCAL}"])
    docs = by_path(result)
    assert list(docs) == sorted(docs)
    assert set(docs) == {
        "intro.md",
        "recipes/chai.md",
        "recipes/green-tea.md",
        "recipes/oolong.markdown",
    }
    assert docs["recipes/green-tea.md"].title == "Green tea"  # front matter
    assert docs["recipes/oolong.markdown"].title == "Oolong"  # first H1
    assert docs["recipes/chai.md"].title == "chai"  # file stem
    assert docs["recipes/green-tea.md"].publication == "recipes"
    assert docs["intro.md"].publication == "local"  # top-level file: the folder's name
    assert all(doc.source == "local" and doc.url == "" for doc in docs.values())
    (description,) = result.descriptions
    assert description["kind"] == "local"
    assert description["documents"] == 4
    assert description["clean_gitbook"] is False


def test_front_matter_is_metadata_never_body():
    docs = by_path(load_sources([f"local={LOCAL}"]))
    green = docs["recipes/green-tea.md"]
    assert green.metadata["tags"] == ["tea", "green"]
    assert "title:" not in green.text and "---" not in green.text
    assert green.text.startswith("Steep green tea")


def test_local_leaves_gitbook_syntax_unless_asked(tmp_path: Path):
    (tmp_path / "page.md").write_text('{% hint style="info" %}\nHot water.\n{% endhint %}\n')
    plain = load_sources([f"local={tmp_path}"]).documents[0]
    assert "{% hint" in plain.text
    cleaned = load_sources([f"local={tmp_path}"], clean_gitbook=True).documents[0]
    assert "{%" not in cleaned.text
    assert "> **Info:**" in cleaned.text


# --- mirror -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", [MIRROR, MIRROR / "markdown"])
def test_mirror_from_root_or_markdown_folder(path: Path):
    result = load_sources([f"mirror={path}"])
    docs = by_path(result)
    assert set(docs) == {
        "guides/brewing.md",
        "guides/descaling.md",
        "reference/kettle-objects.md",
        "reference/nested/limits.md",
    }
    brewing = docs["guides/brewing.md"]
    assert brewing.publication == "guides"
    assert brewing.title == "Brewing with the Kettle API"
    assert brewing.url == "https://docs.example.test/guides/brewing"
    assert brewing.metadata["partial"] is True
    assert brewing.metadata["etag"] == 'W/"abc123"'
    assert docs["reference/nested/limits.md"].publication == "reference"
    assert docs["reference/nested/limits.md"].url == ""

    (description,) = result.descriptions
    assert description["kind"] == "mirror"
    assert description["path"] == str(MIRROR.resolve())
    assert description["sections"] == ["guides", "reference"]
    crawl = description["crawl"]
    assert crawl["source_url"] == "https://docs.example.test/llms.txt"
    assert crawl["sections"]["reference"]["unchanged"] == 1
    assert "pages" not in crawl  # lists stay out of the manifest


def test_mirror_cleans_gitbook_by_default_but_not_code():
    brewing = by_path(load_sources([f"mirror={MIRROR}"]))["guides/brewing.md"]
    text = brewing.text
    assert "{% tabs" not in text and "{% endhint" not in text
    assert "> **Warning:**" in text
    assert "**Python**" in text
    assert "<table" not in text and "| `current` | Degrees now |" in text
    assert "<mark" not in text and "refreshed every second" in text
    assert "For the complete documentation index" not in text
    # inside a code fence nothing changes
    assert "kettle.start_brew(target=92)  # {% hint %} stays as written inside code" in text


def test_mirror_no_clean_keeps_the_text():
    brewing = by_path(load_sources([f"mirror={MIRROR}"], clean_gitbook=False))["guides/brewing.md"]
    assert '{% hint style="warning" %}' in brewing.text


def test_mirror_without_markdown_folder(tmp_path: Path):
    (tmp_path / "page.md").write_text("# Page\n")
    with pytest.raises(SourceError) as err:
        load_sources([f"mirror={tmp_path}"])
    assert "no markdown/ folder" in err.value.message
    assert "local=" in (err.value.hint or "")


# --- several sources, limits, specs ----------------------------------------------------------------


def test_sources_combine_sorted_and_limit_keeps_first_paths():
    both = load_sources([f"mirror={MIRROR}", f"local={LOCAL}"])
    paths = [doc.path for doc in both.documents]
    assert paths == sorted(paths) and len(paths) == 8
    limited = load_sources([f"mirror={MIRROR}", f"local={LOCAL}"], limit=3)
    assert [doc.path for doc in limited.documents] == paths[:3]
    counts = [d["documents"] for d in limited.descriptions]
    assert sum(counts) == 3


def test_duplicate_path_across_sources_names_both(tmp_path: Path):
    other = tmp_path / "copy"
    shutil.copytree(LOCAL, other)
    with pytest.raises(SourceError) as err:
        load_sources([f"local={LOCAL}", f"local={other}"])
    assert "intro.md" in err.value.message
    assert str(LOCAL) in err.value.message and str(other) in err.value.message


@pytest.mark.parametrize(
    ("spec", "needle"),
    [("nothing-here", "expected KIND=PATH"), ("ftp=/x", "unknown kind"), ("local=", "KIND=PATH")],
)
def test_bad_spec(spec: str, needle: str):
    with pytest.raises(SourceError) as err:
        parse_spec(spec)
    assert needle in err.value.message
    assert err.value.hint


def test_no_sources_at_all():
    with pytest.raises(SourceError, match="no sources"):
        load_sources([])


# --- bad input ----------------------------------------------------------------------------------------


def test_missing_folder(tmp_path: Path):
    with pytest.raises(SourceError) as err:
        load_sources([f"local={tmp_path / 'absent'}"])
    assert "no such folder" in err.value.message
    assert str(tmp_path / "absent") in err.value.message


def test_empty_folder(tmp_path: Path):
    (tmp_path / "notes.txt").write_text("not markdown")
    with pytest.raises(SourceError) as err:
        load_sources([f"local={tmp_path}"])
    assert "no markdown files" in err.value.message


def test_non_utf8_file_names_file_and_offset(tmp_path: Path):
    (tmp_path / "good.md").write_text("# Good\n")
    (tmp_path / "bad.md").write_bytes(b"# Caf\xe9 menu\n")
    with pytest.raises(SourceError) as err:
        load_sources([f"local={tmp_path}"])
    assert "bad.md" in err.value.message
    assert "offset 5" in err.value.message and "0xe9" in err.value.message
    assert "UTF-8" in (err.value.hint or "")


def test_front_matter_not_yaml_names_file_and_line(tmp_path: Path):
    (tmp_path / "page.md").write_text("---\ntitle: ok\nbroken: [unclosed\n---\n# Page\n")
    with pytest.raises(SourceError) as err:
        load_sources([f"local={tmp_path}"])
    message = err.value.message
    assert "page.md:" in message and "not valid YAML" in message
    line = int(message.split("page.md:")[1].split(":")[0])
    assert 3 <= line <= 4  # the broken value or the line where YAML noticed it


def test_front_matter_that_is_not_a_mapping(tmp_path: Path):
    (tmp_path / "page.md").write_text("---\n- just\n- a list\n---\n# Page\n")
    with pytest.raises(SourceError, match="expected `key: value`"):
        load_sources([f"local={tmp_path}"])


def test_crlf_and_bom_are_normalised(tmp_path: Path):
    (tmp_path / "win.md").write_bytes(
        b"\xef\xbb\xbf---\r\ntitle: Win\r\n---\r\n# Win\r\n\r\nText\r\n"
    )
    doc = load_sources([f"local={tmp_path}"]).documents[0]
    assert doc.title == "Win"
    assert doc.text == "# Win\n\nText\n"


# --- git ------------------------------------------------------------------------------------------


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
        env={
            "GIT_AUTHOR_NAME": "Test",
            "GIT_AUTHOR_EMAIL": "test@example.test",
            "GIT_COMMITTER_NAME": "Test",
            "GIT_COMMITTER_EMAIL": "test@example.test",
            "HOME": str(repo),
            "PATH": "/usr/bin:/bin:/usr/local/bin",
        },
    ).stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path / "handbook"
    (root / "docs").mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main")
    (root / "README.md").write_text("# Handbook\n\nRead me first.\n")
    (root / "docs" / "steeping.md").write_text("---\ntitle: Steeping\n---\n# Steeping v1\n")
    (root / "docs" / "notes.txt").write_text("not markdown\n")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "first")
    _git(root, "tag", "v1")
    (root / "docs" / "steeping.md").write_text("---\ntitle: Steeping\n---\n# Steeping v2\n")
    (root / "docs" / "water.md").write_text("# Water\n")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "second")
    return root


def test_git_reads_head_and_records_commit(repo: Path):
    result = load_sources([f"git={repo}"])
    docs = by_path(result)
    assert set(docs) == {"README.md", "docs/steeping.md", "docs/water.md"}
    assert "Steeping v2" in docs["docs/steeping.md"].text
    assert docs["docs/steeping.md"].publication == "docs"
    assert docs["README.md"].publication == "handbook"
    (description,) = result.descriptions
    assert description["kind"] == "git"
    assert description["commit"] == _git(repo, "rev-parse", "HEAD")
    assert description["ref"] == "HEAD"
    assert docs["docs/water.md"].metadata["commit"] == description["commit"]


def test_git_pinned_ref_ignores_the_working_tree(repo: Path):
    (repo / "docs" / "steeping.md").write_text("# Uncommitted edit\n")
    (repo / "docs" / "draft.md").write_text("# Untracked\n")
    status_before = _git(repo, "status", "--porcelain")
    head_before = _git(repo, "rev-parse", "HEAD")

    result = load_sources([f"git={repo}#v1"])
    docs = by_path(result)
    assert set(docs) == {"README.md", "docs/steeping.md"}
    assert "Steeping v1" in docs["docs/steeping.md"].text
    assert result.descriptions[0]["commit"] == _git(repo, "rev-parse", "v1")
    # reading never checks anything out
    assert _git(repo, "status", "--porcelain") == status_before
    assert _git(repo, "rev-parse", "HEAD") == head_before
    assert (repo / "docs" / "steeping.md").read_text() == "# Uncommitted edit\n"


def test_git_at_ref_with_subdir_and_url_clone(repo: Path):
    docs = by_path(load_sources([f"git={repo}@v1:docs"]))
    assert set(docs) == {"steeping.md"}
    cloned = load_sources([f"git=file://{repo}#main:docs"])
    assert set(by_path(cloned)) == {"steeping.md", "water.md"}
    assert cloned.descriptions[0]["url"] == f"file://{repo}"
    assert cloned.descriptions[0]["subdir"] == "docs"


def test_git_unknown_ref_and_not_a_repo(repo: Path, tmp_path: Path):
    with pytest.raises(SourceError) as err:
        load_sources([f"git={repo}#no-such-tag"])
    assert "no-such-tag" in err.value.message
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(SourceError):
        load_sources([f"git={plain}"])


def test_git_non_utf8_blob_names_file(repo: Path):
    (repo / "docs" / "latin.md").write_bytes(b"# Th\xe9\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "latin")
    with pytest.raises(SourceError) as err:
        load_sources([f"git={repo}"])
    assert "docs/latin.md" in err.value.message and "offset 4" in err.value.message


@pytest.mark.parametrize(
    ("value", "location", "ref", "subdir"),
    [
        ("/srv/repo#v2", "/srv/repo", "v2", ""),
        ("/srv/repo@main", "/srv/repo", "main", ""),
        ("/srv/repo#main:docs/", "/srv/repo", "main", "docs"),
        ("git@github.com:org/repo.git", "git@github.com:org/repo.git", "", ""),
        ("git@github.com:org/repo.git@v1", "git@github.com:org/repo.git", "v1", ""),
        ("ssh://git@host.test/org/repo", "ssh://git@host.test/org/repo", "", ""),
        ("https://host.test/repo.git@v3", "https://host.test/repo.git", "v3", ""),
    ],
)
def test_git_spec_forms(value: str, location: str, ref: str, subdir: str):
    spec = parse_git_spec(value)
    assert (spec.location, spec.ref, spec.subdir) == (location, ref, subdir)
