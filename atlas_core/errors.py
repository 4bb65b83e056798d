"""The one exception hierarchy of Atlas.

Every error carries a message that says what was wrong and where, and a hint that says what to do
next. Front ends turn these into one readable line (CLI), a tool error (MCP) or a showMessage (LSP).
"""

from __future__ import annotations


class AtlasError(Exception):
    """Base of every error Atlas raises on purpose."""

    exit_code: int = 2

    def __init__(self, message: str, *, hint: str | None = None, path: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.path = path

    def __str__(self) -> str:
        return self.message

    def one_line(self) -> str:
        """The message and its hint as one line for a terminal or a log."""
        if self.hint:
            return f"{self.message} (hint: {self.hint})"
        return self.message


class ConfigError(AtlasError):
    """A bad flag, environment variable or config-file value."""


class SourceError(AtlasError):
    """A documentation source cannot be read: missing, empty, not UTF-8, bad front matter."""


class OpenAPIError(SourceError):
    """An OpenAPI file that is not valid OpenAPI 3."""


class ModelError(AtlasError):
    """An embedding or reranking model directory that cannot be loaded."""


class BackendUnavailable(ModelError):
    """An embedding backend was asked for explicitly but cannot run here."""


class BuildError(AtlasError):
    """The build pipeline cannot produce a bundle (unwritable output, empty corpus, ...)."""


class BundleError(AtlasError):
    """A bundle that is missing, corrupt, partial, of an unknown version or otherwise unusable."""


class BundleVersionError(BundleError):
    """A bundle whose manifest has a format version this reader does not understand."""


class QueryError(AtlasError):
    """A search, lookup or symbol request with bad arguments (empty query, unknown mode, ...)."""


class DistributionError(AtlasError):
    """Download, install, backup, restore or publish failed; what is installed is unchanged."""


class NetworkError(AtlasError):
    """A host could not be reached or the connection failed (DNS, refused, timeout, TLS, a server
    error): nothing is wrong with the input, so trying again later may work. Exit code 3."""

    exit_code = 3


class CrawlError(AtlasError):
    """The crawler cannot start or finish (bad index URL, unwritable output, ...)."""


class PathError(AtlasError):
    """A path the user gave (a flag, an argument, an environment variable) cannot be used as
    asked: missing, a file where a folder belongs, unwritable, on a read-only filesystem, ..."""


# errno name -> what is wrong with the path, and what to do about it.
_PATH_PROBLEMS: dict[str, tuple[str, str]] = {
    "ENOENT": ("does not exist", "check the path, or create the folder it should be in"),
    "ENOTDIR": (
        "goes through a file where a folder should be",
        "name a folder, or a path inside one",
    ),
    "EISDIR": ("is a folder where a file should be", "name a file"),
    "EEXIST": ("already exists", "remove it or pick another path"),
    "ENOTEMPTY": ("is a folder that is not empty", "empty it or pick another path"),
    "EACCES": ("cannot be used: permission denied", "pick a path you can read and write"),
    "EPERM": ("cannot be used: operation not permitted", "pick a path you can read and write"),
    "EROFS": ("is on a read-only filesystem", "pick a writable folder"),
    "ENAMETOOLONG": (
        "has a name that is too long",
        "use names of at most 255 bytes (and a shorter path)",
    ),
    "ELOOP": ("is a loop of symbolic links", "point the link at a real file or folder"),
    "ENOSPC": ("cannot be written: no space left on the device", "free some space"),
}


def path_error(exc: OSError) -> PathError | None:
    """The one-line error for an OSError about a file or folder, naming it and saying what to
    do; None when the error names no path (a network failure, ...), which is no path mistake."""
    import errno

    if exc.filename is None:
        return None
    path = str(exc.filename)
    name = errno.errorcode.get(exc.errno or 0, "")
    problem, hint = _PATH_PROBLEMS.get(
        name, (f"cannot be used: {exc.strerror or exc}", "check the path and its permissions")
    )
    return PathError(f"{path} {problem}", hint=hint, path=path)
