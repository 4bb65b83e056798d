"""Which file names and relative paths a bundle can hold: the one rule the bundle's writer,
reader and verifier, the identifier table's checks and the sources' walks all apply (SPEC
"Encodings", paths inside the bundle), so a source skips a file the writer would refuse."""

from __future__ import annotations

import re

# A bundle comes from the internet; these suffixes mean pickled Python objects.
PICKLE_SUFFIXES = (".pkl", ".pickle", ".joblib", ".dill")

_UNSAFE_CHAR = re.compile(r"[\x00-\x1f\\]")


def safe_relpath(rel: str) -> bool:
    """A POSIX path that stays inside the bundle (SPEC "Encodings", paths inside the bundle)."""
    if not rel or rel[0] == "/" or _UNSAFE_CHAR.search(rel):
        return False
    parts = rel.split("/")
    return "" not in parts and "." not in parts and ".." not in parts


def has_pickle_suffix(name: str) -> bool:
    return name.lower().endswith(PICKLE_SUFFIXES)


def unusable_name(name: str, *, is_file: bool) -> str | None:
    """Why a file or folder called `name` can never be part of a document path (the rules of
    `safe_relpath` and the writer's pickle check), or None. Sources skip such a file, so one odd
    name in a repository is a skip in the build summary, not a failed build."""
    if _UNSAFE_CHAR.search(name):
        return "name holds a control character or a backslash"
    if name in (".", ".."):
        return "name is . or .."
    if is_file and has_pickle_suffix(name):
        return "pickle file name (a bundle never holds one)"
    return None
