"""The mention index: where each code-shaped token occurs in a bundle's pages, and how.

Build time: `write_mention_index` scans every page (`atlas_core.identifiers.extract.mention_scan`) and
writes ``mentions/`` (byte layout in ``bundle_spec/SPEC.md``, section "mentions/"). Run time:
`MentionIndex` answers `rows(key)`, one `Mention` per page that writes the key: how often, in
which places (heading, definition table, example, ...), how densely in its best section. The
arrays are memory-mapped, so opening costs a few small reads and a lookup touches a few pages.

The index is optional: a bundle built before it serves from the identifier table alone.
"""

from __future__ import annotations

import json
import mmap
import sys
from array import array
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate, repeat
from pathlib import Path
from typing import Any, Literal

from atlas_core.errors import BundleError
from atlas_core.identifiers.lookup.ranking import best_first
from atlas_core.identifiers.spelling import path_key, strip_path
from atlas_core.identifiers.store.places import PLACE_NAMES
from atlas_core.identifiers.store.table import read_lines, write_lines, write_npy
from atlas_core.safeio import read_json
from atlas_core.types import Document

MENTIONS_DIR = "mentions"
MENTIONS_FORMAT = "atlas-mentions"
MENTIONS_VERSION = 1
META_FILE = "meta.json"
FILES_FILE = "files.txt"
URLS_FILE = "urls.txt"
ANCHORS_FILE = "anchors.txt"
KEYS_FILE = "keys.txt"
KEY_STARTS_FILE = "key_starts.npy"
GENERATED_FILE = "generated.npy"
OFFSETS_FILE = "key_offsets.npy"
# One value per (key, page) row, in key order: the CSR postings of keys.txt.
ROW_ARRAYS: dict[str, Literal["i", "B"]] = {
    "row_file.npy": "i",  # page id: a line of files.txt
    "row_count.npy": "i",  # occurrences on the page
    "row_places.npy": "B",  # bitmask of PLACE_NAMES
    "row_section.npy": "i",  # occurrences in the section that holds the most
    "row_line.npy": "i",  # first line (1-based) of the key in that section
    "row_anchor.npy": "i",  # that section's anchor: a line of anchors.txt
}
NPY_DTYPES: dict[str, str] = {"i": "<i4", "B": "|u1", "q": "<i8"}
# A base path must prefix this many spec paths in the docs before lookups try it.
MIN_BASE_USES = 2
# Pages read per key: a key's rows are stored best first, so the pages that document a name are
# among them, and a lookup of `id` stays a bounded amount of work.
ROWS_READ = 32
# Distinct pieces of text whose keys the builder remembers across pages.
CACHE_PIECES = 200_000
MAX_BASE_SEGMENTS = 3


@dataclass(frozen=True, slots=True)
class Mention:
    """One page that writes a key."""

    file: str
    url: str
    generated: bool
    count: int
    places: int
    section_count: int
    line: int
    anchor: str


# ---------------------------------------------------------------------------------------------
# Writing


