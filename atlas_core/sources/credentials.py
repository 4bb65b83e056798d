"""Credentials never enter a project index: which folders and names are never read, and what is
done with a file whose content carries one.

Three gates, in the order a file meets them:

1. **Hidden folders** are not entered (`.aws/`, `.ssh/`, `.docker/`, `.kube/`, `.gnupg/`,
   `.config/gcloud/`, ...), except the few in `HIDDEN_FOLDERS_ALLOWED`: CI definitions that hold
   references to secrets (`${{ secrets.X }}`), not their values, and whose files still pass the
   other two gates.
2. **Credential names** are never read (`name_reason`): key stores and key files (`*.pem`,
   `*.key`, `*.p12`, `*.pfx`, `*.jks`, `*.ppk`, `*.gpg`, `id_rsa`, `deploy_key`), environment
   files (`.env`, `.env.*`, `*.env`, `env.sh`), tool credential files (`.netrc`, `_netrc`,
   `.pgpass`, `.htpasswd`, `.npmrc`, `kubeconfig`, `authorized_keys`), Terraform state and
   variables, `settings.xml` and `application.properties`, and data files named for what they hold
   (`credentials.json`, `secrets.yaml`, `service-account.json`). A source file (`credentials.py`)
   is code about credentials, so the name alone never drops it: its content decides. A name ending
   in `.example`, `.sample`, `.template`, `.dist` or `.tmpl` is a template and passes this gate.
3. **Content** (`scan_file`): a file that carries a private key outside code, or whose lines are
   mostly credentials (a key file under another name, a `.env`-like file), is skipped; in any
   other file each secret value is replaced by `«redacted: KIND»` before the text goes anywhere
   (chunks, the mirror, identifier, mention and keyword indexes). Line numbers are kept.

Skips and redactions are counted by reason and kind; neither ever carries the value.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from atlas_core.sources.credential_rules import PRIVATE_KEY, Finding, find_credentials

HIDDEN_FOLDERS_ALLOWED = frozenset({".github", ".gitlab", ".circleci"})

CREDENTIALS_NAME = "credentials file (.env, keys)"
HIDDEN_FOLDER = "hidden folder"
CARRIES_KEY = "content carries a private key"
MOSTLY_CREDENTIALS = "content is mostly credentials"

_EXAMPLE_SUFFIXES = (".example", ".sample", ".template", ".dist", ".tmpl")
_NAMES_TEXT = """
    .env .envrc .netrc _netrc .pgpass .htpasswd .npmrc .pypirc .git-credentials .dockercfg .s3cfg
    .boto .my.cnf .vault-token .vault_pass .vault-pass vault_pass.txt credentials credentials.json
    kubeconfig authorized_keys authorized_keys2 identity env.sh setenv.sh settings.xml
    settings-security.xml application.properties bootstrap.properties terraform.tfvars
    terraform.tfvars.json htpasswd pgpass netrc keystore truststore
"""
SECRET_NAMES = frozenset(_NAMES_TEXT.split())
_SECRET_SUFFIXES = (
    ".pem", ".key", ".p12", ".pfx", ".pkcs12", ".p8", ".jks", ".jceks", ".bks", ".keystore",
    ".truststore", ".crt", ".cer", ".der", ".ppk", ".gpg", ".pgp", ".kdbx", ".keychain",
    ".ovpn", ".keytab", ".tfstate", ".tfstate.backup", ".tfvars", ".tfvars.json", ".env",
    ".vault", ".secret", ".secrets", ".htpasswd", ".netrc",
)  # fmt: skip
_SECRET_PREFIXES = ("id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", ".env.", "application-")
_STEM_WORDS_TEXT = """
    credential credentials creds secret secrets password passwords passwd apikey apikeys keystore
    truststore kubeconfig htpasswd vault
"""
_SECRET_STEM_WORDS = frozenset(_STEM_WORDS_TEXT.split())
_KEY_STEM_ENDS = ("_key", "-key", "_rsa", "_ed25519", "_ecdsa", "_dsa")
_KEY_STEM_WORDS = frozenset({"private", "secret", "key", "keys", "gpg", "pgp", "signing", "sign"})
# Source code names say what the code is about; its content decides whether it holds a secret.
_SOURCE_TEXT = """
    .py .pyi .js .mjs .cjs .jsx .ts .mts .cts .tsx .java .groovy .gradle .go .rb .rs .kt .kts .cs
    .php .scala .swift .c .h .cc .cpp .hpp .m .md .markdown .rst .adoc .html .css .scss .sql .r
    .lua .pl .ex .exs .erl .clj .dart .vue .svelte
