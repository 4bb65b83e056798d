"""A repository full of planted credentials, for the tests and `benchmarks/credential_leaks.py`.

Every value is made here from a seeded random generator in the shape its provider publishes (so the
scanner's rules must match it), never a real secret. `plant(root)` writes the repository and returns
the planted values and what each file should come to: skipped, or kept with its secrets redacted.
The ordinary code next to them must stay searchable.
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.mcp_client import McpClient

ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
UPPER_NUM = string.ascii_uppercase + string.digits
URLSAFE = ALNUM + "-_"


@dataclass
class Corpus:
    """What `plant` wrote: secret values, files expected skipped, files kept with redactions."""

    secrets: dict[str, str] = field(default_factory=dict)  # label -> value
    skipped: set[str] = field(default_factory=set)  # repository paths never indexed
    redacted: set[str] = field(default_factory=set)  # indexed, each secret replaced
    ordinary: set[str] = field(default_factory=set)  # indexed untouched


class _Maker:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def s(self, alphabet: str, n: int) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def b64(self, n: int) -> str:
        return base64.b64encode(self.rng.randbytes(n)).decode()


def tokens(seed: int = 27) -> dict[str, str]:
    """One fake value per token format the scanner knows, by label."""
    m = _Maker(seed)
    jwt_head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    jwt_body = base64.urlsafe_b64encode(b'{"sub":"1234567890","name":"svc"}').decode().rstrip("=")
    return {
        "aws_key_id": "AKIA" + m.s(UPPER_NUM, 16),
        "aws_session_id": "ASIA" + m.s(UPPER_NUM, 16),
        "aws_secret": m.s(ALNUM + "/+", 40),
        "github_pat": "ghp_" + m.s(ALNUM, 36),
        "github_oauth": "gho_" + m.s(ALNUM, 36),
        "github_app": "ghs_" + m.s(ALNUM, 36),
        "github_fine": "github_pat_" + m.s(ALNUM, 22) + "_" + m.s(ALNUM, 59),
        "gitlab": "glpat-" + m.s(URLSAFE, 20),
        "slack_bot": "xoxb-"
        + m.s(string.digits, 12)
        + "-"
        + m.s(string.digits, 12)
        + "-"
        + m.s(ALNUM, 24),
        "slack_user": "xoxp-" + m.s(string.digits, 12) + "-" + m.s(ALNUM, 32),
        "slack_webhook": "https://hooks.slack.com/services/T"
        + m.s(UPPER_NUM, 8)
        + "/B"
        + m.s(UPPER_NUM, 8)
        + "/"
        + m.s(ALNUM, 24),
        "openai": "sk-proj-" + m.s(URLSAFE, 48),
        "openai_legacy": "sk-" + m.s(ALNUM, 48),
        "anthropic": "sk-ant-api03-" + m.s(URLSAFE, 93) + "AA",
        "stripe_live": "sk_live_" + m.s(ALNUM, 24),
        "stripe_restricted": "rk_live_" + m.s(ALNUM, 24),
        "google_api": "AIza" + m.s(URLSAFE, 35),
        "google_oauth": "GOCSPX-" + m.s(URLSAFE, 28),
        "azure_storage": m.b64(64),
        "jwt": f"{jwt_head}.{jwt_body}." + m.s(URLSAFE, 43),
        "npm": "npm_" + m.s(ALNUM, 36),
        "pypi": "pypi-AgE" + m.s(URLSAFE, 70),
        "twilio": "SK" + m.s(HEX, 32),
        "sendgrid": "SG." + m.s(URLSAFE, 22) + "." + m.s(URLSAFE, 43),
        "huggingface": "hf_" + m.s(string.ascii_letters, 34),
        "digitalocean": "dop_v1_" + m.s(HEX, 64),
        "databricks": "dapi" + m.s(HEX, 32),
        "shopify": "shpat_" + m.s(HEX, 32),
        "mailgun": "key-" + m.s(HEX, 32),
        "mailchimp": m.s(HEX, 32) + "-us14",
        "telegram": m.s(string.digits, 10) + ":AA" + m.s(URLSAFE, 33),
        "vault": "hvs." + m.s(URLSAFE, 90),
        "age": "AGE-SECRET-KEY-1" + m.s(UPPER_NUM, 58),
        "postman": "PMAK-" + m.s(HEX, 24) + "-" + m.s(HEX, 34),
        "newrelic": "NRAK-" + m.s(UPPER_NUM, 27),
        "doppler": "dp.pt." + m.s(ALNUM, 43),
        "linear": "lin_api_" + m.s(ALNUM, 40),
        "url_password": "Pw" + m.s(ALNUM, 14),
        "bearer": m.s(ALNUM, 40),
        "api_key_assign": m.s(ALNUM, 32),
        "client_secret_assign": m.s(ALNUM + "-_", 40),
        "password_assign": "Tr0ub4dor&3" + m.s(string.digits, 3),
        "db_password_props": "pw" + m.s(ALNUM, 12),
        "xml_password": "Mvn" + m.s(ALNUM, 12),
    }


def _pem(kind: str, m: _Maker) -> str:
    body = "\n".join(m.b64(48) for _ in range(8))
    return f"-----BEGIN {kind}-----\n{body}\n-----END {kind}-----\n"


CODE_PY = '''"""Sync client."""
import os
import requests

BASE = "https://acme.collibra.com/rest/2.0"
API_KEY = "{api_key}"
TOKEN = os.environ["ACME_TOKEN"]
PASSWORD = "changeme"


def fetch_assets(name):
    """Fetch assets by name."""
    return requests.get(BASE + "/assets", params={{"name": name}}, headers=auth_headers())


def auth_headers():
    return {{"Authorization": "Bearer {bearer}"}}


def warehouse_url():
    return "postgresql://sync:{url_password}@db.internal:5432/warehouse"
'''

CLIENT_TS = """const BASE = 'https://acme.collibra.com/rest/2.0';
const clientSecret = '{client_secret}';
const githubToken = process.env.GITHUB_TOKEN;

