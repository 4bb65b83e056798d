"""Integrity checks of a bundle directory (SPEC "What a reader checks").

`structural_problems` is what `Bundle.open` runs: metadata, `.npy` headers and the Parquet footer,
never whole files. `verify_bundle` adds a SHA-256 of every file and a search for unlisted files, and
reports every problem instead of stopping at the first.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from atlas_core.bundle.layout import layout_problems
from atlas_core.bundle.manifest import (
    CHUNKS,
    MANIFEST,
    REPAIR_HINT,
    VECTOR_DTYPE,
    VECTORS,
    read_manifest,
    read_npy_header,
    sha256_file,
)
from atlas_core.bundle.parquet_footer import footer_row_count
from atlas_core.errors import BundleError
from atlas_core.safeio import has_pickle_suffix, read_json, safe_relpath
from atlas_core.sources import publisher_problems
from atlas_core.types import Problem


class _Dirs:
    """Whether a listed file's directory stays inside the bundle, resolved once per directory."""

    def __init__(self, root: Path) -> None:
        self.base = str(root)
        self.real_root = os.path.realpath(root)
        self._inside: dict[str, bool] = {}

    def inside(self, root: Path, rel: str) -> bool:
        parent = rel.rpartition("/")[0]
        if not parent:
            return True
        known = self._inside.get(parent)
        if known is None:
            # A link on the way (mirror/x -> /etc) would lead the file outside the bundle.
            real = os.path.realpath(os.path.join(root, parent))
            known = real == self.real_root or real.startswith(self.real_root + os.sep)
            self._inside[parent] = known
        return known


def _check_file(
    root: Path, rel: str, entry: dict[str, Any], dirs: _Dirs, problems: list[Problem]
) -> bool:
    """Check one listed file's presence, type, size and `.npy` header; False when unusable."""
    if not safe_relpath(rel):
        problems.append(Problem(rel, "path escapes the bundle or is not a plain relative path"))
        return False
    if has_pickle_suffix(rel):
        problems.append(Problem(rel, "is a pickle file; bundles never contain pickle"))
        return False
    if not dirs.inside(root, rel):
        problems.append(Problem(rel, "resolves outside the bundle (a linked directory)"))
        return False
    try:
        # One system call per file, on a plain string: a bundle lists thousands of mirror pages
        # and opening must stay cheap.
        st = os.lstat(f"{dirs.base}/{rel}")
    except FileNotFoundError:
        problems.append(Problem(rel, "missing (listed in manifest.json)", incomplete=True))
        return False
    except OSError as exc:
        problems.append(Problem(rel, f"cannot be read: {exc.strerror}"))
        return False
    if stat.S_ISLNK(st.st_mode):
        problems.append(Problem(rel, "is a symbolic link; bundles hold plain files only"))
        return False
    if not stat.S_ISREG(st.st_mode):
        problems.append(Problem(rel, "is not a regular file"))
        return False
    if st.st_size != entry["size"]:
        problems.append(
            Problem(
                rel,
                f"size is {st.st_size} bytes, manifest.json says {entry['size']} (truncated or altered)",
                incomplete=st.st_size < entry["size"],
            )
        )
        return False
    if rel.endswith(".npy"):
        return _check_npy(root / rel, rel, entry, st.st_size, problems)
    return True


def _check_npy(
    path: Path, rel: str, entry: dict[str, Any], size: int, problems: list[Problem]
) -> bool:
    try:
        header = read_npy_header(path)
    except (ValueError, OSError) as exc:
        problems.append(Problem(rel, str(exc)))
        return False
    if header.dtype_problem:
        problems.append(Problem(rel, header.dtype_problem))
        return False
    if header.fortran_order:
        problems.append(Problem(rel, "is in Fortran order; bundle arrays are C order"))
        return False
    if "dtype" not in entry:
        problems.append(Problem(rel, "manifest.json lists no dtype/shape for this array"))
        return False
    if header.dtype_str != entry["dtype"] or list(header.shape) != list(entry["shape"]):
        problems.append(
            Problem(
                rel,
                f"header says {header.dtype_str} {list(header.shape)}, manifest.json says "
                f"{entry['dtype']} {list(entry['shape'])}",
            )
        )
        return False
    expected = header.data_offset + header.data_bytes
    if size != expected:
        problems.append(
            Problem(rel, f"is {size} bytes but its header needs {expected} (truncated or padded)")
        )
        return False
    return True