"""
_SOURCE_SUFFIXES = frozenset(_SOURCE_TEXT.split())
# Private keys inside these are test fixtures or docs: redacted, the file kept.
_CODE_LANGUAGES = frozenset({"python", "javascript", "typescript", "tsx", "java", "groovy", "go"})
MOSTLY = 1 / 3  # of a file's non-blank lines carrying credentials: a credential store


def hidden_folder_reason(name: str) -> str | None:
    """Why a folder named `name` is not entered ("hidden folder"), or None."""
    if name.startswith(".") and name not in HIDDEN_FOLDERS_ALLOWED:
        return HIDDEN_FOLDER
    return None


def name_reason(rel: str) -> str | None:
    """Why the file at `rel` (a POSIX path in the repository) is never read for its name, or
    None when its name is not a credential's."""
    path = PurePosixPath(rel)
    if any(hidden_folder_reason(part) for part in path.parts[:-1]):
        return HIDDEN_FOLDER
    return CREDENTIALS_NAME if looks_secret(path.name) else None


def looks_secret(name: str) -> bool:
    """A file name that holds credentials rather than code (see the module docstring)."""
    lower = name.lower()
    if lower.endswith(_EXAMPLE_SUFFIXES):
        return False
    if lower in SECRET_NAMES or lower.endswith(_SECRET_SUFFIXES):
        return True
    if lower.startswith(_SECRET_PREFIXES):
        return not lower.startswith("application-") or lower.endswith(".properties")
    stem, dot, suffix = lower.rpartition(".")
    if not dot:
        stem, suffix = lower, ""
    if f".{suffix}" in _SOURCE_SUFFIXES:
        return False
    words = set(stem.replace("-", "_").replace(".", "_").split("_"))
    if words & _SECRET_STEM_WORDS or "service_account" in stem.replace("-", "_"):
        return True
    if "serviceaccount" in stem or stem.startswith("client_secret"):
        return True
    if suffix == "asc":  # ASCII-armoured keys, but also AsciiDoc: only key-like names
        return bool(words & _KEY_STEM_WORDS)
    return not suffix and (stem.endswith(_KEY_STEM_ENDS) or stem == "key")


@dataclass(frozen=True, slots=True)
class Redaction:
    """One value replaced in a file: its kind and lines (never the value)."""

    kind: str
    line: int
    end_line: int


@dataclass(frozen=True, slots=True)
class FileVerdict:
    """What the content gate decided for one file: `skip` (a reason) or the `text` to index,
    with the `redactions` made in it."""

    text: str
    skip: str | None = None
    # The values replaced, or for a file skipped for its content, the values that made it so.
    redactions: tuple[Redaction, ...] = ()


def scan_file(text: str, language: str) -> FileVerdict:
    """The content gate for one file's text (see the module docstring)."""
    findings = find_credentials(text, language)
    if not findings:
        return FileVerdict(text)
    lines = text.split("\n")
    nonblank = sum(1 for line in lines if line.strip()) or 1
    carrying: set[int] = set()
    for f in findings:
        carrying.update(range(f.line, f.end_line + 1))
    where = tuple(Redaction(f.kind, f.line, f.end_line) for f in findings)
    keys = [f for f in findings if f.kind == PRIVATE_KEY]
    key_lines = sum(f.end_line - f.line + 1 for f in keys)
    if keys and (language not in _CODE_LANGUAGES or key_lines * 2 >= nonblank):
        return FileVerdict("", skip=CARRIES_KEY, redactions=where)
    if len(carrying) >= nonblank * MOSTLY or any(f.kind == "ansible vault" for f in findings):
        return FileVerdict("", skip=MOSTLY_CREDENTIALS, redactions=where)
    return FileVerdict(redact(text, findings), redactions=where)


def redact(text: str, findings: list[Finding]) -> str:
    """`text` with each finding's value replaced by a marker that keeps the line count."""
    parts = []
    at = 0
    for f in findings:
        parts.append(text[at : f.start])
        parts.append(f"«redacted: {f.kind}»" + "\n" * text.count("\n", f.start, f.end))
        at = f.end
    parts.append(text[at:])
    return "".join(parts)


__all__ = [
    "CARRIES_KEY",
    "CREDENTIALS_NAME",
    "HIDDEN_FOLDER",
    "HIDDEN_FOLDERS_ALLOWED",
    "MOSTLY_CREDENTIALS",
    "FileVerdict",
    "Redaction",
    "hidden_folder_reason",
    "looks_secret",
    "name_reason",
    "redact",
    "scan_file",
]
