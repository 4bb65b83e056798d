"""What a credential looks like inside a file: private-key blocks, token formats, and secret
values assigned to names like `API_KEY`, `client_secret` or `password`.

`find_credentials` returns where each value lies (offsets into the text, never the value), so the
caller can redact it or leave the file out (`credentials.scan_file`). The rules follow the shapes
providers publish for their keys; a value that only looks like one (a placeholder, an environment
lookup, a short or low-entropy string, an identifier) is not a finding, because each false alarm
hides a line of someone's code from search.

Every pattern is bounded (fixed or capped repetitions, no nested quantifiers) and the assignment
rule runs on lines of at most `MAX_LINE` characters, so a hostile file costs linear time.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

MAX_LINE = 4000  # longer lines are minified data; the token rules still see them
PRIVATE_KEY = "private key"


@dataclass(frozen=True, slots=True)
class Finding:
    """One credential in a text: its kind and where its value lies (offsets, 1-based line)."""

    kind: str
    start: int
    end: int
    line: int
    end_line: int


@dataclass(frozen=True, slots=True)
class _Rule:
    kind: str
    anchors: tuple[str, ...]  # one must occur in the text before the pattern runs (cheap)
    pattern: re.Pattern[str]
    group: int = 0  # the group that holds the secret value
    check: Callable[[str], bool] | None = None


def _shannon(value: str) -> float:
    counts: dict[str, int] = {}
    for char in value:
        counts[char] = counts.get(char, 0) + 1
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values()) if n else 0.0


_PLACEHOLDER_WORDS = (
    "example", "sample", "changeme", "change_me", "change-me", "changeit", "placeholder",
    "your", "dummy", "fake", "redacted", "replace", "insert", "xxxx", "****", "...", "todo",
    "secret", "password", "passwd", "token", "notreal", "not-real", "not_real", "mock",
)  # fmt: skip
_PLACEHOLDER_EXACT_TEXT = (
    "none null nil true false undefined test testing admin root guest default empty"
)
_PLACEHOLDER_EXACT = frozenset(_PLACEHOLDER_EXACT_TEXT.split())
_REFERENCE = re.compile(
    r"^(?:\$|%\(|%\{|\{\{|#\{|@\{|!|&|\*)|\$\{|\{\{|\}\}|<|>|%s|\{\}|\{0\}|"
    r"getenv|environ|process\.env|System\.get|ENV\["
)
# kebab, snake, dotted or camel-case words: a name or a setting, not a random value
_IDENTIFIER = re.compile(
    r"^(?:[a-z]+(?:[-_.][a-z0-9]+)*|[A-Z]+(?:[-_.][A-Z0-9]+)*|[a-z]+(?:[A-Z][a-z]+)+)$"
)


def is_placeholder(value: str) -> bool:
    """Whether `value` stands for a secret rather than being one: a template variable, an
    environment lookup, an example, a run of one character."""
    lower = value.lower()
    if not value or lower in _PLACEHOLDER_EXACT or _REFERENCE.search(value):
        return True
    if len(set(lower) - set("x*.-_#?0 ")) <= 1:
        return True
    return any(word in lower for word in _PLACEHOLDER_WORDS)


# `btn.dataset.valKey`, `config.auth.apiKey`: a member path in code, not a value
_MEMBER_PATH = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+")


def _random_enough(value: str) -> bool:
    """A key, token or secret's value: long, no spaces, not a name, mixed characters."""
    if len(value) < 16 or any(c.isspace() for c in value) or _IDENTIFIER.match(value):
        return False
    if _MEMBER_PATH.fullmatch(value):
        return False
    if value.isdigit() or value.isalpha() or is_placeholder(value):
        return False
    return _shannon(value) >= 3.0


def _password_like(value: str) -> bool:
    return (
        len(value) >= 6
        and not any(c.isspace() for c in value)
        and not is_placeholder(value)
        and not (value.isalpha() and value.islower())  # a word: a name or a label, not a password
    )


_EXAMPLE_TOKEN = re.compile(
    r"(?i)example|xxxx|\*\*\*\*|\.\.\.|your|placeholder|dummy|redacted|<|\$\{"
)


def _real_token(value: str) -> bool:
    """A token of a known format: real unless it says it is an example (`AKIA...EXAMPLE`,
    `ghp_xxxx...`, `<your-token>`)."""
    return not _EXAMPLE_TOKEN.search(value)


