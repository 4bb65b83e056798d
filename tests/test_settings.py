"""Typed settings: one resolution order (default < config file < environment < flag), each value
remembering where it came from, the doctor showing them without secrets, and no module but
`atlas_core/config.py` reading Atlas's variables from the environment."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from atlas_core.config import DEFAULT_RELEASE_REPO, Settings, load_settings
from atlas_core.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent
OWNED = re.compile(r"^(ATLAS_\w+|GITHUB_TOKEN|GH_TOKEN)$")
SECRET = "ghp_do-not-print-this-0123456789"


def test_file_then_environment_then_flag_each_reported(tmp_path: Path) -> None:
    config = tmp_path / "atlas.toml"
    config.write_text(
        '[release]\nrepo = "file/docs"\napi_url = "http://127.0.0.1:1/api"\n'
        '[bundle]\npath = ["/srv/a", "/srv/b"]\n[backend]\nprefer = "cpu"\n',
        encoding="utf-8",
    )
    env = {"ATLAS_CONFIG": str(config), "ATLAS_RELEASE_REPO": "env/docs", "ATLAS_BUNDLE": "/env"}
    settings = load_settings({"bundles": ["/flag"]}, environ=env)
    assert settings.release_repo == "env/docs"  # env over file
    assert settings.release_api == "http://127.0.0.1:1/api"  # file over default
    assert settings.bundles == (Path("/flag"),)  # flag over env over file
    assert settings.embed_backend == "cpu"
    assert settings.origin("release_repo").describe() == "env ATLAS_RELEASE_REPO"
    assert settings.origin("release_api").describe() == f"file {config} [release] api_url"
    assert settings.origin("bundles").describe() == "flag --bundle"
    assert settings.origin("log_level").describe() == "default"

    flagged = load_settings({"release_repo": "flag/docs"}, environ=env)
    assert (flagged.release_repo, str(flagged.origin("release_repo"))) == ("flag/docs", "--repo")
    bare = load_settings(environ={"ATLAS_CONFIG": str(tmp_path / "none.toml")})
    assert bare == Settings(config_file=tmp_path / "none.toml")
    assert (
        bare.release_repo == DEFAULT_RELEASE_REPO and bare.origin("release_repo").kind == "default"
    )

    config.write_text("[bundle]\npath = 3\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\[bundle\] path"):
        load_settings(environ=env)


def test_secrets_never_appear_in_a_repr() -> None:
    settings = load_settings(environ={"GH_TOKEN": SECRET, "ATLAS_MCP_TOKEN": SECRET})
    assert settings.github_token == SECRET and str(settings.origin("github_token")) == "GH_TOKEN"
    assert SECRET not in repr(settings)
    assert ("github_token", "set", "env GH_TOKEN") in settings.describe()


def test_doctor_prints_each_setting_and_its_source_never_a_token(tmp_path: Path) -> None:
    config = tmp_path / "atlas.toml"
    config.write_text('[release]\napi_url = "http://127.0.0.1:1/api"\n', encoding="utf-8")
    env = {
        **os.environ,
        "ATLAS_CONFIG": str(config),
        "ATLAS_RELEASE_REPO": "env/docs",
        "GITHUB_TOKEN": SECRET,
        "ATLAS_MCP_TOKEN": SECRET,
    }
    env.pop("GH_TOKEN", None)
    done = subprocess.run(
        [sys.executable, "-m", "atlas_ls.cli", "doctor", "--bundle", str(tmp_path / "b")],
        capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip
    out = done.stdout + done.stderr
    assert SECRET not in out
    lines = {line.strip() for line in done.stdout.splitlines()}
    assert "release_repo = env/docs  (env ATLAS_RELEASE_REPO)" in lines, done.stdout
    assert f"release_api = http://127.0.0.1:1/api  (file {config} [release] api_url)" in lines
    assert f"bundles = {tmp_path / 'b'}  (flag --bundle)" in lines
    assert "github_token = set  (env GITHUB_TOKEN)" in lines
    assert "mcp_token = set  (env ATLAS_MCP_TOKEN)" in lines
    assert "log_level = INFO  (default)" in lines


# --- nobody else reads the environment for a setting ----------------------------------------


def _modules() -> Iterator[Path]:
    for package in ("atlas_core", "atlas_ls"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path != ROOT / "atlas_core" / "config.py":
                yield path


def _is_environ(node: ast.expr) -> bool:
    """`os.environ` or a bare `environ` (from os import environ)."""
    if isinstance(node, ast.Attribute):
        return node.attr == "environ"
    return isinstance(node, ast.Name) and node.id == "environ"


def environment_reads(source: str) -> list[str]:
    """The Atlas variables a module reads: os.environ[...], os.environ.get(...), os.getenv(...),
    a constant's value counted as much as a literal."""
    tree = ast.parse(source)
    constants = {
        target.id: node.value.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
        for target in node.targets
        if isinstance(target, ast.Name)
    }  # fmt: skip

    def name_of(arg: ast.expr) -> str | None:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            return arg.value
        if isinstance(arg, ast.Name):
            return constants.get(arg.id)
        if isinstance(arg, ast.Attribute):  # module.CONSTANT: judged by its name
            return arg.attr if OWNED.match(arg.attr) else None
        return None

    found: list[str] = []
    for node in ast.walk(tree):
        key: ast.expr | None = None
        if isinstance(node, ast.Subscript) and _is_environ(node.value):
            key = node.slice
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            getenv = isinstance(func, ast.Attribute) and func.attr == "getenv"
            getenv = getenv or (isinstance(func, ast.Name) and func.id == "getenv")
            if getenv or (isinstance(func, ast.Attribute) and func.attr in ("get", "pop")
                          and _is_environ(func.value)):  # fmt: skip
                key = node.args[0]
        name = name_of(key) if key is not None else None
        if name is not None and OWNED.match(name):
            found.append(f"line {getattr(node, 'lineno', 0)}: {name}")
    return found


def test_only_config_reads_atlas_variables_from_the_environment() -> None:
    readers = {
        str(path.relative_to(ROOT)): reads
        for path in _modules()
        if (reads := environment_reads(path.read_text(encoding="utf-8")))
    }
    assert readers == {}, "read the setting from atlas_core.config.Settings instead"


@pytest.mark.parametrize(
    "source",
    [
        'import os\nx = os.environ.get("ATLAS_BUNDLE")',
        'import os\nVAR = "ATLAS_RIPGREP"\nx = os.environ.get(VAR, "")',
        'import os\nx = os.environ["GITHUB_TOKEN"]',
        'import os\nx = os.getenv("ATLAS_PROJECT")',
    ],
)
def test_the_walk_sees_each_way_of_reading(source: str) -> None:
    assert environment_reads(source)


def test_the_walk_lets_other_variables_pass() -> None:
    assert environment_reads('import os\nx = os.environ.get("XDG_CONFIG_HOME")') == []


def test_a_log_level_outside_the_choices_is_one_line_naming_the_variable() -> None:
    assert load_settings(environ={"ATLAS_LOG_LEVEL": "debug"}, read_file=False).log_level == "DEBUG"
    with pytest.raises(ConfigError, match="ATLAS_LOG_LEVEL='verbose' is not one of"):
        load_settings(environ={"ATLAS_LOG_LEVEL": "verbose"}, read_file=False)
    done = subprocess.run(
        [str(Path(sys.executable).parent / "atlas-mcp")],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "ATLAS_LOG_LEVEL": "verbose"},
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "ATLAS_LOG_LEVEL='verbose'" in done.stderr