export async function listDomains(): Promise<string[]> {{
  const res = await fetch(`${{BASE}}/domains`, {{ headers: {{ 'X-Key': '{google_api}' }} }});
  return (await res.json()).results;
}}

export function slackNotify(text: string) {{
  return fetch('{slack_webhook}', {{ method: 'POST', body: text }});
}}

export function domainName(domain: {{ name: string }}): string {{
  const trimmed = domain.name.trim();
  return trimmed.length > 0 ? trimmed : 'unnamed';
}}
"""

JOB_JAVA = """package acme;

public class Job {{
    private static final String STRIPE = "{stripe_live}";
    private final String user = "svc";

    public String run(String assetId) {{
        String password = "{password_assign}";
        return assetId + user;
    }}

    public int count() {{
        return 42;
    }}
}}
"""

NOTES_MD = """# Deployment notes

Deploy with the pipeline. Use `${{GITHUB_TOKEN}}` from the CI secrets, never a literal.

The old token was {github_pat} and it is rotated.

- step one: build
- step two: ship
- step three: verify
"""

ORDINARY_PY = '''"""Helpers that talk about secrets without holding any."""
import os

TOKEN_URL = "https://login.example.com/oauth/token"
PASSWORD_FIELD = "password"
SECRET_NAME = "acme-sync-credentials"


def read_token():
    token = os.environ.get("ACME_TOKEN")
    password = input("password: ")
    api_key = "<your-api-key>"
    secret = "${ACME_SECRET}"
    return token, password, api_key, secret


def sort_key(item):
    key = "name"
    return item[key]
'''


def plant(root: Path, seed: int = 27) -> Corpus:
    """Write the repository at `root` (created) and say what was planted where."""
    t = tokens(seed)
    m = _Maker(seed + 1)
    corpus = Corpus(secrets=dict(t))
    root.mkdir(parents=True, exist_ok=True)
    (root / ".git").mkdir(exist_ok=True)

    def put(rel: str, text: str, expect: str, *labels: str) -> None:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        {"skip": corpus.skipped, "redact": corpus.redacted, "keep": corpus.ordinary}[expect].add(
            rel
        )

    def secret(label: str, value: str) -> str:
        corpus.secrets[label] = value
        return value

    rsa = secret("rsa_key", _pem("RSA PRIVATE KEY", m))
    # The cases: hidden folders, keys under other names, credential files by name.
    put(
        ".aws/credentials",
        "[default]\naws_access_key_id = "
        + t["aws_key_id"]
        + "\naws_secret_access_key = "
        + t["aws_secret"]
        + "\n",
        "skip",
    )
    put(".aws/config", "[default]\nregion = eu-west-1\n", "skip")
    docker = base64.b64encode(b"robot:" + t["gitlab"].encode()).decode()
    secret("docker_auth", docker)
    put(".docker/config.json", json.dumps({"auths": {"r.io": {"auth": docker}}}), "skip")
    put(".kube/config", "users:\n- name: a\n  user:\n    token: " + t["jwt"] + "\n", "skip")
    ssh_pub = secret("ssh_pub", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + m.s(ALNUM, 43))
    put(".ssh/authorized_keys", ssh_pub + " ops@acme\n", "skip")
    put(".ssh/id_ed25519", _pem("OPENSSH PRIVATE KEY", m), "skip")
    put("certs/tls.crt", rsa, "skip")
    put("deploy/deploy_key", _pem("OPENSSH PRIVATE KEY", m), "skip")
    pgp = secret("pgp_key", _pem("PGP PRIVATE KEY BLOCK", m))
    put("keys/private.asc", pgp, "skip")
    ppk = secret(
        "putty_key",
        "PuTTY-User-Key-File-3: ssh-rsa\nEncryption: none\nPrivate-Lines: 2\n"
        + m.b64(40)
        + "\n"
        + m.b64(40)
        + "\nPrivate-MAC: "
        + m.s(HEX, 64)
        + "\n",
    )
    put("keys/key.ppk", ppk, "skip")
    put(
        "config/prod.env",
        "ACME_TOKEN=" + t["github_oauth"] + "\nDB_PASSWORD=" + t["db_password_props"] + "\n",
        "skip",
    )
    sa_key = secret("sa_private_key", _pem("PRIVATE KEY", m).replace("\n", "\\n"))
    sa = {
        "type": "service_account",
        "project_id": "acme",
        "private_key_id": m.s(HEX, 40),
        "private_key": sa_key,
        "client_email": "sync@acme.iam.gserviceaccount.com",
    }
    put("config/service-account.json", json.dumps(sa, indent=2), "skip")
    put("config/secrets.json", json.dumps({"slack": t["slack_bot"]}), "skip")
    put("infra/terraform.tfvars", 'db_password = "' + t["password_assign"] + '"\n', "skip")
    put(
        "infra/terraform.tfstate",
        json.dumps({"outputs": {"key": {"value": t["aws_secret"]}}}),
        "skip",
    )
    put(
        "src/main/resources/application.properties",
        "spring.datasource.password=" + t["db_password_props"] + "\nserver.port=8080\n",
        "skip",
    )
    put(
        "maven/settings.xml",
        "<settings><servers><server><id>r</id><password>"
        + t["xml_password"]
        + "</password></server></servers></settings>\n",
        "skip",
    )
    put("sub/_netrc", "machine api.acme.io login sync password " + t["url_password"] + "\n", "skip")
    put("scripts/env.sh", "export ACME_TOKEN=" + t["github_app"] + "\n", "skip")
    put("config.py", 'API_KEY = "' + t["openai"] + '"\n', "skip")
    # More names and extensions.
    for rel in (
        "keys/server.pem",
        "keys/app.key",
        "keys/store.p12",
        "keys/store.pfx",
        "keys/app.jks",
        "keys/app.keystore",
        "vpn/office.ovpn",
        "keys/backup.gpg",
        "infra/prod.tfstate.backup",
        "infra/dev.auto.tfvars",
        "home/.netrc",
        "home/.pgpass",
        "web/.htpasswd",
        "kube/kubeconfig",
        "config/credentials",
        "config/credentials.yaml",
        "config/client_secret_123.json",
        "config/secrets.yml",
        "ansible/vault.yml",
        "keys/id_rsa",
        "keys/id_rsa.pub",
        ".config/gcloud/adc.json",
        ".azure/accessTokens.json",
        ".gnupg/private-keys-v1.d/k.key",
        "config/.env.local",
        ".env",
        "src/main/resources/application-prod.properties",
        "db/app.kdbx",
    ):
        put(rel, "value=" + t["npm"] + "\n", "skip")
    put("ansible/group_vars/all.yml", "$ANSIBLE_VAULT;1.1;AES256\n" + m.s(HEX, 80) + "\n", "skip")
    put("notes/key.txt", rsa, "skip")  # a private key under an innocent name
    put(
        "docs/aws.md",
        "# Keys\n\nRotate them each quarter.\n\nThe old id was:\n\n"
        "aws_access_key_id = " + t["aws_key_id"] + "\n\nIt no longer works.\n",
        "redact",
    )
    # Source files that are mostly code: kept with each value redacted.
    put(
        "src/sync.py",
        CODE_PY.format(
            api_key=t["api_key_assign"], bearer=t["bearer"], url_password=t["url_password"]
        ),
        "redact",
    )
    put(
        "web/client.ts",
        CLIENT_TS.format(
            client_secret=t["client_secret_assign"],
            google_api=t["google_api"],
            slack_webhook=t["slack_webhook"],
        ),
        "redact",
    )
    put(
        "src/main/java/acme/Job.java",
        JOB_JAVA.format(stripe_live=t["stripe_live"], password_assign=t["password_assign"]),
        "redact",
    )
    put("docs/notes.md", NOTES_MD.format(github_pat=t["github_pat"]), "redact")
    embedded = "\n".join(f"    # {n}: {i}" for i, n in enumerate(("a", "b", "c", "d", "e", "f")))
    body = "\n".join(f"def f{i}():\n    return {i}\n" for i in range(12))
    put("tests/test_tls.py", f'"""TLS tests."""\n{embedded}\nKEY = """{rsa}"""\n\n{body}', "redact")
    # One token per format in an otherwise ordinary module each: redacted, the code kept.
    skip_formats = {
        "aws_secret",
        "url_password",
        "bearer",
        "api_key_assign",
        "client_secret_assign",
        "password_assign",
        "db_password_props",
        "xml_password",
    }
    for label, value in t.items():
        if label in skip_formats:
            continue
        if label == "azure_storage":
            value = f"DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={value};"
        code = f'"""The {label} client."""\n\nSETTING = "{value}"\n\n' + "\n".join(
            f"def step_{i}(x):\n    return x + {i}\n" for i in range(4)
        )
        put(f"tokens/{label}.py", code, "redact")
    put(
        "shell/deploy.sh",
        "#!/bin/sh\nset -e\nexport AWS_SECRET_ACCESS_KEY="
        + t["aws_secret"]
        + "\nmake build\nmake test\nmake ship\necho done\n",
        "redact",
    )
    put(
        "config/app.yaml",
        "server:\n  port: 8080\n  host: 0.0.0.0\nlogging:\n  level: info\n"
        "db:\n  user: sync\n  password: " + t["db_password_props"] + "\n  pool: 5\n",
        "redact",
    )
    # Credentials inside calls, command lines and connection strings, as client scripts write
    # them: each redacted, the call around it kept.
    basic = secret("basic_auth_password", "Bq" + m.s(ALNUM, 14))
    curl = secret("curl_password", "Cu" + m.s(ALNUM, 14))
    conn = secret("connection_password", "Cs" + m.s(ALNUM, 14))
    put(
        "scripts/sync_assets.py",
        '"""Nightly asset sync."""\nimport requests\n\n'
        'BASE = "https://acme.collibra.com/rest/2.0"\n\n\n'
        "def assets():\n"
        f'    return requests.get(BASE + "/assets", auth=("sync", "{basic}")).json()\n\n\n'
        "def domains():\n"
        '    return requests.get(BASE + "/domains").json()\n',
        "redact",
    )
    put(
        "scripts/backup.sh",
        "#!/bin/sh\nset -e\nBASE=https://acme.collibra.com\n"
        f'curl -sf -u admin:{curl} "$BASE/rest/2.0/assets" > assets.json\n'
        "gzip assets.json\necho done\n",
        "redact",
    )
    put(
        "config/appsettings.json",
        '{\n  "Logging": {"Level": "Information"},\n  "Collibra": {"Base": "https://acme"},\n'
        f'  "ConnectionStrings": {{"Main": "Server=db;User Id=sync;Password={conn};"}},\n'
        '  "Retries": 3,\n  "Timeout": 30,\n  "Region": "eu"\n}\n',
        "redact",
    )
    # Ordinary files that only talk about secrets, and templates with empty values: kept as is.
    put("src/auth_helpers.py", ORDINARY_PY, "keep")
    put("config/app.env.example", "ACME_TOKEN=\nDB_PASSWORD=<your-password>\n", "keep")
    put("config/secrets.yaml.template", "token: ${ACME_TOKEN}\npassword: changeme\n", "keep")
    put(
        ".github/workflows/ci.yml",
        "on: push\njobs:\n  t:\n    env:\n      TOKEN: ${{ secrets.ACME_TOKEN }}\n",
        "keep",
    )
    put(
        "src/credentials.py",
        '"""Reads credentials from the environment."""\nimport os\n\n\n'
        "def load():\n    return os.environ.get('ACME_TOKEN')\n",
        "keep",
    )
    put("docs/AsciiDoc.asc", "= Guide\n\nHow to sync.\n", "keep")
    return corpus


def needles(corpus: Corpus) -> dict[str, str]:
    """Each secret, and each long line of a multi-line one (a key's body), by label."""
    found = {}
    for label, value in corpus.secrets.items():
        found[label] = value
        for n, line in enumerate(value.replace("\\n", "\n").split("\n")):
            if len(line) >= 16:
                found[f"{label}#{n}"] = line
    return found


def mcp_answers(client: McpClient, corpus: Corpus, project: str) -> Iterator[str]:
    """Every answer an agent can get about the planted repository served as `project`: search
    (both scopes' tools, keyword and hybrid), grep, read_file and list_files of every planted
    path, resources/list and resources/read of every listed and planted file, as JSON text."""
    planted = needles(corpus)
    paths = sorted(corpus.skipped | corpus.redacted | corpus.ordinary)
    # A query comes back in its answer: each secret is asked for by its first half (which a
    # leak would complete), never whole.
    halves = [
        value[: len(value) // 2]
        for value in planted.values()
        if "\n" not in value.replace("\\n", "\n")  # a key's lines are asked for one by one
    ]
    queries = ["password token secret key credentials", "aws access key", "private key", *halves]
    for query in queries:
        for tool in ("search_code", "search_docs"):
            for mode in ("keyword", "hybrid"):
                args = {"query": query[:400], "mode": mode, "scope": "project", "top_k": 10}
                yield _dump(client.call(tool, args))
    for half in [*halves, "BEGIN", "PRIVATE KEY", "password", "token"]:
        yield _dump(client.call("search_text", {"pattern": half[:200], "bundle": project}))
        yield _dump(client.call("search_text", {"pattern": half[:200], "publication": project}))
    for rel in paths:
        yield _dump(client.call("read_file", {"path": rel, "bundle": project}))
        yield _dump(client.call("list_files", {"publication": project, "glob": rel}))
    listed = client.run(lambda s: s.list_resources())
    uris = [str(r.uri) for r in listed.resources]
    yield listed.model_dump_json()
    assert any(uri.endswith("src/sync.py") for uri in uris)
    for uri in uris + [f"atlas://docs/{project}/{rel}" for rel in paths]:
        try:
            yield client.run(lambda s, u=uri: s.read_resource(u)).model_dump_json()
        except Exception as exc:  # a refused resource is an MCP error: its message counts too
            yield str(exc)


def _dump(result: Any) -> str:
    return result.model_dump_json()
