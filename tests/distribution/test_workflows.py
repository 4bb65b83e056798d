"""Every GitHub Actions workflow in .github/workflows is checked three ways, and a broken copy of
each kind fails: the SchemaStore workflow schema that the `check-jsonschema` package vendors
(actionlint's PyPI wrapper is source-only and fetches its binary from GitHub while it builds,
which no machine of this project can reach), `bash -n` on every `run:` script, and every
`${{ inputs.X }}` / `${{ steps.X... }}` naming an input or step that exists."""

from __future__ import annotations

import copy
import importlib.resources
import io
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.y*ml"))
EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}", re.S)


def _schema() -> dict[str, Any]:
    vendor = importlib.resources.files("check_jsonschema.builtin_schemas.vendor")
    return json.loads((vendor / "github-workflows.json").read_text(encoding="utf-8"))


VALIDATOR = jsonschema.Draft7Validator(
    _schema(), format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER
)


def _load(text: str) -> Any:
    # YAML 1.2, as GitHub reads it: `on:` stays a key, not the boolean True of YAML 1.1.
    return YAML(typ="safe", pure=True).load(io.StringIO(text))


def problems(workflow: Any) -> list[str]:
    """What is wrong with a parsed workflow, one line each; [] when it is valid."""
    found = [
        f"schema: {'/'.join(map(str, error.absolute_path)) or '(top)'}: {error.message[:200]}"
        for error in VALIDATOR.iter_errors(workflow)
    ]
    if found:
        return found
    trigger = workflow.get("on") or {}
    dispatch = trigger.get("workflow_dispatch") if isinstance(trigger, dict) else None
    inputs = set((dispatch or {}).get("inputs") or {})
    for job_name, job in workflow["jobs"].items():
        steps = job.get("steps") or []
        ids = {step["id"] for step in steps if "id" in step}
        text = json.dumps(job) + json.dumps(workflow.get("env") or {})
        # An `if:` is an expression even without the ${{ }} around it.
        conditions = [
            str(s["if"]) for s in [job, *steps] if "if" in s and "${{" not in str(s["if"])
        ]
        for expression in EXPRESSION.findall(text) + conditions:
            for name in re.findall(r"\binputs\.([A-Za-z_][\w-]*)", expression):
                if name not in inputs:
                    found.append(f"{job_name}: ${{{{ {expression.strip()} }}}}: no input {name!r}")
            for name in re.findall(r"\bsteps\.([A-Za-z_][\w-]*)", expression):
                if name not in ids:
                    found.append(
                        f"{job_name}: ${{{{ {expression.strip()} }}}}: no step id {name!r}"
                    )
        for index, step in enumerate(steps):
            if "run" not in step:
                continue
            script = EXPRESSION.sub("EXPR", step["run"])
            check = subprocess.run(
                ["bash", "-n"], input=script, capture_output=True, text=True, timeout=30
            )
            if check.returncode != 0:
                where = step.get("name") or f"step {index + 1}"
                found.append(f"{job_name}: {where}: bash: {check.stderr.strip()[:200]}")
    return found


def test_there_is_a_release_workflow() -> None:
    assert ROOT / ".github" / "workflows" / "release-bundle.yml" in WORKFLOWS


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_every_workflow_is_valid(path: Path) -> None:
    assert problems(_load(path.read_text(encoding="utf-8"))) == []


def test_the_release_workflow_gates_publishing_on_the_evaluation() -> None:
    workflow = _load((ROOT / ".github/workflows/release-bundle.yml").read_text(encoding="utf-8"))
    assert set(workflow["on"]) == {"schedule", "workflow_dispatch"}
    assert "max_drop" in workflow["on"]["workflow_dispatch"]["inputs"]
    runs = [step.get("run", "") for step in workflow["jobs"]["release"]["steps"]]
    order = [
        next(i for i, run in enumerate(runs) if needle in run)
        for needle in ("atlas crawl ", "atlas build ", "--max-drop", "atlas publish ")
    ]
    assert order == sorted(order), "crawl, build, gate, publish must run in that order"


def _broken(kind: str) -> Any:
    workflow = _load((ROOT / ".github/workflows/release-bundle.yml").read_text(encoding="utf-8"))
    broken = copy.deepcopy(workflow)
    job = broken["jobs"]["release"]
    if kind == "no runs-on":
        del job["runs-on"]
    elif kind == "unknown key":
        job["step"] = job.pop("steps")
    elif kind == "shell syntax":
        job["steps"][-1]["run"] = 'if [ -n "$TAG" ]; then\n  echo "$TAG"\n'
    elif kind == "unknown input":
        broken["env"]["MAX_SCORE_DROP"] = "${{ inputs.max_dorp || '0.02' }}"
    else:
        assert kind == "unknown step"
        gate = next(s for s in job["steps"] if "--max-drop" in s.get("run", ""))
        gate["if"] = "steps.previos.outputs.found == 'true'"
    return broken


@pytest.mark.parametrize(
    ("kind", "needle"),
    [
        ("no runs-on", "schema: jobs/release"),
        ("unknown key", "schema: jobs/release"),
        ("shell syntax", "Publish with checksums: bash:"),
        ("unknown input", "no input 'max_dorp'"),
        ("unknown step", "no step id 'previos'"),
    ],
)
def test_a_broken_workflow_is_caught(kind: str, needle: str) -> None:
    found = problems(_broken(kind))
    assert any(needle in line for line in found), found
