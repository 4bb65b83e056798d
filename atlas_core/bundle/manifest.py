"""The bundle manifest: format version, schema validation, file entries and `.npy` headers.

Everything here reads only what it must: a manifest, a file's metadata or a `.npy` header. Hashing
whole files is left to the writer and to `verify_bundle`.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from atlas_core.errors import BundleError, BundleVersionError
from atlas_core.safeio import MAX_JSON_BYTES, loads_bounded, read_regular

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

FORMAT_VERSION = "1.4"
# Read from the version, so a minor bump cannot leave the reader calling its own bundles newer.
FORMAT_MAJOR, FORMAT_MINOR = (int(part) for part in FORMAT_VERSION.split("."))
MANIFEST = "manifest.json"
CHUNKS = "chunks.parquet"
VECTORS = "vectors.npy"
MIRROR = "mirror"
MODEL = "model"
VECTOR_DTYPE = "<f2"
# Manifest flag of a bundle whose vectors are zero rows still being computed (`atlas index` writes
# the keyword and identifier indexes first): readers keep vector search off for it.
VECTORS_PENDING = "vectors_pending"

REPAIR_HINT = "re-download it with `atlas download` or rebuild it with `atlas build`"

_VERSION_RE = re.compile(r"^([0-9]+)\.([0-9]+)$")
_SCHEMA_FILE = "manifest.schema.json"


def parse_version(text: object) -> tuple[int, int] | None:
    """``"1.0"`` -> ``(1, 0)``; None for anything that is not ``"MAJOR.MINOR"``."""
    if not isinstance(text, str):
        return None
    match = _VERSION_RE.match(text)
    return (int(match.group(1)), int(match.group(2))) if match else None


def _schema_text() -> str:
    # A wheel carries a copy inside the package (hatch force-include); a checkout has only the
    # one in bundle_spec/, which stays the single source of truth. The package's folder is read
    # directly when it is one (importlib.resources would import zipfile and more for it, before
    # a language server's first hover).
    here = Path(__file__).resolve().parent
    for candidate in (here / _SCHEMA_FILE, here.parents[1] / "bundle_spec" / _SCHEMA_FILE):
        if candidate.is_file():
            return candidate.read_text(encoding="utf-8")
    from importlib import resources  # a package inside a zip archive

    return resources.files("atlas_core.bundle").joinpath(_SCHEMA_FILE).read_text(encoding="utf-8")


@functools.cache
def schema() -> dict[str, Any]:
    """The manifest JSON schema (draft 2020-12) from ``bundle_spec/manifest.schema.json``."""
    return json.loads(_schema_text())


@functools.cache
def _validator() -> Any:
    import jsonschema

    jsonschema.Draft202012Validator.check_schema(schema())
    return jsonschema.Draft202012Validator(schema())


@functools.cache
def _fast_check() -> Callable[[Any], bool] | None:
    from atlas_core.bundle.schema_check import Unsupported, compile_schema

    try:
        return compile_schema(schema())
    except Unsupported as exc:
        log.debug("manifest schema needs the full validator: %s", exc)
        return None


def _certainly_valid(manifest: dict[str, Any]) -> bool:
    check = _fast_check()
    return check is not None and check(manifest)


# jsonschema spends ~0.1 ms per file entry; a bundle with thousands of mirror files would take a
# second to open. Past this many entries `Bundle.open` checks the entries with the schema's own
# patterns in plain Python (the same rules; tests compare both); `atlas verify` always runs the
# full validator.
_FAST_ENTRIES = 64


@functools.cache
def _name_pattern() -> re.Pattern[str]:
    return re.compile(schema()["properties"]["name"]["pattern"])


def bundle_name_problem(name: object) -> str | None:
    """Why `name` cannot be a bundle's ``name``, or None.

    Installs and backups put the name into paths, so it must be one safe path segment: letters,
    digits, ``.``, ``_`` and ``-``, starting with a letter or digit, at most 128 characters.
    (`fullmatch`, because a JSON Schema ``$`` in Python's `re` also matches before a final newline.)
    """
    if isinstance(name, str) and _name_pattern().fullmatch(name):
        return None
    return (
        f"{name!r} is not a bundle name: use 1-128 letters, digits, '.', '_' or '-', starting "
        "with a letter or digit (it names folders and backups, so no '/' or '..')"
    )


def sanitized_bundle_name(text: str) -> str:
    """A valid bundle name made from `text` (an output folder's name): accents dropped, every run
    of other characters turned into one '-', cut to 128 characters."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", ascii_text).lstrip("._-")[:128]
    return name or "bundle"


def _jsonschema_errors(instance: dict[str, Any], limit: int) -> list[str]:
    errors = sorted(_validator().iter_errors(instance), key=lambda e: list(e.absolute_path))
    out = []
    for error in errors[:limit]:
        where = "/".join(str(part) for part in error.absolute_path) or "(top level)"
        out.append(f"{where}: {error.message}")
    return out


@functools.cache
def _entry_patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    defs = schema()["$defs"]
    props = defs["file_entry"]["properties"]
    return (
        re.compile(defs["relpath"]["pattern"]),
        re.compile(props["sha256"]["pattern"]),
        re.compile(props["dtype"]["pattern"]),
    )


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def file_entry_errors(rel: object, entry: object) -> list[str]:
    """The schema's ``$defs`` rules for one ``files`` member, checked in plain Python."""
    relpath, sha256, dtype = _entry_patterns()
    where = f"files/{rel}"
    errors = []
    if not isinstance(rel, str) or not relpath.search(rel):
        errors.append(f"files: {rel!r} is not a safe bundle-relative path")
    if not isinstance(entry, dict):
        return [*errors, f"{where}: {entry!r} is not of type 'object'"]
    for key in ("sha256", "size"):
        if key not in entry:
            errors.append(f"{where}: {key!r} is a required property")
    if "sha256" in entry and not (
        isinstance(entry["sha256"], str) and sha256.search(entry["sha256"])
    ):
        errors.append(f"{where}/sha256: {entry['sha256']!r} is not 64 lowercase hex digits")
    if "size" in entry and not _is_count(entry["size"]):
        errors.append(f"{where}/size: {entry['size']!r} is not an integer >= 0")
    if "dtype" in entry and not (isinstance(entry["dtype"], str) and dtype.search(entry["dtype"])):
        errors.append(f"{where}/dtype: {entry['dtype']!r} is not a little-endian numeric dtype")
    if "shape" in entry and not (
        isinstance(entry["shape"], list) and all(_is_count(n) for n in entry["shape"])
    ):
        errors.append(f"{where}/shape: {entry['shape']!r} is not a list of integers >= 0")
    if ("dtype" in entry) != ("shape" in entry):
        errors.append(f"{where}: 'dtype' and 'shape' go together")
    return errors


def schema_errors(
    manifest: dict[str, Any], *, limit: int = 5, exhaustive: bool = False
) -> list[str]:
    """Schema violations, each naming the JSON path of the offending value ([] when valid).

    `exhaustive` forces the JSON Schema validator over every file entry (what `atlas verify` does).
    Otherwise a manifest the compiled plain-Python check finds valid is valid (that check is
    stricter than the schema, never looser); any other goes through the validator for its messages.
    """
    if not exhaustive and _certainly_valid(manifest):
        return []
    files = manifest.get("files")
    if exhaustive or not isinstance(files, dict) or len(files) <= _FAST_ENTRIES:
        return _jsonschema_errors(manifest, limit)
    required = schema()["properties"]["files"]["required"]
    head = {**manifest, "files": {rel: files[rel] for rel in required if rel in files}}
    errors = _jsonschema_errors(head, limit)
    for rel, entry in files.items():
        if len(errors) >= limit:
            break
        if rel not in head["files"]:
            errors.extend(file_entry_errors(rel, entry))
    return errors[:limit]


def check_version(manifest: dict[str, Any], where: Path) -> None:
    """Refuse versions this reader cannot read; note newer minors (see SPEC "Versioning")."""
    raw = manifest.get("format_version")
    version = parse_version(raw)
    if version is None:
        raise BundleError(
            f"{where}: format_version {raw!r} is not a bundle format version (expected 'MAJOR.MINOR')",
            hint=f"this is not an Atlas bundle, or its manifest is damaged; {REPAIR_HINT}",
            path=str(where),
        )
    major, minor = version
    if major > FORMAT_MAJOR:
        built_by = manifest.get("atlas_version")
        need = (
            f"atlas-docs {built_by} or later" if isinstance(built_by, str) else "a newer atlas-docs"
        )
        raise BundleVersionError(
            f"{where}: bundle format {raw} is newer than this Atlas reads "
            f"(format {FORMAT_MAJOR}.x)",
            hint=f"install {need} (`uv tool upgrade atlas-docs` or "
            f"`pip install -U atlas-docs`), or download a bundle in format {FORMAT_MAJOR}.x",
            path=str(where),
        )
    if major < FORMAT_MAJOR:
        raise BundleVersionError(
            f"{where}: bundle format {raw} is older than this Atlas reads (format {FORMAT_MAJOR}.x)",
            hint="rebuild it with `atlas build` or re-download a current one with `atlas download`",
            path=str(where),
        )
    if minor > FORMAT_MINOR:
        log.info(
            "%s: bundle format %s is newer than this reader (%s); opening it and ignoring what "
            "this version does not know",
            where,
            raw,
            FORMAT_VERSION,
        )


def read_manifest(root: Path, *, exhaustive: bool = False) -> dict[str, Any]:
    """Load and check ``manifest.json`` (JSON, version, schema); raise BundleError naming it."""
    path = root / MANIFEST
    if not root.is_dir():
        raise BundleError(
            f"{root}: no bundle here (not a directory)",
            hint="pass a bundle directory built with `atlas build` or installed by `atlas download`",
            path=str(root),
        )
    try:
        raw = read_regular(path, limit=MAX_JSON_BYTES)
    except FileNotFoundError:
        raise BundleError(
            f"{path}: missing; {root} is not an Atlas bundle or is incomplete",
            hint=REPAIR_HINT,
            path=str(path),
        ) from None
    except OSError as exc:
        raise BundleError(f"{path}: cannot read: {exc.strerror}", path=str(path)) from exc
    except ValueError as exc:  # a link, a FIFO, a device, too large
        raise BundleError(f"{path}: {exc}", hint=REPAIR_HINT, path=str(path)) from None
    try:
        manifest = loads_bounded(raw)
    except ValueError as exc:  # UnicodeDecodeError, JSONDecodeError, a NaN, too deep
        raise BundleError(
            f"{path}: not valid UTF-8 JSON ({exc})", hint=REPAIR_HINT, path=str(path)
        ) from None
    if not isinstance(manifest, dict):
        raise BundleError(f"{path}: not a JSON object", hint=REPAIR_HINT, path=str(path))
    check_version(manifest, path)
    if "name" in manifest and (why := bundle_name_problem(manifest["name"])):
        raise BundleError(f"{path}: name {why}", hint=REPAIR_HINT, path=str(path))
    problems = schema_errors(manifest, exhaustive=exhaustive)
    if problems:
        raise BundleError(
            f"{path}: does not match the manifest schema: {'; '.join(problems)}",
            hint=REPAIR_HINT,
            path=str(path),
        )
    return manifest


def sha256_file(path: Path, *, block: int = 1 << 20) -> str:
    import hashlib  # here: opening a bundle checks no digest, and servers start faster without

    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(block):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass(frozen=True, slots=True)
class NpyHeader:
    """What a `.npy` header says, read without touching the data."""

    dtype_str: str  # numpy's canonical ``dtype.str``, e.g. "<f2"
    itemsize: int
    shape: tuple[int, ...]
    fortran_order: bool
    data_offset: int
    has_objects: bool = False
    dtype_problem: str | None = None  # why a bundle may not hold this dtype (None: it may)
    numpy_dtype: Any = None  # set when numpy parsed the header (anything but a plain dtype)

    @property
    def dtype(self) -> np.dtype[Any]:
        if self.numpy_dtype is not None:
            return self.numpy_dtype
        import numpy as np

        return np.dtype(self.dtype_str)

    @property
    def data_bytes(self) -> int:
        return math.prod(self.shape) * self.itemsize


# `Bundle.open` reads a few dozen `.npy` headers and the lookup path never touches an array, so
# importing numpy (150 ms) only to parse headers would be most of the open. `np.save` writes one
# exact header shape for plain arrays; a header of exactly that shape, with one of these dtypes
# (each numpy's canonical `dtype.str`, all allowed in a bundle), is read here. Anything else goes
# to numpy's own parser, so unusual and damaged headers get numpy's verdict and message as before.
_PLAIN_DTYPES = frozenset(
    [
        "|b1",
        "|i1",
        "|u1",
        "<i2",
        "<i4",
        "<i8",
        "<u2",
        "<u4",
        "<u8",
        "<f2",
        "<f4",
        "<f8",
        "<c8",
        "<c16",
    ]
)
_NPY_MAGIC = b"\x93NUMPY"
_NPY_MAX_HEADER = 10_000  # numpy's default max_header_size: longer headers are numpy's to refuse
_DIM = r"(?:0|[1-9][0-9]*)"
_PLAIN_HEADER = re.compile(
    r"\{'descr': '(?P<descr>[<|][biufc][0-9]{1,2})', 'fortran_order': (?P<fortran>False|True), "
    rf"'shape': \((?P<shape>|{_DIM},|{_DIM}(?:, {_DIM})+)\), \}} *\n"
)


def _plain_npy_header(head: bytes, read: Any) -> NpyHeader | None:
    """The header when it is exactly what `np.save` writes for a plain array, else None."""
    if len(head) < 10 or head[:6] != _NPY_MAGIC or head[6:8] not in (b"\x01\x00", b"\x02\x00"):
        return None
    if head[6] == 1:
        length, offset = int.from_bytes(head[8:10], "little"), 10
    else:
        rest = read(2)
        if len(rest) < 2:
            return None
        length, offset = int.from_bytes(head[8:10] + rest, "little"), 12
    if length > _NPY_MAX_HEADER:
        return None
    text = read(length)
    if len(text) != length:
        return None
    match = _PLAIN_HEADER.fullmatch(text.decode("latin1"))
    if match is None or match["descr"] not in _PLAIN_DTYPES:
        return None
    descr, shape = match["descr"], match["shape"]
    return NpyHeader(
        dtype_str=descr,
        itemsize=int(descr[2:]),
        shape=tuple(int(n) for n in shape.split(",") if n),
        fortran_order=match["fortran"] == "True",
        data_offset=offset + length,
    )


def read_npy_header(path: Path) -> NpyHeader:
    """Parse only the header of a `.npy` file; ValueError with a reason when it is not one."""
    with path.open("rb") as fh:
        plain = _plain_npy_header(fh.read(10), fh.read)
        if plain is not None:
            return plain
        fh.seek(0)
        return _numpy_npy_header(fh)


def _numpy_npy_header(fh: Any) -> NpyHeader:
    import numpy as np

    fmt = np.lib.format
    try:
        version = fmt.read_magic(fh)
    except ValueError as exc:
        raise ValueError(f"not a .npy file ({exc})") from None
    try:
        if version == (1, 0):
            shape, fortran, dtype = fmt.read_array_header_1_0(fh)
        elif version == (2, 0):
            shape, fortran, dtype = fmt.read_array_header_2_0(fh)
        else:
            raise ValueError(f".npy format version {version[0]}.{version[1]} is not allowed")
    except Exception as exc:  # numpy's header filter also raises tokenize.TokenError and others
        raise ValueError(f"unreadable .npy header ({exc})") from None
    return NpyHeader(
        dtype_str=dtype.str,
        itemsize=dtype.itemsize,
        shape=tuple(int(n) for n in shape),
        fortran_order=fortran,
        data_offset=fh.tell(),
        has_objects=bool(dtype.hasobject),
        dtype_problem=npy_dtype_problem(dtype),
        numpy_dtype=dtype,
    )


def npy_dtype_problem(dtype: np.dtype[Any]) -> str | None:
    """Why an array dtype is not allowed in a bundle, or None."""
    if dtype.hasobject:
        return "holds Python objects (object dtype, i.e. pickle); bundles never contain pickle"
    if dtype.names is not None or dtype.subdtype is not None:
        return f"has a structured dtype {dtype}; only plain numeric dtypes are allowed"
    if dtype.str[0] not in "<|":
        return f"is big-endian ({dtype.str}); bundle arrays are little-endian"
    if dtype.kind not in "biufc":
        return f"has dtype {dtype.str}; only numeric and boolean dtypes are allowed"
    return None


def file_entry(path: Path) -> dict[str, Any]:
    """The manifest entry of one file: size, SHA-256, and dtype/shape for `.npy` arrays."""
    entry: dict[str, Any] = {"sha256": sha256_file(path), "size": path.stat().st_size}
    if path.suffix == ".npy":
        header = read_npy_header(path)
        entry["dtype"] = header.dtype_str
        entry["shape"] = list(header.shape)
    return entry


def relpath_of(path: PurePosixPath | Path, root: Path) -> str:
    return Path(path).relative_to(root).as_posix()