class MentionBuilder:
    """Accumulates pages, then `write`s the index; `add_page` per page, in any order."""

    def __init__(self) -> None:
        self.files: list[str] = []
        self.urls: list[str] = []
        self.generated: list[int] = []
        self._anchors: dict[str, int] = {"": 0}
        self._rows: dict[str, list[tuple[int, int, int, int, int, int]]] = {}
        self._paths: Counter[str] = Counter()
        self._cache: dict = {}

    def add_file(self, file: str, url: str, *, generated: bool) -> int:
        """Register a page; returns its page id."""
        self.files.append(file.replace("\n", " "))
        self.urls.append(url.replace("\n", " "))
        self.generated.append(int(generated))
        return len(self.files) - 1

    def add_row(
        self, key: str, page: int, count: int, places: int, section: tuple[int, int, str]
    ) -> None:
        """One (key, page) row: `count` occurrences in `places`, and the section that holds
        the most as (its count, the key's first line in it, its anchor)."""
        section_count, line, anchor = section
        anchor_id = self._anchors.setdefault(anchor, len(self._anchors))
        self._rows.setdefault(key, []).append((page, count, places, section_count, line, anchor_id))
        if key.startswith("/"):
            self._paths[key] += count

    def add_page(self, file: str, url: str, text: str, title: str, *, generated: bool) -> None:
        from atlas_core.identifiers.extract.mention_scan import PageScan  # build time only

        page = self.add_file(file, url, generated=generated)
        if len(self._cache) > CACHE_PIECES:
            self._cache.clear()
        scan = PageScan(text, title, self._cache)
        pairs: list[tuple[str, int]] = []  # (key, section), one per occurrence
        lines: list[int] = []
        placed: set[tuple[str, int]] = set()
        for keys, line, section, place in scan.occurrences():
            if keys:
                pairs.extend(zip(keys, repeat(section)))
                lines.extend(repeat(line, len(keys)))
                placed.update(zip(keys, repeat(place)))
        # Counting and first lines in C (Counter, dict from reversed pairs): the Python loops
        # below run once per distinct (key, section), not per occurrence.
        per_section = Counter(pairs)
        first_line = dict(zip(reversed(pairs), reversed(lines), strict=True))
        totals: dict[str, list[int]] = {}  # key -> [count, places]
        best: dict[str, tuple[int, int]] = {}  # key -> (count, -section) of its densest section
        for (key, section), count in per_section.items():
            total = totals.get(key)
            if total is None:
                totals[key] = [count, 0]
            else:
                total[0] += count
            mine = best.get(key)
            if mine is None or (count, -section) > mine:
                best[key] = (count, -section)
        for key, place in placed:
            totals[key][1] |= place
        for key, (count, places) in totals.items():
            section_count, minus_section = best[key]
            line = first_line[(key, -minus_section)]
            anchor = scan.sections[-minus_section].anchor
            self.add_row(key, page, count, places, (section_count, line, anchor))

    def bases(self, endpoint_paths: Iterable[str]) -> list[str]:
        """Path prefixes the docs write before the specs' paths (`/rest/2.0/import/...` for
        `/import/...`): each prefix of up to three segments that stands before a known endpoint
        path at least MIN_BASE_USES times. Lookups try them in both directions."""
        known = {path_key(p) for p in endpoint_paths}
        uses: Counter[str] = Counter()
        for key, count in self._paths.items():
            if key in known:
                continue
            segments = key.strip("/").split("/")
            for n in range(1, min(MAX_BASE_SEGMENTS, len(segments) - 1) + 1):
                if "/" + "/".join(segments[n:]) in known and "{}" not in segments[:n]:
                    uses["/" + "/".join(segments[:n])] += count
                    break
        return sorted(base for base, n in uses.items() if n >= MIN_BASE_USES)

    def write(self, out_dir: Path, bases: Sequence[str] = ()) -> dict[str, Any]:
        """Write ``out_dir/mentions/``; returns the manifest section."""
        target = Path(out_dir) / MENTIONS_DIR
        target.mkdir(parents=True, exist_ok=True)
        keys = sorted(self._rows)
        write_lines(target / FILES_FILE, self.files)
        write_lines(target / URLS_FILE, self.urls)
        write_lines(target / ANCHORS_FILE, [a.replace("\n", " ") for a in self._anchors])
        write_lines(target / KEYS_FILE, keys)
        # Byte offset of each key in keys.txt (and one past the end, as if it ended with a
        # newline), so a reader bisects the mapped file without splitting it.
        write_npy(
            target / KEY_STARTS_FILE,
            "q",
            accumulate((len(k.encode("utf-8")) + 1 for k in keys), initial=0),
        )
        write_npy(target / GENERATED_FILE, "B", self.generated)
        write_npy(
            target / OFFSETS_FILE, "q", accumulate((len(self._rows[k]) for k in keys), initial=0)
        )
        # Each key's pages best first, so a reader may stop after the first few of a name
        # that thousands of pages write (`id`, `name`).
        for key in keys:
            self._rows[key].sort(key=lambda r: (*best_first(r[2], r[3], r[1]), r[0]))
        rows = [row for key in keys for row in self._rows[key]]
        columns = list(zip(*rows, strict=True)) if rows else [()] * len(ROW_ARRAYS)
        for values, (name, code) in zip(columns, ROW_ARRAYS.items(), strict=True):
            write_npy(target / name, code, values)
        meta = {
            "format": MENTIONS_FORMAT,
            "version": MENTIONS_VERSION,
            "files": len(self.files),
            "keys": len(keys),
            "rows": len(rows),
            "anchors": len(self._anchors),
            "places": list(PLACE_NAMES),
            "bases": list(bases),
        }
        (target / META_FILE).write_text(json.dumps(meta, indent=2), encoding="utf-8")
        section: dict[str, Any] = {k: meta[k] for k in ("format", "version", "keys", "rows")}
        section["pages"] = len(self.files)
        section["files"] = sorted(f"{MENTIONS_DIR}/{p.name}" for p in target.iterdir())
        return section