def _check_tables(
    root: Path, manifest: dict[str, Any], usable: set[str], problems: list[Problem], *, full: bool
) -> None:
    """The chunk table, the vectors, the counts and the model must describe the same chunks."""
    files = manifest["files"]
    chunks = manifest["counts"]["chunks"]
    dims = manifest["model"]["dims"]
    if VECTORS in usable:
        entry = files[VECTORS]
        if entry["dtype"] != VECTOR_DTYPE or len(entry["shape"]) != 2:
            problems.append(
                Problem(
                    VECTORS,
                    f"must be {VECTOR_DTYPE} with 2 dimensions, is {entry['dtype']} {entry['shape']}",
                )
            )
        else:
            rows, width = entry["shape"]
            if rows != chunks:
                problems.append(
                    Problem(VECTORS, f"has {rows} rows but manifest.json counts {chunks} chunks")
                )
            if width != dims:
                problems.append(
                    Problem(
                        VECTORS,
                        f"has {width} dimensions but the bundle's model "
                        f"{manifest['model']['name']!r} has {dims}",
                    )
                )
    if CHUNKS in usable:
        # Opening reads the row count straight from the footer; verify, and any footer that is
        # not plainly readable, go through pyarrow (SPEC "What a reader checks").
        rows = None if full else footer_row_count(root / CHUNKS)
        if rows is None:
            import pyarrow.parquet as pq

            try:
                rows = pq.read_metadata(root / CHUNKS).num_rows
            except Exception as exc:  # pyarrow raises several types for a damaged footer
                problems.append(Problem(CHUNKS, f"not a readable Parquet file ({exc})"))
                return
        if rows != chunks:
            problems.append(
                Problem(CHUNKS, f"has {rows} rows but manifest.json counts {chunks} chunks")
            )


MODEL_CONFIG = "model/atlas_model.json"
MODEL_FILES = ("model/model.onnx", "model/tokenizer.json", MODEL_CONFIG)


def _check_model(
    root: Path, manifest: dict[str, Any], usable: set[str], problems: list[Problem]
) -> None:
    """The `model` section, the staged model files and their config must name the same model."""
    model = manifest["model"]
    files = manifest["files"]
    if model.get("kind") == "onnx":
        for rel in MODEL_FILES:
            if rel not in files:
                problems.append(
                    Problem(
                        rel,
                        f"not listed in manifest.json; the {model['name']!r} model is incomplete",
                    )
                )
    expected = model.get("sha256")
    onnx = files.get("model/model.onnx")
    if isinstance(expected, str) and onnx is not None and onnx["sha256"] != expected:
        problems.append(
            Problem(
                "model/model.onnx",
                f"is not the model {model['name']!r} of manifest.json (SHA-256 differs)",
            )
        )
    if MODEL_CONFIG not in usable:
        return
    try:
        config = read_json(root / MODEL_CONFIG)
    except (OSError, ValueError) as exc:
        problems.append(Problem(MODEL_CONFIG, f"not readable JSON ({exc})"))
        return
    if not isinstance(config, dict):
        problems.append(Problem(MODEL_CONFIG, "not a JSON object"))
        return
    for key in ("name", "dims"):
        if key in config and config[key] != model.get(key):
            problems.append(
                Problem(
                    MODEL_CONFIG,
                    f"says {key} {config[key]!r}, manifest.json says {model.get(key)!r}",
                )
            )


def _holds_objects(path: Path) -> bool:
    try:
        # An unlisted name is anything at all: a FIFO would block the open, /dev/zero behind a
        # link would never end. Only a regular file has a header worth reading.
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return False
        return read_npy_header(path).has_objects
    except (ValueError, OSError):
        return False


