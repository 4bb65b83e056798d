"""Client snippets for the context-aware cases (described in `benchmarks.devset`'s docstring).

`plan` picks the operations, styles and keys; `python_styles`, `js_styles`, `curl_style` and
`builder_styles` write the code; `snippet` marks the cursor texts and `values` the key values;
`validate` checks each snippet before it is written.
"""

from __future__ import annotations

from benchmarks.devset.snippets.plan import build_snippets
from benchmarks.devset.snippets.validate import validate_snippet

__all__ = ["build_snippets", "validate_snippet"]
