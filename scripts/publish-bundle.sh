#!/usr/bin/env bash
# Build-and-publish wrapper for maintainers: verify a bundle, then publish it as a release.
#
#   scripts/publish-bundle.sh BUNDLE_DIR OWNER/NAME [TAG] [--dry-run]
#
# With --dry-run it only writes <name>.tar.zst and <name>.tar.zst.sha256 into ./dist.
# Publishing uses the gh CLI when present, else the GitHub REST API with $GITHUB_TOKEN.
set -euo pipefail

if [ $# -lt 2 ]; then
    echo "usage: $0 BUNDLE_DIR OWNER/NAME [TAG] [--dry-run]" >&2
    exit 2
fi
bundle=$1
repo=$2
shift 2
args=()
for arg in "$@"; do
    case "$arg" in
        --dry-run) args+=(--dry-run) ;;
        -*) echo "unknown option: $arg" >&2; exit 2 ;;
        *) args+=(--tag "$arg") ;;
    esac
done

atlas=${ATLAS:-atlas}
command -v "$atlas" >/dev/null 2>&1 || atlas="uv run atlas"

$atlas verify "$bundle"
$atlas publish --bundle "$bundle" --repo "$repo" --out "${OUT_DIR:-dist}" "${args[@]}"
