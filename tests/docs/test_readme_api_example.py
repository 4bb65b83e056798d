"""The README's "API checks as you type" example says what the checks really say: each
``# warning:`` / ``# error:`` comment is the finding on the line below it, and no other line has
one."""

from __future__ import annotations

import re
from pathlib import Path

from atlas_core.engine import Engine
from tests.fixture_builds import build_fixture_bundle

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "tests" / "fixtures" / "apicheck" / "attributes.yaml"
_COMMENT = re.compile(r"#\s*(warning|error):\s*(.+?)(?:\.\.\.|\s*\(.*)?$")


def _example() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("### API checks as you type", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def test_the_readme_example_is_what_the_checks_say() -> None:
    code = "import requests\n" + _example()
    lines = code.splitlines()
    expected = {}
    for number, line in enumerate(lines):
        m = _COMMENT.search(line)
        if m:
            expected[number + 1] = (m.group(1), m.group(2).strip())
    assert len(expected) == 2
    with Engine.open(build_fixture_bundle([f"openapi={SPEC}"], name="readme-attributes")) as engine:
        found = {f.line: f for f in engine.check_code(code, "python")}
    assert set(found) == set(expected)
    for line, (severity, text) in expected.items():
        assert found[line].severity == severity
        assert found[line].message.startswith(text), (found[line].message, text)
