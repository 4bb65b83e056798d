"""`atlas doctor`: what this machine can run, which backend Atlas picks and why, and bundle health.

Every check runs on its own and turns any exception into a FAIL line, so the doctor answers whatever
is broken. Backend probes import heavy libraries, so their results are cached per interpreter and
package versions (``--refresh`` probes again).
"""

from __future__ import annotations

import importlib.metadata
import json
import platform
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from atlas_core import __version__
from atlas_core.config import Settings

PACKAGES = (
    "atlas-docs", "numpy", "pyarrow", "onnxruntime", "onnxruntime-gpu", "tokenizers", "mlx",
    "pygls", "lsprotocol", "mcp", "watchfiles", "rapidfuzz", "zstandard", "aiohttp", "ripgrep",
)  # fmt: skip
PROBE_CACHE = "doctor-probes.json"


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    status: str  # "OK" | "MISS" (optional and absent) | "WARN" | "FAIL"
    detail: str
    fix: str = ""


@dataclass(slots=True)
class Report:
    checks: list[Check] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        return any(c.status == "FAIL" for c in self.checks)

    def run(self, name: str, check: Callable[[], list[Check] | Check]) -> None:
        try:
            result = check()
        except Exception as exc:  # the doctor reports, it never crashes
            result = Check(name, "FAIL", f"{type(exc).__name__}: {exc}")
        self.checks.extend(result if isinstance(result, list) else [result])


def package_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def _probe_backends(refresh: bool) -> list[dict[str, Any]]:
    from atlas_core.config import cache_dir

    key = f"{sys.version}|{json.dumps(package_versions(), sort_keys=True)}|{platform.platform()}"
    cache = cache_dir() / PROBE_CACHE
    if not refresh and cache.is_file():
        try:
            cached = json.loads(cache.read_text())
            if cached.get("key") == key:
                return list(cached["probes"])
        except (OSError, ValueError, KeyError):
            pass
    from atlas_core.embed import probe_backends

    probes = [_probe_dict(p) for p in probe_backends()]
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps({"key": key, "at": time.time(), "probes": probes}))
    except OSError:
        pass
    return probes


def _probe_dict(probe: Any) -> dict[str, Any]:
    if hasattr(probe, "__dataclass_fields__"):
        return asdict(probe)
    return dict(probe)


def diagnose(
    settings: Settings, bundles: list[str] | None, *, refresh: bool = False, full: bool = False
) -> Report:
    report = Report()
    report.facts = {
        "atlas": __version__,
        "python": sys.version.split()[0],
        "executable": sys.executable,
        "platform": f"{platform.system()} {platform.release()} ({platform.machine()})",
        "packages": package_versions(),
        # What this run resolved, and from where; secrets appear as set/unset only.
        "settings": [
            {"name": name, "value": value, "from": origin}
            for name, value, origin in settings.describe()
        ],
    }
    report.run("python", lambda: Check("python", "OK", f"{report.facts['python']} on "
                                       f"{report.facts['platform']}"))  # fmt: skip
    report.run("install", _install_check)
    report.run("backends", lambda: _backend_checks(refresh))
    report.run("selected backend", lambda: _selected_backend(settings))
    report.run("config", lambda: _config_check(settings))
    report.run("release source", lambda: _release_source_check(settings))
    report.run("bundle", lambda: _bundle_checks(settings, bundles, full))
    report.run("ripgrep", lambda: _ripgrep_check(settings))
    report.run("recognizers", _recognizer_checks)
    return report


def _install_check() -> Check:
    from atlas_core.console import installation

    return Check("install", "OK", f"{installation().describe()}; fixes below are for this install")


def _backend_fix(name: str, fallback: str) -> str:
    """What makes backend `name` available, as a command for the way Atlas was installed."""
    from atlas_core.console import installation

    install = installation()
    if name == "mlx":
        return install.add_extra("mlx")
    if name == "onnx-cuda":
        return f"{install.add_extra('gpu')}; onnxruntime-gpu needs the CUDA 12 runtime"
    if name == "onnx-cpu":
        return install.repair("onnxruntime")
    return fallback


def _backend_checks(refresh: bool) -> list[Check]:
    checks = []
    for probe in _probe_backends(refresh):
        name = str(probe.get("name"))
        ok = bool(probe.get("available"))
        checks.append(
            Check(
                f"backend {name}",
                "OK" if ok else "MISS",
                str(probe.get("reason", "")),
                "" if ok else _backend_fix(name, str(probe.get("fix", ""))),
            )
        )
    return checks


def _selected_backend(settings: Settings) -> Check:
    from atlas_core.embed import resolve_backend

    name, reason = resolve_backend(settings.embed_backend, str(settings.origin("embed_backend")))
    return Check("selected backend", "OK", f"{name}: {reason}")


def _config_check(settings: Settings) -> Check:
    from atlas_core.config import load_config

    config = load_config(settings.config_file)
    if config.path is None:
        return Check("config", "OK", f"no config file (would be read from {settings.config_file})")
    return Check("config", "OK", f"{config.path}: sections {', '.join(config.data) or 'none'}")


def _release_source_check(settings: Settings) -> Check:
    from atlas_core.distribution import release_source

    source = release_source(settings)
    return Check(
        "release source",
        "OK",
        f"`atlas download` installs the latest release of {source.describe()}",
    )