def write_mention_index(documents: Sequence[Document], out_dir: Path) -> dict[str, Any]:
    """Scan every document and write ``out_dir/mentions/``; returns its manifest section."""
    builder = MentionBuilder()
    endpoints: list[str] = []
    for doc in documents:
        if doc.text and not doc.language:  # documentation pages, not a project's source files
            builder.add_page(
                doc.path, doc.url, doc.text, doc.title, generated=doc.source == "openapi"
            )
        endpoints.extend(
            e.path or strip_path(e.name)[1] for e in doc.identifiers if e.kind == "endpoint"
        )
    return builder.write(out_dir, builder.bases(endpoints))


# ---------------------------------------------------------------------------------------------
# Reading


def _map_npy(path: Path, typecode: Literal["i", "B", "q"]) -> tuple[Any, memoryview | array]:
    """A 1-D little-endian .npy file as a zero-copy view (an mmap) of `typecode` values; its
    length is checked against the header. (handle, view); close the handle when done."""
    with open(path, "rb") as fh:
        head = fh.read(10)
        if head[:8] != b"\x93NUMPY\x01\x00":
            raise ValueError(f"{path.name} is not a version 1.0 .npy file")
        size = int.from_bytes(head[8:10], "little")
        header = fh.read(size).decode("latin1")
        want = f"'descr': '{NPY_DTYPES[typecode]}'"
        if want not in header or "'fortran_order': False" not in header:
            raise ValueError(f"{path.name}: not a 1-D {NPY_DTYPES[typecode]} array")
        try:
            length = int(header.split("'shape': (", 1)[1].split(",", 1)[0])
        except (IndexError, ValueError):
            raise ValueError(f"{path.name}: unreadable shape in {header.strip()!r}") from None
        start = 10 + size
        end = start + length * array(typecode).itemsize
        total = path.stat().st_size
        if total != end:
            raise ValueError(f"{path.name}: {total} bytes, its header needs {end} (truncated?)")
        if length == 0:
            return None, array(typecode)
        if sys.byteorder != "little":
            arr = array(typecode)
            fh.seek(start)
            arr.frombytes(fh.read())
            arr.byteswap()
            return None, arr
        mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    return mapped, memoryview(mapped)[start:end].cast(typecode)


def _map_bytes(path: Path) -> mmap.mmap | bytes:
    """A file's bytes through a read-only map (an empty file cannot be mapped)."""
    with open(path, "rb") as fh:
        try:
            return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError:
            return b""


