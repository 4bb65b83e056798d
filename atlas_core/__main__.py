from __future__ import annotations

import sys

from atlas_core.cli import main

sys.exit(main())