def _bundle_checks(settings: Settings, explicit: list[str] | None, full: bool) -> list[Check]:
    from atlas_core.bundle import Bundle, verify_bundle
    from atlas_core.demo import DEMO_NOTE, REAL_DOCS_HINT
    from atlas_core.errors import AtlasError, BundleError
    from atlas_core.serving import resolve_bundle_paths

    try:
        paths = resolve_bundle_paths(explicit, settings, allow_demo=False)
    except BundleError as exc:  # nothing configured: the servers fall back to the demo
        detail = f"{exc.message}; the servers and `atlas search` serve {DEMO_NOTE}"
        return [Check("bundle", "WARN", detail, REAL_DOCS_HINT)]
    except AtlasError as exc:
        return [Check("bundle", "WARN", exc.message, exc.hint or "")]
    checks: list[Check] = []
    for path in paths:
        try:
            bundle = Bundle.open(path)
        except AtlasError as exc:
            checks.append(Check(f"bundle {path}", "FAIL", exc.message, exc.hint or ""))
            continue
        manifest = bundle.manifest
        model = manifest.get("model", {})
        checks.append(
            Check(
                f"bundle {path}",
                "OK",
                f"format {bundle.format_version}, {bundle.chunk_count} chunks, built "
                f"{manifest.get('built_at', '?')}, model {model.get('name', '?')} "
                f"({model.get('dims', '?')} dims); manifest, files, sizes and array shapes checked",
            )
        )
        checks.append(_mention_check(path, manifest))
        if bundle.is_demo:
            checks.append(Check(f"demo {path}", "WARN", f"this is {DEMO_NOTE}", REAL_DOCS_HINT))
        if full:
            problems = verify_bundle(path)
            if problems:
                checks.append(
                    Check(
                        f"sha256 {path}",
                        "FAIL",
                        "; ".join(problems[:5]),
                        "download or build the bundle again",
                    )
                )
            else:
                checks.append(Check(f"sha256 {path}", "OK", f"all {len(bundle.files)} files match"))
    return checks


def _mention_check(path: Path, manifest: Mapping[str, Any]) -> Check:
    """Whether lookups can use the mention index, and how to get it when they cannot."""
    section = manifest.get("mentions")
    if isinstance(section, Mapping):
        return Check(
            f"mentions {path}",
            "OK",
            f"{section.get('keys', '?')} names on {section.get('pages', '?')} pages",
        )
    sources = " ".join(
        f"--source {s['kind']}={s['path']}"
        for s in manifest.get("sources", [])
        if isinstance(s, dict) and s.get("kind") and s.get("path")
    )
    return Check(
        f"mentions {path}",
        "MISS",
        f"no mention index (bundle format {manifest.get('format_version')}, built before 1.1): "
        "lookups use the identifier table alone and miss names the docs only write in tables, "
        "examples and code",
        f"rebuild it: atlas build {sources or '--source KIND=PATH'} --output {path} "
        "(or download a current bundle with `atlas download`)",
    )


def ripgrep_path(override: str | None = None) -> str | None:
    """`override` (the `ripgrep` setting: a path, or "none"), else rg beside this Python or on
    PATH."""
    if override:
        return None if override.lower() == "none" else override
    local = Path(sys.executable).parent / "rg"
    if local.is_file():
        return str(local)
    return shutil.which("rg")


def _ripgrep_check(settings: Settings) -> Check:
    rg = ripgrep_path(settings.ripgrep)
    if rg is None and settings.ripgrep:
        return Check("ripgrep", "OK", f"turned off by {settings.origin('ripgrep')}: search_text "
                     "uses the Python search")  # fmt: skip
    if rg is None:
        from atlas_core.console import installation

        fix = f"{installation().repair('ripgrep')} (or install rg on PATH)"
        return Check("ripgrep", "MISS", "rg not found; search_text uses the slower Python search",
                     fix)  # fmt: skip
    out = subprocess.run([rg, "--version"], capture_output=True, text=True, timeout=10)
    return Check("ripgrep", "OK", f"{rg}: {out.stdout.splitlines()[0] if out.stdout else '?'}")


def _recognizer_checks() -> list[Check]:
    group = "atlas.recognizers"
    checks: list[Check] = []
    try:
        # The built-ins live with the language server; their module imports no protocol library.
        from atlas_core.recognize import BUILTIN_RECOGNIZERS

        names = ", ".join(getattr(r, "name", type(r).__name__) for r in BUILTIN_RECOGNIZERS)
        checks.append(Check("recognizers", "OK", f"built-in: {names}"))
    except ImportError as exc:
        checks.append(Check("recognizers", "WARN", f"language server not installed: {exc}"))
    for ep in importlib.metadata.entry_points(group=group):
        try:
            ep.load()
            checks.append(Check(f"plugin {ep.name}", "OK", f"{ep.value} (entry point {group})"))
        except Exception as exc:
            checks.append(Check(f"plugin {ep.name}", "FAIL", f"{ep.value}: {exc}",
                                "fix or uninstall the package that provides it"))  # fmt: skip
    return checks


def render(report: Report) -> str:
    lines = [f"atlas {report.facts['atlas']} doctor"]
    packages = report.facts["packages"]
    lines.append("packages: " + ", ".join(f"{k} {v}" for k, v in packages.items() if v))
    lines.append("settings (default < config file < environment < flag):")
    for row in report.facts.get("settings", []):
        lines.append(f"     {row['name']} = {row['value']}  ({row['from']})")
    for check in report.checks:
        line = f"{check.status:<4} {check.name}: {check.detail}"
        if check.fix:
            line += f"\n     fix: {check.fix}"
        lines.append(line)
    return "\n".join(lines)


def as_json(report: Report) -> dict[str, Any]:
    return {**report.facts, "ok": not report.failed, "checks": [asdict(c) for c in report.checks]}