def _rule(
    kind: str,
    anchors: str,
    pattern: str,
    group: int = 0,
    check: Callable[[str], bool] | None = _real_token,
    flags: int = 0,
) -> _Rule:
    return _Rule(kind, tuple(anchors.split()), re.compile(pattern, flags), group, check)


# Key blocks span lines: the whole block is the value. An unterminated block runs to the end.
_KEY_BLOCK = re.compile(
    r"-----BEGIN[A-Z0-9 ]{0,30} PRIVATE KEY(?: BLOCK)?-----"
    r"(?:.*?-----END[A-Z0-9 ]{0,30} PRIVATE KEY(?: BLOCK)?-----|.*\Z)",
    re.DOTALL,
)
_PUTTY = re.compile(r"^PuTTY-User-Key-File-\d+:.*(?:\n.*)*?(?:\nPrivate-MAC: .*|\Z)", re.MULTILINE)
_VAULT = re.compile(r"^\$ANSIBLE_VAULT;[\d.]+;AES256.*(?:\n[0-9a-f]+)*", re.MULTILINE)

TOKEN_RULES: tuple[_Rule, ...] = (
    _rule("aws access key id", "AKIA ASIA AGPA AIDA AROA AIPA ANPA ANVA",
          r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[A-Z0-9]{16}\b"),
    _rule("aws secret key", "aws_secret aws-secret AWS_SECRET SecretAccessKey secret_access",
          r"(?i)(?:aws_?secret_?access_?key|secret_?access_?key|SecretAccessKey)[\"']?\s*[:=]{1,2}"
          r"\s*[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])", 1, _random_enough),
    _rule("github token", "ghp_ gho_ ghu_ ghs_ ghr_", r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b"),
    _rule("github token", "github_pat_", r"\bgithub_pat_[A-Za-z0-9_]{50,255}\b"),
    _rule("gitlab token", "glpat- gldt- glrt- glptt- glcbt- gloas-",
          r"\bgl(?:pat|dt|rt|ptt|cbt|oas)-[A-Za-z0-9_-]{20,64}(?![\w-])"),
    _rule("slack token", "xox", r"\bxox[abposr]-[A-Za-z0-9-]{10,250}"),
    _rule("slack webhook", "hooks.slack.com",
          r"https://hooks\.slack\.com/services/T[A-Z0-9]{6,12}/B[A-Z0-9]{6,12}/[A-Za-z0-9]{20,30}"),
    _rule("anthropic key", "sk-ant-", r"\bsk-ant-[a-z]{2,8}\d{2}-[A-Za-z0-9_-]{40,200}"),
    _rule("openai key", "sk-",
          r"(?<![\w-])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,200}(?![\w-])", 0,
          lambda v: _real_token(v) and _random_enough(v[3:])),
    _rule("stripe key", "sk_live_ rk_live_ sk_test_ rk_test_ whsec_",
          r"\b(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,250}|whsec_[A-Za-z0-9]{24,64})\b"),
    _rule("google api key", "AIza", r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"),
    _rule("google oauth secret", "GOCSPX-", r"\bGOCSPX-[A-Za-z0-9_-]{28}(?![A-Za-z0-9_-])"),
    _rule("google service account key", "private_key_id",
          r"\"private_key_id\"\s*:\s*\"([0-9a-f]{40})\"", 1),
    _rule("azure storage key", "AccountKey= SharedAccessKey=",
          r"(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{30,100}={0,2})", 1),
    _rule("jwt", "eyJ",
          r"\beyJ[A-Za-z0-9_-]{10,2000}\.eyJ[A-Za-z0-9_-]{10,4000}\.[A-Za-z0-9_-]{10,2000}"),
    _rule("npm token", "npm_", r"\bnpm_[A-Za-z0-9]{36}\b"),
    _rule("pypi token", "pypi-AgE", r"\bpypi-AgE[A-Za-z0-9_-]{50,250}"),
    _rule("twilio key", "SK", r"\bSK[0-9a-f]{32}\b"),
    _rule("sendgrid key", "SG.", r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![\w-])"),
    _rule("hugging face token", "hf_", r"\bhf_[A-Za-z]{34}\b"),
    _rule("digitalocean token", "dop_v1_ doo_v1_ dor_v1_", r"\bdo[opr]_v1_[a-f0-9]{64}\b"),
    _rule("databricks token", "dapi", r"\bdapi[a-f0-9]{32}(?:-\d)?\b"),
    _rule("shopify token", "shpat_ shpss_ shpca_ shppa_", r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b"),
    _rule("mailgun key", "key-", r"(?<![\w-])key-[0-9a-f]{32}\b"),
    _rule("mailchimp key", "-us", r"\b[0-9a-f]{32}-us\d{1,2}\b"),
    _rule("telegram bot token", ":AA", r"\b\d{8,10}:AA[A-Za-z0-9_-]{33}(?![\w-])"),
    _rule("square token", "sq0atp- sq0csp- EAAA", r"\b(?:sq0atp-[\w-]{22}|sq0csp-[\w-]{43})(?![\w-])"),
    _rule("vault token", "hvs. hvb.", r"\bhv[sb]\.[A-Za-z0-9_-]{24,250}"),
    _rule("grafana token", "glsa_ glc_", r"\b(?:glsa_[A-Za-z0-9]{32}_[a-f0-9]{8}|glc_[A-Za-z0-9+/]{32,400}={0,2})"),
    _rule("age secret key", "AGE-SECRET-KEY-1", r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b"),
    _rule("postman key", "PMAK-", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b"),
    _rule("new relic key", "NRAK-", r"\bNRAK-[A-Z0-9]{27}\b"),
    _rule("doppler token", "dp.pt.", r"\bdp\.pt\.[A-Za-z0-9]{43}\b"),
    _rule("linear key", "lin_api_", r"\blin_api_[A-Za-z0-9]{40}\b"),
    _rule("kubeconfig key", "client-key-data",
          r"client-key-data:\s*([A-Za-z0-9+/]{40,}={0,2})", 1),
    _rule("bearer token", "Bearer bearer",
          r"\b[Bb]earer\s+([A-Za-z0-9._~+/-]{20,1000}=*)", 1, _random_enough),
    # ADO.NET / JDBC / ODBC connection strings: `...;User Id=sa;Password=...;`
    _rule("connection string password", "Password= password= PASSWORD= Pwd= pwd= PWD=",
          r"(?i)(?<![\w.-])(?:password|pwd)=([^;\s\"'`]{1,200})(?=;|[\"'`]|\s|$)", 1,
          _password_like),
    # `curl -u user:pass`, `--user user:pass`, `wget --password=...` on a command line
    _rule("password on a command line", "-u --user --password",
          r"(?:(?<=\s)|^)(?:-u|--user)[ =]?[\"']?[^\s:\"'$]{1,100}:([^\s\"']{1,200})", 1,
          _password_like, re.MULTILINE),
    # requests' `auth=("user", "pass")`, `HTTPBasicAuth("user", "pass")`
    _rule("basic auth password", "auth BasicAuth",
          r"(?:\bauth\s*=\s*\(|BasicAuth\()\s*([\"'])[^\"'\n]{1,100}\1\s*,\s*"
          r"[\"']([^\"'\n]{1,200})[\"']", 2, _password_like),
    _rule("password in url", "://",
          r"\b[a-z][a-z0-9+.-]{1,20}://[^\s:/@\"'`<>]{1,100}:([^\s:/@\"'`<>]{1,200})@[\w.-]+",
          1, _password_like),
)  # fmt: skip

# Names whose value is a secret: the last word of the name decides (`DB_PASSWORD`, `apiKey`,
# `client_secret`), so `TOKEN_URL`, `password_field` and `secret_name` are not.
_SECRET_WORDS_TEXT = """
    key apikey secret token password passwd pwd passphrase credential credentials auth
    secretkey accesskey privatekey authtoken accesstoken apitoken
"""
_SECRET_WORDS = frozenset(_SECRET_WORDS_TEXT.split())
_PASSWORD_WORDS = frozenset({"password", "passwd", "pwd", "passphrase"})
_NAME_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_CANDIDATE = re.compile(r"(?i)key|secret|token|passw|pwd|passphrase|credential|auth")
_ASSIGN = re.compile(
    r"""(?P<q>["']?)(?P<name>[A-Za-z_][\w.-]{0,80})(?P=q)"""
    r"""\s*(?::\s*[A-Za-z_][\w\[\]<>|. ]{0,40}?\s*)?(?::=|=>|=(?!=)|:(?=[\s"'`])|(?<=["']):)\s*"""
    r"""(?P<value>"[^"\n]{1,400}"|'[^'\n]{1,400}'|`[^`\n]{1,400}`|[^\s,;#"'`(){}\[\]]{1,400})"""
)
_XML_ELEMENT = re.compile(r"<(?P<name>[A-Za-z_][\w.-]{0,80})>(?P<value>[^<\n]{1,400})</(?P=name)>")
# A quoted name and its value as call arguments or a subscript: `define('DB_PASSWORD', '...')`,
# `setenv("API_TOKEN", "...")`, `os.environ["API_TOKEN"] = "..."`.
_NAME_VALUE_ARGS = re.compile(
    r"""["'](?P<name>[A-Za-z_][\w.-]{0,80})["']\s*(?:,|\]\s*=(?!=))\s*"""
    r"""(?P<value>"[^"\n]{1,400}"|'[^'\n]{1,400}')"""
)
_XML_PAIR = re.compile(
    r"""(?:key|name)="(?P<name>[A-Za-z_][\w.-]{0,80})"\s+value="(?P<value>[^"\n]{1,400})\""""
)
# Languages where a bare value is an expression (a variable, a call), not the secret itself.
_CODE = frozenset({"python", "javascript", "typescript", "tsx", "java", "groovy", "go"})


def secret_name_kind(name: str) -> str | None:
    """ "password" or "secret" when values assigned to `name` are credentials; None otherwise."""
    words = [w.lower() for w in _NAME_WORDS.findall(name)]
    if not words or words[-1] not in _SECRET_WORDS:
        return None
    if words[-1] == "key" and len(words) == 1:
        return None  # `key = ...`: a dict key, a sort key, a setting's name
    return "password" if words[-1] in _PASSWORD_WORDS else "secret"


def find_credentials(text: str, language: str = "text") -> list[Finding]:
    """Every credential in `text` (sorted by place, overlaps merged): key blocks, known token
    formats, and secret values assigned to secret names."""
    found: list[tuple[int, int, str]] = []
    if "PRIVATE KEY" in text:
        found += [(m.start(), m.end(), PRIVATE_KEY) for m in _KEY_BLOCK.finditer(text)]
    if "PuTTY-User-Key-File-" in text:
        found += [(m.start(), m.end(), PRIVATE_KEY) for m in _PUTTY.finditer(text)]
    if "$ANSIBLE_VAULT;" in text:
        found += [(m.start(), m.end(), "ansible vault") for m in _VAULT.finditer(text)]
    for rule in TOKEN_RULES:
        if not any(anchor in text for anchor in rule.anchors):
            continue
        for m in rule.pattern.finditer(text):
            value = m.group(rule.group)
            if rule.check is None or rule.check(value):
                found.append((m.start(rule.group), m.end(rule.group), rule.kind))
    found += _assignments(text, language)
    return _merged(text, found)


def _assignments(text: str, language: str) -> list[tuple[int, int, str]]:
    found = []
    offset = 0
    for line in text.split("\n"):
        if len(line) <= MAX_LINE and _CANDIDATE.search(line):
            for pattern in (_ASSIGN, _XML_ELEMENT, _XML_PAIR, _NAME_VALUE_ARGS):
                for m in pattern.finditer(line):
                    hit = _assigned(m, language)
                    if hit is not None:
                        found.append((offset + hit[0], offset + hit[1], hit[2]))
        offset += len(line) + 1
    return found


def _assigned(m: re.Match[str], language: str) -> tuple[int, int, str] | None:
    kind = secret_name_kind(m.group("name"))
    if kind is None:
        return None
    raw = m.group("value")
    start, end = m.start("value"), m.end("value")
    if raw[0] in "\"'`" and len(raw) >= 2 and raw[-1] == raw[0]:
        value, start, end = raw[1:-1], start + 1, end - 1
    elif (language in _CODE and m.re is _ASSIGN) or m.string[end : end + 1] == "(":
        return None  # a bare value in code is an expression: `token = request.token`
    else:
        value = raw
    ok = _password_like(value) if kind == "password" else _random_enough(value)
    return (start, end, f"{kind} assignment") if ok and start < end else None


def _merged(text: str, found: list[tuple[int, int, str]]) -> list[Finding]:
    found.sort(key=lambda f: (f[0], -f[1]))
    merged: list[tuple[int, int, str]] = []
    for start, end, kind in found:
        if merged and start < merged[-1][1]:
            if end > merged[-1][1]:  # overlapping spans: one redaction covers both
                merged[-1] = (merged[-1][0], end, merged[-1][2])
            continue
        merged.append((start, end, kind))
    results = []
    line, at = 1, 0
    for start, end, kind in merged:
        line += text.count("\n", at, start)
        results.append(Finding(kind, start, end, line, line + text.count("\n", start, end)))
        at = start
    return results
