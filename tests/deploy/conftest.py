"""Fixtures of the deployment tests: the files under deploy/ parsed, and real Atlas MCP servers
laid out the way the nginx config expects (one port, one loopback address each, like pods)."""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from atlas_ls.mcp.auth import ENV_TOKEN
from tests.deploy.proxy import DEPLOY, POD_ADDRESSES, ROOT, Pods, free_pod_port, start_pods

__all__ = ["DEPLOY", "ROOT", "TOKEN", "Instruction", "Pods", "dockerfile_stages", "global_args"]

# Every server behind the proxy runs with a token, as deployed ones must: the proxy checks none.
TOKEN = "deploy-test-token-0123456789"


@dataclass(frozen=True, slots=True)
class Instruction:
    keyword: str  # upper case: FROM, COPY, CMD, ...
    args: str  # the rest of the logical line, continuations joined

    def exec_form(self) -> list[str]:
        """The JSON array of an exec-form CMD/ENTRYPOINT/HEALTHCHECK CMD, else a shell split."""
        text = self.args
        if self.keyword == "HEALTHCHECK":
            text = text[text.index(" CMD ") + len(" CMD ") :].strip()
        if text.startswith("["):
            value = json.loads(text)
            assert isinstance(value, list) and all(isinstance(v, str) for v in value)
            return value
        return shlex.split(text)


def dockerfile_stages(path: Path = DEPLOY / "Dockerfile") -> list[list[Instruction]]:
    """The Dockerfile's instructions, one list per build stage (each starts with its FROM)."""
    lines: list[str] = []
    pending = ""
    for raw in path.read_text(encoding="utf-8").splitlines():
        stripped = raw.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if stripped.startswith("#"):
            continue  # a comment inside a continued instruction
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        lines.append(pending + stripped)
        pending = ""
    assert not pending, "the Dockerfile ends in a line continuation"
    stages: list[list[Instruction]] = []
    for line in lines:
        keyword, _, args = line.partition(" ")
        instruction = Instruction(keyword.upper(), args.strip())
        if instruction.keyword == "FROM":
            stages.append([])
        if not stages and instruction.keyword == "ARG":
            continue  # a global ARG, for FROM lines only: see `global_args`
        assert stages, f"an instruction before the first FROM: {line}"
        stages[-1].append(instruction)
    return stages


def global_args(path: Path = DEPLOY / "Dockerfile") -> dict[str, str]:
    """The defaults of the ARGs declared before the first FROM (what FROM lines may use)."""
    found: dict[str, str] = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        words = raw.split()
        if words and words[0].upper() == "FROM":
            break
        if words and words[0].upper() == "ARG":
            name, _, default = words[1].partition("=")
            found[name] = default
    return found


@pytest.fixture(scope="session")
def pod_pool(hash_bundle: Path) -> Iterator[Pods]:
    """Two stateless servers on the fixture bundle, 127.0.0.2 and 127.0.0.3 on one port, each
    requiring `TOKEN`."""
    addresses = POD_ADDRESSES[:2]
    try:
        port = free_pod_port(addresses)
    except OSError as exc:
        pytest.skip(f"cannot bind the loopback addresses {addresses} here: {exc}")
    running = start_pods(hash_bundle, addresses, port, env={ENV_TOKEN: TOKEN})
    yield running
    running.stop()


@pytest.fixture
def pods(pod_pool: Pods) -> Pods:
    """The pool with every server up: one a test killed is started again, only when needed."""
    pod_pool.revive()
    return pod_pool
