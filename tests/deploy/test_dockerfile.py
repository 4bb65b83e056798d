"""deploy/Dockerfile, checked as far as it can be without Docker: who the image runs as, what it
copies, and that its CMD and HEALTHCHECK are ones the real server accepts and answers."""

from __future__ import annotations

import fnmatch
import re
import shlex

import httpx2
import pytest

from atlas_core.errors import ConfigError
from atlas_ls.mcp.__main__ import build_parser
from atlas_ls.mcp.auth import ENV_TOKEN, required_token
from tests.deploy.conftest import (
    DEPLOY,
    ROOT,
    Instruction,
    Pods,
    dockerfile_stages,
    global_args,
)

STAGES = dockerfile_stages()
FINAL = STAGES[-1]


def last(keyword: str, stage: list[Instruction] = FINAL) -> Instruction:
    found = [i for i in stage if i.keyword == keyword]
    assert found, f"the final stage has no {keyword}"
    return found[-1]


def final_env() -> dict[str, str]:
    env: dict[str, str] = {}
    for instruction in FINAL:
        if instruction.keyword == "ENV":
            for pair in shlex.split(instruction.args):
                key, _, value = pair.partition("=")
                env[key] = value
    return env


def exposed_port() -> int:
    ports = [int(p.split("/")[0]) for p in last("EXPOSE").args.split()]
    assert len(ports) == 1
    return ports[0]


def test_the_image_runs_as_a_numeric_non_root_user() -> None:
    user, _, group = last("USER").args.partition(":")
    assert user.isdigit() and int(user) != 0, user  # numeric: Kubernetes can check runAsNonRoot
    assert not group or (group.isdigit() and int(group) != 0)


def test_nothing_is_fetched_by_add_and_every_copied_path_exists() -> None:
    ignored = [
        line.strip().lstrip("/")
        for line in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    copies = 0
    for stage in STAGES:
        for instruction in stage:
            assert instruction.keyword != "ADD", f"use COPY, not ADD: {instruction.args}"
            if instruction.keyword != "COPY" or instruction.args.startswith("--from="):
                continue
            *sources, _destination = shlex.split(instruction.args)
            for source in sources:
                assert not re.match(r"[a-z]+://", source), source
                assert (ROOT / source).exists(), f"COPY {source}: not in the repository"
                hidden = [p for p in ignored if fnmatch.fnmatch(source, p)]
                assert not hidden, f"COPY {source} is left out of the context by {hidden}"
                copies += 1
    assert copies >= 4


def test_the_cmd_is_a_remote_stateless_server_the_real_parser_accepts() -> None:
    argv = last("CMD").exec_form()
    assert argv[0] == "atlas-mcp"
    args = build_parser("atlas-mcp", "all").parse_args(argv[1:])
    assert (args.transport, args.stateless, args.allow_remote) == ("http", True, True)
    assert args.host == "0.0.0.0" and args.port == exposed_port()
    # The bundle is the one `atlas download` installs under ATLAS_DATA_DIR, on the volume.
    env = final_env()
    volumes = last("VOLUME").exec_form()
    assert args.bundle == [f"{env['ATLAS_DATA_DIR']}/current"]
    assert env["ATLAS_DATA_DIR"] in volumes
    # The token is a run-time secret: never baked in, and the CMD cannot start without it.
    assert ENV_TOKEN not in env
    with pytest.raises(ConfigError, match=ENV_TOKEN):
        required_token(args.host, args.allow_remote, None)
    assert required_token(args.host, args.allow_remote, "x" * 32) == "x" * 32


def test_the_healthcheck_asks_a_path_the_server_answers(pods: Pods) -> None:
    command = " ".join(last("HEALTHCHECK").exec_form())
    match = re.search(r"http://127\.0\.0\.1:(\d+)(/\w+)", command)
    assert match, command
    assert int(match.group(1)) == exposed_port()
    response = httpx2.get(pods.url(0, match.group(2)), timeout=10)
    assert response.status_code == 200, response.text


def test_the_build_context_leaves_out_what_the_image_does_not_need() -> None:
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").split()
    assert {".git", ".venv", "tests"} <= set(ignored)
    assert (DEPLOY / "Dockerfile").is_file()


def test_the_base_image_and_uv_are_pinned_to_exact_versions() -> None:
    # A floating tag (python:3.11-slim) or a uv range gives each rebuild whatever was newest.
    defaults = global_args()
    for stage in STAGES:
        image = stage[0].args.split()[0]
        image = re.sub(r"\$\{(\w+)\}", lambda m: defaults[m.group(1)], image)
        pinned = re.fullmatch(r"python:3\.11\.\d+-slim-[a-z]+(@sha256:[0-9a-f]{64})?", image)
        assert pinned, f"FROM {image}: pin a full Python release and a Debian release"
    installs = [
        i.args
        for stage in STAGES
        for i in stage
        if i.keyword == "RUN" and re.search(r"pip install .*\buv\b", i.args)
    ]
    assert installs, "the Dockerfile no longer installs uv"
    assert all(re.search(r"uv==\d+\.\d+\.\d+\b", args) for args in installs), installs
