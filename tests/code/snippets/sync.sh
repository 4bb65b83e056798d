#!/usr/bin/env bash
# Export a domain and upload it to the archive bucket.
set -euo pipefail

BASE_URL="${COLLIBRA_URL:?set COLLIBRA_URL}"

# Prints a message on stderr.
log() {
  echo "[$(date +%H:%M:%S)] $*" >&2
}

function export_domain {
  local domain="$1"
  curl --fail --silent \
    --user "$COLLIBRA_USER:$COLLIBRA_PASSWORD" \
    "$BASE_URL/rest/2.0/assets?domainId=$domain" > "export-$domain.json"
  log "exported $domain"
}

for domain in "$@"; do
  export_domain "$domain"
done