class MentionIndex:
    """An opened ``mentions/`` folder. Opening reads meta.json and the page names and maps the
    keys and arrays; a lookup bisects the mapped keys and reads one run of rows."""

    def __init__(self, directory: Path, meta: dict[str, Any]) -> None:
        self.directory = directory
        self.meta = meta
        self.bases: tuple[str, ...] = tuple(b for b in meta.get("bases", ()) if isinstance(b, str))
        self._handles: list[Any] = []
        self.files = self._load(FILES_FILE, lambda p: read_lines(p, int(meta["files"])))
        self.urls = self._load(URLS_FILE, lambda p: read_lines(p, int(meta["files"])))
        if len(self.files) != meta["files"] or len(self.urls) != meta["files"]:
            raise _damaged(
                directory / (FILES_FILE if len(self.files) != meta["files"] else URLS_FILE),
                f"{len(self.files)} pages and {len(self.urls)} URLs, meta.json says {meta['files']}",
            )
        self._generated = self._array(GENERATED_FILE, "B", int(meta["files"]))
        self._offsets = self._array(OFFSETS_FILE, "q", int(meta["keys"]) + 1)
        self._columns = [
            self._array(name, code, int(meta["rows"])) for name, code in ROW_ARRAYS.items()
        ]
        if self._offsets[0] != 0 or self._offsets[-1] != meta["rows"]:
            raise _damaged(
                directory / OFFSETS_FILE,
                f"runs from {self._offsets[0]} to {self._offsets[-1]}, not 0 to {meta['rows']}",
            )
        self._key_starts = self._array(KEY_STARTS_FILE, "q", int(meta["keys"]) + 1)
        self._keys = self._load(KEYS_FILE, _map_bytes)
        if isinstance(self._keys, mmap.mmap):
            self._handles.append(self._keys)
        size = len(self._keys)
        if self._key_starts[0] != 0 or self._key_starts[-1] != size + (1 if meta["keys"] else 0):
            raise _damaged(
                directory / KEY_STARTS_FILE,
                f"runs from {self._key_starts[0]} to {self._key_starts[-1]}, "
                f"{KEYS_FILE} holds {size} bytes",
            )
        self._anchors: list[str] | None = None

    @classmethod
    def open(cls, directory: Path) -> MentionIndex | None:
        """The index in `directory` (a bundle's ``mentions/``); None when the bundle has none."""
        path = directory / META_FILE
        try:
            meta = read_json(path)
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            raise _damaged(path, str(exc)) from None
        problem = meta_problem(meta)
        if problem:
            raise _damaged(path, problem)
        try:
            return cls(directory, meta)
        except (OSError, ValueError) as exc:
            raise _damaged(directory, str(exc)) from None

    def _load(self, name: str, read: Any) -> Any:
        try:
            return read(self.directory / name)
        except (OSError, ValueError) as exc:
            raise _damaged(self.directory / name, str(exc)) from None

    def _array(self, name: str, code: Literal["i", "B", "q"], length: int) -> Any:
        handle, view = self._load(name, lambda p: _map_npy(p, code))
        if handle is not None:
            self._handles.append(handle)
        if len(view) != length:
            raise _damaged(self.directory / name, f"{len(view)} values, meta.json needs {length}")
        return view

    def close(self) -> None:
        for column in self._columns:
            if isinstance(column, memoryview):
                column.release()
        for view in (self._offsets, self._generated, self._key_starts):
            if isinstance(view, memoryview):
                view.release()
        for handle in self._handles:
            handle.close()
        self._handles = []

    def _find(self, key: str) -> int | None:
        """The index of `key` in keys.txt, bisecting the mapped bytes (UTF-8 byte order is code
        point order), or None."""
        want = key.encode("utf-8", "surrogatepass")
        starts, data = self._key_starts, self._keys
        low, high = 0, len(starts) - 1
        while low < high:
            mid = (low + high) // 2
            a, b = starts[mid], starts[mid + 1] - 1
            if not 0 <= a <= b <= len(data):
                raise _damaged(self.directory / KEY_STARTS_FILE, f"key {mid} spans bytes {a}-{b}")
            if data[a:b] < want:
                low = mid + 1
            else:
                high = mid
        if low < len(starts) - 1 and data[starts[low] : starts[low + 1] - 1] == want:
            return low
        return None

    def _anchor_list(self) -> list[str]:
        if self._anchors is None:
            self._anchors = self._load(ANCHORS_FILE, lambda p: read_lines(p, 1))
        return self._anchors or []

    def rows(self, key: str, cap: int = ROWS_READ) -> list[Mention]:
        """The pages that write `key` (``=token``, ``~compact``, ``/path``, ``$command``), best
        first; at most `cap` of them."""
        i = self._find(key)
        if i is None:
            return []
        start, end = self._offsets[i], self._offsets[i + 1]
        if not 0 <= start <= end <= self.meta["rows"]:
            raise _damaged(self.directory / OFFSETS_FILE, f"key {i} spans rows {start}-{end}")
        file_ids, counts, places, sections, lines, anchors = self._columns
        anchor_names = self._anchor_list()
        out = []
        for row in range(start, min(end, start + cap)):
            page, anchor = file_ids[row], anchors[row]
            if not (0 <= page < len(self.files) and 0 <= anchor < len(anchor_names)):
                raise _damaged(
                    self.directory
                    / ("row_file.npy" if anchor < len(anchor_names) else "row_anchor.npy"),
                    f"row {row} names page {page} and anchor {anchor}, out of range",
                )
            out.append(
                Mention(
                    file=self.files[page],
                    url=self.urls[page],
                    generated=bool(self._generated[page]),
                    count=counts[row],
                    places=places[row],
                    section_count=sections[row],
                    line=lines[row],
                    anchor=anchor_names[anchor],
                )
            )
        return out


def meta_problem(meta: object) -> str | None:
    """What is wrong with a parsed meta.json, or None."""
    if not isinstance(meta, dict):
        return "is not a JSON object"
    if (meta.get("format"), meta.get("version")) != (MENTIONS_FORMAT, MENTIONS_VERSION):
        return (
            f"has format/version {(meta.get('format'), meta.get('version'))!r}; this Atlas reads "
            f"{MENTIONS_FORMAT} version {MENTIONS_VERSION}"
        )
    for key in ("files", "keys", "rows", "anchors"):
        value = meta.get(key)
        if type(value) is not int or value < 0:
            return f"{key} is {value!r}, not a count"
    bases = meta.get("bases", [])
    if not isinstance(bases, list) or not all(isinstance(b, str) for b in bases):
        return "bases is not a list of paths"
    return None


def _damaged(path: Path, reason: str) -> BundleError:
    return BundleError(
        f"mention index unreadable: {path}: {reason}",
        hint="run `atlas verify` on the bundle, then re-download it (`atlas download`) or "
        "rebuild it (`atlas build`)",
        path=str(path),
    )
