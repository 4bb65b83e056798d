"""A small team repository shaped like real integration code, and its index."""

from __future__ import annotations

from pathlib import Path

SYNC_PY = '''"""Nightly sync of our assets with Collibra."""
import requests

BASE = "https://acme.collibra.com/rest/2.0"


class AssetSync:
    """Copies assets from the warehouse into Collibra."""

    def __init__(self, session):
        self.session = session

    def find_assets(self, name):
        """Find the assets whose name matches."""
        response = requests.get(BASE + "/assets", params={"name": name, "nameMatchMode": "EXACT"})
        return response.json()["results"]


def rename_asset(asset_id, name):
    """Give an asset a new name."""
    return requests.patch(f"{BASE}/assets/{asset_id}", json={"name": name})
'''

CLIENT_TS = """const BASE = 'https://acme.collibra.com/rest/2.0';

export interface Domain {
  id: string;
  name: string;
}

export async function listDomains(): Promise<Domain[]> {
  const res = await fetch(`${BASE}/domains`);
  return (await res.json()).results;
}
"""

WORKFLOW_GROOVY = """// Approval workflow script: notify the steward.
def notifySteward(asset) {
    def steward = asset.getResponsibilities().find { it.role == 'Steward' }
    mailer.send(steward.email, "Please review ${asset.name}")
}
"""

README = """# ACME sync

How our nightly job keeps the catalog current. Run `python src/sync.py`.
"""


def make_repo(root: Path) -> Path:
    """The repository: Python, TypeScript, Groovy, markdown, and what must be left out."""
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "src" / "sync.py").write_text(SYNC_PY, encoding="utf-8")
    (root / "web").mkdir()
    (root / "web" / "client.ts").write_text(CLIENT_TS, encoding="utf-8")
    (root / "workflows").mkdir()
    (root / "workflows" / "approval.groovy").write_text(WORKFLOW_GROOVY, encoding="utf-8")
    (root / "README.md").write_text(README, encoding="utf-8")
    (root / "node_modules" / "left-pad").mkdir(parents=True)
    (root / "node_modules" / "left-pad" / "index.js").write_text("module.exports = 1;\n")
    (root / ".gitignore").write_text("secrets/\n")
    (root / ".prettierrc.json").write_text('{"semi": false}\n')
    (root / ".env").write_text("COLLIBRA_PASSWORD=hunter2\n")
    (root / "secrets").mkdir()
    (root / "secrets" / "token.py").write_text("TOKEN = 'do-not-index'\n")
    return root