def bundle_files(root: Path) -> list[str]:
    """Every file name under `root`, bundle-relative (links are listed, not followed)."""
    found = []
    top = str(root)
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames.sort()
        prefix = "" if dirpath == top else dirpath[len(top) + 1 :].replace(os.sep, "/") + "/"
        found.extend(prefix + name for name in sorted(filenames))
        # A linked directory is not descended into; it is still something in the tree.
        found.extend(
            prefix + name for name in dirnames if os.path.islink(os.path.join(dirpath, name))
        )
    return found


UNLISTED = "is not listed in manifest.json"


def structural_problems(
    root: Path, manifest: dict[str, Any], *, full: bool = False
) -> list[Problem]:
    """Problems of a bundle whose manifest already passed `read_manifest`.

    `full` adds the SHA-256 of every listed file and reports unlisted files.
    """
    problems: list[Problem] = []
    files: dict[str, Any] = manifest["files"]
    usable: set[str] = set()
    dirs = _Dirs(root)
    names = sorted(files)
    for rel in names:
        entry = files[rel]
        if _check_file(root, rel, entry, dirs, problems):
            if full and sha256_file(root / rel) != entry["sha256"]:
                problems.append(
                    Problem(
                        rel,
                        "SHA-256 differs from manifest.json (the file is corrupt or was altered)",
                    )
                )
                continue
            usable.add(rel)
    _check_tables(root, manifest, usable, problems, full=full)
    _check_model(root, manifest, usable, problems)
    problems.extend(layout_problems(manifest, names))
    if full:
        from atlas_core.bundle.content import content_problems

        problems.extend(content_problems(root, manifest, usable))
        # A kind this reader does not know would rank as unknown; verify says so.
        problems.extend(
            Problem(MANIFEST, f"claims an unknown publisher kind: {problem}")
            for problem in publisher_problems(manifest)
        )
    for rel in bundle_files(root):
        if rel == MANIFEST or rel in files:
            continue
        if has_pickle_suffix(rel):
            problems.append(Problem(rel, "is a pickle file; bundles never contain pickle"))
        elif rel.endswith(".npy") and _holds_objects(root / rel):
            problems.append(
                Problem(
                    rel,
                    "holds Python objects (object dtype, i.e. pickle); bundles never contain pickle",
                )
            )
        elif full:
            problems.append(Problem(rel, UNLISTED))
    return problems


def first_problem_error(root: Path, problems: list[Problem]) -> BundleError:
    """One BundleError for `Bundle.open`: the first problem, and how many more there are."""
    first = problems[0]
    more = (
        f" (and {len(problems) - 1} more problems; run `atlas verify {root}`)"
        if len(problems) > 1
        else ""
    )
    return BundleError(
        f"{root / first.file}: {first.message}{more}", hint=REPAIR_HINT, path=str(root / first.file)
    )


def verify_bundle(path: str | Path) -> list[str]:
    """Every problem of the bundle at `path`, one line each naming the file; [] when intact."""
    return [str(problem) for problem in bundle_problems(path)]


def bundle_problems(path: str | Path) -> list[Problem]:
    """What `verify_bundle` reports, as `Problem` values (a missing manifest is `incomplete`)."""
    root = Path(path)
    try:
        manifest = read_manifest(root, exhaustive=True)
    except BundleError as exc:
        return [_manifest_problem(root, exc)]
    return structural_problems(root, manifest, full=True)


def _manifest_problem(root: Path, exc: BundleError) -> Problem:
    # read_manifest names absolute paths; a verify line starts with the bundle-relative one.
    message, file = exc.message, MANIFEST
    for prefix, named in ((f"{root / MANIFEST}: ", MANIFEST), (f"{root}: ", str(root))):
        if message.startswith(prefix):
            message, file = message[len(prefix) :], named
            break
    if exc.hint:
        message += f" ({exc.hint})"
    missing = root.is_dir() and not (root / MANIFEST).exists()
    return Problem(file, message, incomplete=missing)
