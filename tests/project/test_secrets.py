"""Secrets never enter a project index, and so never leave through the MCP server.

A repository planted with every credential case of issue 27 and one value of each token format
(`secret_corpus`) is indexed by the real CLI; the bundle's bytes and every MCP tool and resource,
over stdio and over HTTP, must give none of them back, while the code around them stays found.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from atlas_core.sources.credential_rules import find_credentials, is_placeholder
from atlas_core.sources.credentials import name_reason, scan_file
from tests.mcp_client import (
    HttpServer,
    McpClient,
    http_client_for,
    server_env,
    stdio_client_for,
)
from tests.project.secret_corpus import Corpus, mcp_answers, needles, plant, tokens

BIN = Path(sys.executable).parent
PROJECT = "acme-secrets"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Corpus, dict[str, Any]]:
    repo = tmp_path_factory.mktemp("planted") / PROJECT
    corpus = plant(repo)
    # A module fixture runs before the autouse isolation: the same dirs it sets, given here.
    base = tmp_path_factory.getbasetemp() / "atlas-home"
    dirs = {
        "ATLAS_DATA_DIR": "data",
        "ATLAS_CACHE_DIR": "cache",
        "ATLAS_CONFIG": "config/atlas.toml",
    }
    done = subprocess.run(
        [str(BIN / "atlas"), "index", str(repo), "--model", "hash", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        env=server_env({name: str(base / rel) for name, rel in dirs.items()}),
    )
    assert done.returncode == 0, done.stderr
    return repo, corpus, json.loads(done.stdout)


def test_the_bundle_holds_no_secret_and_says_what_it_left_out(
    indexed: tuple[Path, Corpus, dict[str, Any]],
) -> None:
    _, corpus, report = indexed
    bundle = Path(report["output"])
    planted = needles(corpus)
    for path in bundle.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            leaked = [label for label, value in planted.items() if value.encode() in data]
            assert not leaked, f"{path.relative_to(bundle)} holds {leaked}"
    table = pq.read_table(bundle / "chunks.parquet").to_pylist()
    text = "\n".join(f"{row['text']}\n{row['embed_text']}" for row in table)
    assert not [label for label, value in planted.items() if value in text]
    files = {row["file"] for row in table}
    assert not files & corpus.skipped
    assert corpus.redacted | corpus.ordinary <= files
    assert "«redacted: github token»" in text
    assert "def fetch_assets(name):" in text  # the code around a secret is kept
    manifest = json.loads((bundle / "manifest.json").read_text())
    (source,) = manifest["sources"]
    assert source["skipped"]["hidden folder"] >= 6
    assert source["skipped"]["credentials file (.env, keys)"] >= 35
    assert source["skipped"]["content carries a private key"] == 1
    assert source["redacted"]["github token"] >= 5
    assert report["redacted"] == source["redacted"]
    assert report["skipped_files"] == source["skipped"]
    counted = json.dumps([source["skipped"], source["redacted"], report])
    assert not [label for label, value in planted.items() if value in counted]


def test_explain_says_why_per_file_and_never_the_value(
    indexed: tuple[Path, Corpus, dict[str, Any]],
) -> None:
    repo, corpus, _ = indexed

    def explain(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(BIN / "atlas"), "index", str(repo), "--explain", *args],
            capture_output=True,
            text=True,
            timeout=120,
        )

    lines = explain(str(repo)).stdout.splitlines()
    by_file = dict(line.split(": ", 1) for line in lines)
    assert by_file[".aws/"] == "not indexed: hidden folder"
    assert by_file[".github/workflows/ci.yml"] == "indexed"
    assert by_file["config/prod.env"] == "not indexed: credentials file (.env, keys)"
    assert by_file["notes/key.txt"].startswith("not indexed: content carries a private key")
    assert by_file["src/sync.py"] == (
        "indexed, 3 value(s) redacted (line 6: secret assignment, line 17: bearer token, "
        "line 21: password in url)"
    )
    assert by_file["src/auth_helpers.py"] == "indexed"
    planted = needles(corpus)
    assert not [label for label, value in planted.items() if value in "\n".join(lines)]
    one = explain(str(repo / ".aws" / "credentials"))
    assert (one.returncode, one.stdout) == (
        0,
        ".aws/credentials: not indexed: hidden folder (.aws/)\n",
    )
    outside = explain("/etc/hostname")
    assert outside.returncode == 2 and "outside the repository" in outside.stderr
    assert "Traceback" not in outside.stderr


def _assert_nothing_comes_back(client: McpClient, repo: Path, corpus: Corpus) -> None:
    planted = needles(corpus)
    answers = list(mcp_answers(client, corpus, PROJECT))
    leaked = {label for answer in answers for label, value in planted.items() if value in answer}
    assert not leaked, sorted(leaked)
    joined = "\n".join(answers)
    assert "def fetch_assets" in joined and "«redacted:" in joined  # the code is still served


# A real server over each transport, 6-9 s each: .ci/run runs them.
@pytest.mark.stress
def test_no_secret_comes_back_over_stdio(
    indexed: tuple[Path, Corpus, dict[str, Any]], hash_bundle: Path
) -> None:
    repo, corpus, _ = indexed
    with stdio_client_for(["atlas-mcp", "--bundle", str(hash_bundle), "--project", str(repo)]) as c:
        _assert_nothing_comes_back(c, repo, corpus)


# A real server over each transport, 6-9 s each: .ci/run runs them.
@pytest.mark.stress
def test_no_secret_comes_back_over_http(
    indexed: tuple[Path, Corpus, dict[str, Any]], hash_bundle: Path
) -> None:
    repo, corpus, _ = indexed
    with (
        HttpServer(["--bundle", str(hash_bundle), "--project", str(repo)]) as server,
        http_client_for(server.url) as client,
    ):
        _assert_nothing_comes_back(client, repo, corpus)


ASSIGNED = ("api_key_assign", "client_secret_assign", "password_assign", "db_password_props")


@pytest.mark.parametrize("label", sorted(set(tokens()) - {*ASSIGNED, "xml_password"}))
def test_each_token_format_is_found_in_code(label: str) -> None:
    value = tokens()[label]
    if label == "azure_storage":
        value = f"DefaultEndpointsProtocol=https;AccountName=a;AccountKey={value}"
    elif label == "aws_secret":
        value = f"aws_secret_access_key = {value}"
    elif label == "url_password":
        value = f"https://sync:{value}@db.internal/x"
    elif label == "bearer":
        value = f"Bearer {value}"
    text = f'x = 1\nSETTING = "{value}"\n' + "y = 2\n" * 9
    found = find_credentials(text, "python")
    assert len(found) == 1 and found[0].line == 2, (label, found)
    verdict = scan_file(text, "python")
    assert verdict.skip is None and tokens()[label] not in verdict.text
    assert verdict.text.count("\n") == text.count("\n")  # line numbers kept


@pytest.mark.parametrize(
    ("language", "template"),
    [
        ("python", 'API_KEY = "{key}"\nconnect(password="{pw}")'),
        ("python", 'settings = {{"client_secret": "{key}", "db_password": "{pw}"}}'),
        ("javascript", "const apiKey = '{key}';\nconst opts = {{ password: '{pw}' }};"),
        ("typescript", 'const clientSecret: string = "{key}";\nlet dbPassword = `{pw}`;'),
        ("java", 'private static final String API_TOKEN = "{key}";\nString password = "{pw}";'),
        ("groovy", 'def apiKey = "{key}"\nval password = "{pw}"'),
        ("yaml", "api_key: {key}\ndb:\n  password: '{pw}'"),
        ("json", '{{"apiKey": "{key}",\n "password": "{pw}"}}'),
        ("text", "app.secret={key}\nspring.datasource.password={pw}"),
        ("shell", 'export GITHUB_TOKEN={key}\nDB_PASSWORD="{pw}"'),
        ("text", "<apiKey>{key}</apiKey>\n<password>{pw}</password>"),
        ("text", '<add key="ApiKey" value="{key}"/>\n<add key="Password" value="{pw}"/>'),
    ],
)
def test_secret_assignments_are_found_in_each_language(language: str, template: str) -> None:
    key, pw = tokens()["api_key_assign"], tokens()["password_assign"]
    text = template.format(key=key, pw=pw)
    found = find_credentials(text, language)
    assert [f.kind for f in found] == ["secret assignment", "password assignment"], found
    redacted = scan_file(text + "\nx = 1" * 10, language).text
    assert key not in redacted and pw not in redacted


@pytest.mark.parametrize(
    "line",
    [
        'API_KEY = "<your-api-key>"',
        'TOKEN = "${GITHUB_TOKEN}"',
        "token = os.environ['GITHUB_TOKEN']",
        'password = "changeme"',
        'password = os.getenv("DB_PASSWORD")',
        "PASSWORD = getpass.getpass()",
        'SECRET_KEY = "short"',
        'client_secret = "aaaaaaaaaaaaaaaaaaaaaaaa"',
        'access_token = "your-access-token-goes-here"',
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
        'TOKEN_URL = "https://login.example.com/oauth/token/endpoint1"',
        'PASSWORD_FIELD = "password"',
        "password: ${DB_PASSWORD}",
        "  token: {{ .Values.token }}",
        'key = "user-preferences-v2-cache"',
        'cache_key = "assets.by-name.v2"',
        "const githubToken = process.env.GITHUB_TOKEN;",
        '"password": "Password"',
        "spring.datasource.password=${DB_PASSWORD}",
        "<password>${env.MAVEN_PASSWORD}</password>",
        "url = https://user:password@example.com/",
        "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        'sk = "sk-learn"',
    ],
)
def test_placeholders_and_lookups_are_not_secrets(line: str) -> None:
    assert find_credentials(line + "\n", "python") == []
    assert find_credentials(line + "\n", "yaml") == []


@pytest.mark.parametrize(
    ("language", "line", "kind"),
    [
        ("json", '{{"Default": "Server=db;User Id=sa;Password={pw};"}}', "connection string"),
        ("text", "jdbc:sqlserver://db:1433;user=sa;password={pw};encrypt=true", "connection"),
        ("shell", "curl -sf -u admin:{pw} https://acme.collibra.com/rest/2.0/assets", "command"),
        ("shell", 'wget --user=admin --password="{pw}" https://acme.example/x', "password"),
        ("python", 'requests.get(url, auth=("admin", "{pw}"))', "basic auth"),
        ("python", "session.auth = HTTPBasicAuth('admin', '{pw}')", "basic auth"),
        ("python", 'os.environ["COLLIBRA_PASSWORD"] = "{pw}"', "password assignment"),
        ("text", "define('DB_PASSWORD', '{pw}');", "password assignment"),
        ("javascript", "const opts = {{password:'{pw}'}};", "password assignment"),
    ],
)
def test_credentials_in_calls_command_lines_and_connection_strings(
    language: str, line: str, kind: str
) -> None:
    pw = tokens()["password_assign"]
    text = line.format(pw=pw)
    found = find_credentials(text + "\n", language)
    assert [text[f.start : f.end] for f in found] == [pw], found
    assert kind in found[0].kind


@pytest.mark.parametrize(
    ("language", "line"),
    [
        ("shell", "PASSWD=${{PASSWD:-UNDEF}}"),  # a default in shell, not YAML's `key: value`
        ("text", "  const valKey = btn.dataset.valKey;"),  # a member path in an HTML script
        ("shell", 'curl -skL -u "${{ADMIN}}":"${{PASSWD}}" "$URL"'),
        ("python", 'headers = ["token", "abc"]'),
    ],
)
def test_expressions_in_real_client_code_are_not_secrets(language: str, line: str) -> None:
    """Shapes met in ../shared/real-clients that an earlier rule set flagged."""
    assert find_credentials(line.format() + "\n", language) == []


def test_placeholder_words() -> None:
    assert is_placeholder("<your-token>") and is_placeholder("********")
    assert not is_placeholder("Tr0ub4dor&3")


@pytest.mark.parametrize(
    "rel",
    [
        ".aws/credentials",
        ".docker/config.json",
        ".kube/config",
        ".ssh/authorized_keys",
        "tls.crt",
        "deploy_key",
        "private.asc",
        "key.ppk",
        "prod.env",
        "service-account.json",
        "secrets.json",
        "terraform.tfvars",
        "terraform.tfstate",
        "application.properties",
        "settings.xml",
        "sub/_netrc",
        "env.sh",
        "a/.config/gcloud/credentials.db",
        "store.jks",
        "x.p12",
        "x.pfx",
        "prod.tfstate.backup",
        ".netrc",
        ".pgpass",
        ".htpasswd",
        "kubeconfig",
        "backup.gpg",
        "office.ovpn",
        "id_ed25519",
        "credentials.yaml",
        "db-password.txt",
        "vault.yml",
        ".env.production",
    ],
)
def test_credential_names_are_never_read(rel: str) -> None:
    assert name_reason(rel) is not None


@pytest.mark.parametrize(
    "rel",
    [
        ".github/workflows/ci.yml",
        "src/credentials.py",
        "lib/secrets.ts",
        "docs/tokens.md",
        "docs/guide.asc",
        "config/app.env.example",
        "settings.py",
        "keys.py",
        "src/token_store.go",
        "design-tokens.json",
        "environment.yml",
    ],
)
def test_ordinary_names_pass_the_name_gate(rel: str) -> None:
    assert name_reason(rel) is None


def test_a_project_mirror_never_serves_a_credentials_name(tmp_path: Path) -> None:
    """A project bundle built before these rules may list `.aws/credentials`: it is refused
    as an unlisted file is, and left out of every listing."""
    from atlas_core.pages import DocMeta, Mirror, PathRejected

    for rel in (".aws/credentials", "config/prod.env", "src/sync.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x = 1\n")
    known = {rel: DocMeta(publication="p") for rel in (".aws/credentials", "config/prod.env")}
    mirror = Mirror(tmp_path, known={**known, "src/sync.py": DocMeta("p")}, source_files=True)
    assert mirror.files == ("src/sync.py",)
    with pytest.raises(PathRejected, match="not a docs file"):
        mirror.find_file(".aws/credentials")


def test_a_project_index_built_before_the_scan_is_not_served(
    indexed: tuple[Path, Corpus, dict[str, Any]], tmp_path: Path
) -> None:
    """Its chunks may hold what today's scan redacts: the engine refuses it and says to rebuild
    (search and file tools alike), instead of serving the secrets through search."""
    import shutil

    from atlas_core.engine import Engine
    from atlas_core.errors import BundleError

    repo, _, report = indexed
    old = tmp_path / "old-index"
    shutil.copytree(report["output"], old)
    manifest = json.loads((old / "manifest.json").read_text(encoding="utf-8"))
    for source in manifest["sources"]:
        source.pop("redacted", None)
        source.pop("redacted_files", None)
    (old / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")

    with pytest.raises(BundleError, match="built before") as refused:
        Engine.open(old)
    assert f"atlas index {repo}" in str(refused.value.hint)
    Engine.open(report["output"]).close()  # the same index as built today opens

    done = subprocess.run(
        [str(BIN / "atlas"), "search", "sync", "--bundle", str(old)],
        capture_output=True,
        text=True,
        timeout=120,
        env=server_env(),
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "built before" in done.stderr and done.stdout == ""


def test_explain_names_the_ignore_file_and_line_that_leave_a_file_out(tmp_path: Path) -> None:
    from atlas_core.sources import explain_indexing

    repo = tmp_path / "repo"
    (repo / "src" / "sub").mkdir(parents=True)
    (repo / "logs").mkdir()
    (repo / ".gitignore").write_text("# build output\nlogs/\n*.tmp\n!keep.tmp\n")
    (repo / "src" / ".atlasignore").write_text("generated_*.py\n")
    for rel in ("src/app.py", "src/generated_models.py", "src/sub/a.tmp", "keep.tmp", "logs/x.py"):
        (repo / rel).write_text("value = 1\n")
    lines = {e.rel: e.line() for e in explain_indexing(repo, repo)}
    assert lines == {
        "keep.tmp": "keep.tmp: indexed",
        "logs/": "logs/: not indexed: ignored by .gitignore:2: logs/",
        "src/app.py": "src/app.py: indexed",
        "src/generated_models.py": "src/generated_models.py: not indexed: "
        "ignored by src/.atlasignore:1: generated_*.py",
        "src/sub/a.tmp": "src/sub/a.tmp: not indexed: ignored by .gitignore:3: *.tmp",
    }
    [inside] = explain_indexing(repo, repo / "logs" / "x.py")
    assert inside.line() == "logs/x.py: not indexed: ignored by .gitignore:2: logs/ (logs/)"
