"""Which embedding backend runs: MLX on Apple silicon, else ONNX Runtime with CUDA, else on CPU.

The request is the ``prefer`` argument: the ``embed_backend`` setting (``--prefer``, else
``ATLAS_EMBED_BACKEND``, else ``[backend] prefer`` in atlas.toml: `atlas_core.config` resolves
those) that the entry point passes down. Values: ``auto``, ``apple`` (MLX), ``nvidia`` (ONNX
Runtime + CUDA), ``cpu`` (ONNX Runtime on CPU); ``None`` or an empty string means ``auto``.
An explicit request for a backend that cannot run raises `BackendUnavailable` naming the extra to
install; ``auto`` falls through silently. The hash test embedder never goes through here.
"""

from __future__ import annotations

import importlib.util
import logging
import platform
import sys
from dataclasses import dataclass

from atlas_core.errors import BackendUnavailable, ConfigError

log = logging.getLogger(__name__)

CHOICES = ("auto", "apple", "nvidia", "cpu")
_ALIASES = {
    "mlx": "apple",
    "metal": "apple",
    "cuda": "nvidia",
    "gpu": "nvidia",
    "onnx-cuda": "nvidia",
    "onnx-cpu": "cpu",
    "onnx": "cpu",
}


def mlx_fix() -> str:
    """How to add the MLX backend, as a command for the way this Atlas was installed."""
    from atlas_core.console import installation

    return installation().add_extra("mlx")


def gpu_fix() -> str:
    from atlas_core.console import installation

    return f"{installation().add_extra('gpu')} (onnxruntime-gpu, which needs the CUDA 12 runtime)"


def cpu_fix() -> str:
    from atlas_core.console import installation

    return f"{installation().repair('onnxruntime')} (onnxruntime is a dependency of Atlas)"


@dataclass(frozen=True, slots=True)
class BackendProbe:
    """One backend's availability here, for `atlas doctor`."""

    name: str  # "mlx" | "onnx-cuda" | "onnx-cpu"
    available: bool
    reason: str
    fix: str  # what to do to make it available ("" when it is)


def is_apple_silicon() -> bool:
    return sys.platform == "darwin" and platform.machine() == "arm64"


def mlx_status() -> tuple[bool, str]:
    if importlib.util.find_spec("mlx") is None:
        return False, "mlx is not installed"
    try:
        import mlx.core  # noqa: F401
    except Exception as exc:  # a broken native library raises more than ImportError
        return False, f"mlx is installed but does not import: {exc}"
    return True, "mlx imports"


def cuda_status() -> tuple[bool, str]:
    if importlib.util.find_spec("onnxruntime") is None:
        return False, "onnxruntime is not installed"
    import onnxruntime

    providers = onnxruntime.get_available_providers()
    if "CUDAExecutionProvider" in providers:
        return True, "onnxruntime offers CUDAExecutionProvider"
    return False, f"onnxruntime offers only {', '.join(providers)}"


def requested_backend(prefer: str | None = None, source: str = "--prefer") -> tuple[str, str]:
    """(choice in CHOICES, where it came from): `source` names where `prefer` was set."""
    if prefer is not None and prefer.strip():
        return _normalize(prefer, source), source
    return "auto", "default"


def _normalize(value: str, source: str) -> str:
    choice = value.strip().lower()
    choice = _ALIASES.get(choice, choice)
    if choice not in CHOICES:
        raise ConfigError(
            f"unknown embedding backend {value!r} from {source}",
            hint=f"use one of {', '.join(CHOICES)}",
        )
    return choice


def resolve_backend(prefer: str | None = None, source: str = "--prefer") -> tuple[str, str]:
    """(backend name, reason): "mlx", "onnx-cuda" or "onnx-cpu". Logs the choice at INFO.
    `source` names where `prefer` came from (a setting's origin), for the reason and errors."""
    name, reason, _explicit = choose_backend(prefer, source)
    return name, reason


def choose_backend(prefer: str | None = None, source: str = "--prefer") -> tuple[str, str, bool]:
    """Like `resolve_backend`, plus whether the backend was asked for by name (not ``auto``)."""
    choice, source = requested_backend(prefer, source)
    if choice == "apple":
        ok, why = mlx_status()
        if not ok:
            raise BackendUnavailable(
                f"the apple (MLX) embedding backend was requested by {source} but {why}",
                hint=mlx_fix(),
            )
        name, reason = "mlx", f"apple requested by {source}"
    elif choice == "nvidia":
        ok, why = cuda_status()
        if not ok:
            raise BackendUnavailable(
                f"the nvidia (CUDA) embedding backend was requested by {source} but {why}",
                hint=gpu_fix(),
            )
        name, reason = "onnx-cuda", f"nvidia requested by {source}"
    elif choice == "cpu":
        name, reason = "onnx-cpu", f"cpu requested by {source}"
    else:
        name, reason = _auto(source)
    log.info("embedding backend: %s (%s)", name, reason)
    return name, reason, choice != "auto"


def _auto(source: str) -> tuple[str, str]:
    prefix = "auto" if source == "default" else f"auto from {source}"
    if is_apple_silicon():
        ok, why = mlx_status()
        if ok:
            return "mlx", f"{prefix}: Apple silicon and mlx imports"
        apple_note = f"Apple silicon but {why}"
    else:
        apple_note = "not Apple silicon"
    ok, why = cuda_status()
    if ok:
        return "onnx-cuda", f"{prefix}: {apple_note}; {why}"
    return "onnx-cpu", f"{prefix}: {apple_note}; {why}"


def probe_backends() -> list[BackendProbe]:
    """Every backend with whether it can run here, why, and how to get it."""
    probes = []
    ok, why = mlx_status()
    if ok and not is_apple_silicon():
        why += " (runs on CPU here; auto picks it only on Apple silicon, --prefer apple forces it)"
    probes.append(BackendProbe("mlx", ok, why, "" if ok else mlx_fix()))
    ok, why = cuda_status()
    probes.append(BackendProbe("onnx-cuda", ok, why, "" if ok else gpu_fix()))
    ok = importlib.util.find_spec("onnxruntime") is not None
    probes.append(
        BackendProbe(
            "onnx-cpu",
            ok,
            "onnxruntime is installed" if ok else "onnxruntime is not installed",
            "" if ok else cpu_fix(),
        )
    )
    return probes
