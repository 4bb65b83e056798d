"""``python -m atlas_ls.cli`` runs the `atlas` command (``python -m atlas_ls`` starts the language
server, as ``atlas-ls`` does)."""

from __future__ import annotations

import sys

from atlas_ls.cli import main

sys.exit(main())
