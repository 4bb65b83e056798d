"""The run's private folder and environment, and the small bundle most classes attack."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fixtures" / "corpus"
# Secrets of the machine the harness runs on never reach the servers it attacks.
DROPPED_ENV = ("ATLAS_BUNDLE", "ATLAS_EMBED_BACKEND", "ATLAS_MCP_TOKEN", "GITHUB_TOKEN", "GH_TOKEN")


def isolate_environment(home: Path) -> None:
    """Point Atlas's config, data and cache dirs into `home`, for this process and its children."""
    os.environ["ATLAS_CONFIG"] = str(home / "config" / "atlas.toml")
    os.environ["ATLAS_DATA_DIR"] = str(home / "data")
    os.environ["ATLAS_CACHE_DIR"] = str(home / "cache")
    os.environ["ATLAS_LOG_LEVEL"] = "WARNING"
    for name in DROPPED_ENV:
        os.environ.pop(name, None)


@dataclass
class Workspace:
    seed: int
    root: Path
    timeout: float | None = None  # per-case limit for every class, instead of each class's own
    verbose: bool = False  # print every case's outcome to stderr
    _bundle: Path | None = field(default=None, repr=False)

    def folder(self, name: str) -> Path:
        path = self.root / name
        path.mkdir(parents=True, exist_ok=True)
        return path

    def bundle(self) -> Path:
        """The fixture corpus built with the hash embedder, once per run. Read-only: copy it."""
        if self._bundle is None:
            from atlas_core.build import build_bundle

            out = self.root / "base-bundle"
            sources = [f"mirror={CORPUS / 'mirror'}", f"openapi={CORPUS / 'openapi.yaml'}"]
            build_bundle(sources, out, model="hash", progress=False)
            self._bundle = out
        return self._bundle

    def setup(self, cls: str, **extra: Any) -> dict[str, Any]:
        """What a case runner needs: its own folder, the base bundle, anything else."""
        return {"workdir": str(self.folder(cls)), "bundle": str(self.bundle()), **extra}

    def trace(self, cls: str, index: int, label: str, verdict: Any) -> None:
        if self.verbose:
            print(f"{cls} #{index} {verdict.outcome}: {label} -> {verdict.detail}", file=sys.stderr)

    def case_timeout(self, default: float) -> float:
        return self.timeout if self.timeout is not None else default
