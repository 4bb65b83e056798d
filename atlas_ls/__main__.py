"""``python -m atlas_ls`` starts the language server (same as ``atlas-ls``)."""

from __future__ import annotations

import sys

from atlas_ls.lsp.__main__ import main

sys.exit(main())
