"""Reading the call being typed: the probe window (no server needed)."""

from __future__ import annotations


def test_the_probe_window_keeps_the_cursors_definition_and_the_modules_assignments() -> None:
    from atlas_core.recognize.calls.windows import MIN_WINDOW_LINES, probe_window

    broken = ["def broken(s):", '    s.get("/assets?name=unclosed', ""]
    filler = [f"def f{n}(s):\n    return s.get(BASE)\n" for n in range(MIN_WINDOW_LINES)]
    lines = [
        "import requests",
        "BASE = (",
        '    "https://x.collibra.com/rest/2.0"',
        ")",
        *broken,
        *"".join(filler).split("\n"),
        "def typing(s):",
        '    return s.get(BASE + "/assets", params={"na',
    ]
    window = probe_window(lines, len(lines) - 1, "python", "\n".join(lines))
    assert len(window) == len(lines)  # line numbers hold
    kept = [row for row in window if row]
    assert kept == [*lines[:4], *lines[-2:]]  # the unclosed string above is left out
