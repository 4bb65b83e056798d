"""Reading a client's config exactly as it is, a timestamped backup beside it, and an atomic write:
a temporary file in the same folder renamed over the old one, so a client never reads half a file."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import tempfile
import time
from pathlib import Path

from atlas_core.errors import ConfigError


def _loop(path: Path) -> ConfigError:
    return ConfigError(
        f"{path} is a symbolic link that leads back to itself",
        hint="point the link at the client's real config file (or remove it), "
        "then run atlas setup again",
        path=str(path),
    )


def target(path: Path) -> Path:
    """The file to write: a symlinked config (a dotfiles repository) is edited where it lives."""
    if not path.is_symlink():
        return path
    try:
        return path.resolve()
    except RuntimeError:  # Python 3.11 reports a loop so; 3.13 raises OSError(ELOOP)
        raise _loop(path) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _loop(path) from None
        raise


def read_text(path: Path) -> str | None:
    """The file's text with its line endings as they are, or None when there is no file yet."""
    try:
        path.stat()
    except FileNotFoundError:
        return None
    except OSError as exc:  # pathlib's exists() answers False for a loop: a file to create
        if exc.errno == errno.ELOOP:
            raise _loop(path) from None
        raise ConfigError(
            f"cannot read {path}: {exc.strerror or exc}",
            hint="check the path and its folders' permissions, then run atlas setup again",
            path=str(path),
        ) from None
    if not path.is_file():
        raise ConfigError(
            f"{path} is not a file",
            hint="pass the client's config file with --config",
            path=str(path),
        )
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            return handle.read()
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path} is not UTF-8 text (byte {exc.start} cannot be decoded)",
            hint="save the file as UTF-8, then run atlas setup again",
            path=str(path),
        ) from None
    except OSError as exc:
        raise ConfigError(
            f"cannot read {path}: {exc.strerror or exc}",
            hint="check the file's permissions, then run atlas setup again",
            path=str(path),
        ) from None


def backup(path: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    candidate = path.with_name(f"{path.name}.{stamp}.bak")
    number = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.{stamp}-{number}.bak")
        number += 1
    shutil.copy2(path, candidate)
    return candidate


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = (path.stat().st_mode & 0o7777) if path.exists() else _default_mode()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
