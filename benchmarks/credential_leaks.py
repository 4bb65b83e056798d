"""Secret corpus benchmark: how many planted credentials any MCP tool or resource gives back, and
how many ordinary source files of a real repository the credentials rules leave out.

    uv run python benchmarks/credential_leaks.py [--real /tmp/cc/unpacked]

Plants `tests/project/secret_corpus.py`'s repository (every case of issue 27 and one fake value of
each token format) in a temporary folder, indexes it with `atlas index --model hash`, serves it
with `atlas-mcp --project` over stdio, asks everything an agent can ask (`mcp_answers`) and counts
the planted values found in the answers. `--real` walks a real repository (the unpacked
`collibra-core` wheel, say) and counts files the credentials rules skipped or redacted: each is a
false skip there. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this file's folder comes first on sys.path, and benchmarks/mcp.py would hide
# the `mcp` SDK; the repository root goes there instead, for `tests` and `benchmarks`.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "benchmarks"]
sys.path.insert(0, str(ROOT))

from atlas_core.sources.code import load_code  # noqa: E402
from atlas_core.sources.credentials import (  # noqa: E402
    CARRIES_KEY,
    CREDENTIALS_NAME,
    HIDDEN_FOLDER,
    MOSTLY_CREDENTIALS,
)
from tests.mcp_client import stdio_client_for  # noqa: E402
from tests.project.secret_corpus import mcp_answers, needles, plant  # noqa: E402

CREDENTIAL_REASONS = (CARRIES_KEY, CREDENTIALS_NAME, HIDDEN_FOLDER, MOSTLY_CREDENTIALS)
BIN = Path(sys.executable).parent


def corpus_counts(work: Path) -> dict[str, object]:
    repo = work / "acme-secrets"
    corpus = plant(repo)
    env = {"ATLAS_DATA_DIR": str(work / "data"), "ATLAS_CACHE_DIR": str(work / "cache")}
    env["ATLAS_CONFIG"] = str(work / "config" / "atlas.toml")
    os.environ.update(env)
    done = subprocess.run(
        [str(BIN / "atlas"), "index", str(repo), "--model", "hash", "--json", "--quiet"],
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(done.stdout)
    planted = needles(corpus)
    with stdio_client_for(["atlas-mcp", "--project", str(repo), "--tools", "all"]) as client:
        answers = list(mcp_answers(client, corpus, "acme-secrets"))
    returned = sorted({label for a in answers for label, v in planted.items() if v in a})
    return {
        "planted_values": len(corpus.secrets),
        "planted_files": len(corpus.skipped | corpus.redacted),
        "answers_checked": len(answers),
        "returned": len(returned),
        "returned_labels": returned,
        "skipped_by_reason": report["skipped_files"],
        "redacted_by_reason": report["redacted"],
    }


def false_skips(real: Path) -> dict[str, object]:
    _, description = load_code(str(real))
    skipped = {r: n for r, n in description["skipped"].items() if r in CREDENTIAL_REASONS}
    return {
        "real_repository": str(real),
        "real_documents": description["documents"],
        "false_skips": sum(skipped.values()),
        "false_skips_by_reason": skipped,
        "false_redactions": sum(description["redacted"].values()),
        "false_redactions_by_kind": description["redacted"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description="secret corpus benchmark")
    parser.add_argument("--real", type=Path, help="a real repository to count false skips in")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="atlas-secrets-") as tmp:
        result = corpus_counts(Path(tmp))
    if args.real is not None:
        result |= false_skips(args.real)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
