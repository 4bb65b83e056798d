"""Seeded damage to a copy of a bundle, for the `bundle` class: plain (bytes flipped, a file cut
short, emptied or deleted) or resealed (a value edited, then the file's SHA-256, size, dtype and
shape written back into manifest.json so that only structure can tell).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

PLAIN = ["flip", "truncate", "delete", "empty"]
RESEALED = [
    "int-value",
    "swap",
    "float-value",
    "dtype",
    "shape",
    "object-array",
    "npy-header",
    "bad-utf8",
    "lines",
    "json-shape",
    "record",
    "parquet",
    "manifest-value",
    "manifest-name",
    "page-link",
    "deep-json",
    "special-file",
]
INT_VALUES = [-1, -2, -(2**31), 2**31 - 1, 10**9, 2**62, 0, "len", "len+1"]
FLOAT_VALUES = [float("nan"), float("inf"), -float("inf"), -5.0, 1e38, 0.0]
DTYPES = ["<i8", "<i4", "<f8", "<f4", "<u1", "<i2", ">i4", "|b1", "<U4"]
JUNK_VALUES: list[Any] = [
    [],
    {},
    "x",
    "",
    0,
    -1,
    10**12,
    2**70,
    None,
    True,
    1.5,
    float("nan"),
    [[1, 2]],
]
UNSAFE_NAMES = [
    "../../../etc/passwd",
    "/etc/passwd",
    "a/../../x",
    "a\x00b",
    "",
    ".",
    "mirror/../../x",
]


def _files(root: Path, suffixes: tuple[str, ...] = ()) -> list[str]:
    found = sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and not p.is_symlink() and p.name != "manifest.json"
    )
    return [f for f in found if not suffixes or f.endswith(suffixes)]


def _pick(items: list[str], pick: float) -> str:
    return items[min(int(pick * len(items)), len(items) - 1)]


def reseal(root: Path, rel: str) -> None:
    """Write `rel`'s SHA-256 and size (and an array's dtype and shape) into the manifest."""
    import numpy as np

    manifest = json.loads((root / "manifest.json").read_text())
    path = root / rel
    entry = manifest.setdefault("files", {}).setdefault(rel, {})
    data = path.read_bytes()
    entry.update(sha256=hashlib.sha256(data).hexdigest(), size=len(data))
    if rel.endswith(".npy") and "dtype" in entry:
        with contextlib.suppress(Exception):  # a header numpy cannot read keeps the old values
            array = np.load(path, mmap_mode="r", allow_pickle=False)
            entry.update(dtype=array.dtype.str, shape=list(array.shape))
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2))


class Damage:
    """Applies one damage recipe to a bundle copy; returns what it did, for the report."""

    def __init__(self, root: Path, outside: Path) -> None:
        self.root = root
        self.outside = outside
        self.last = False

    def apply(self, spec: dict[str, Any]) -> str:
        if self.last:
            # Damage after a special file or a deep manifest would read it here (to reseal).
            return f"{spec['op']} skipped (a special file or a deep manifest came first)"
        rng = random.Random(spec["seed"])
        op: Callable[[float, random.Random], str] = getattr(
            self, "_" + spec["op"].replace("-", "_")
        )
        return op(spec["pick"], rng)

    # plain damage: hashes show it

    def _flip(self, pick: float, rng: random.Random) -> str:
        rel = _pick([*_files(self.root), "manifest.json"], pick)
        data = bytearray((self.root / rel).read_bytes())
        for _ in range(rng.randrange(1, 5)):
            if data:
                data[rng.randrange(len(data))] ^= rng.choice(
                    [0x80, 0x01, 0xFF, rng.randrange(1, 256)]
                )
        (self.root / rel).write_bytes(bytes(data))
        return f"flipped bytes in {rel}"

    def _truncate(self, pick: float, rng: random.Random) -> str:
        rel = _pick([*_files(self.root), "manifest.json"], pick)
        data = (self.root / rel).read_bytes()
        (self.root / rel).write_bytes(data[: rng.randrange(max(1, len(data)))])
        return f"truncated {rel}"

    def _delete(self, pick: float, rng: random.Random) -> str:
        rel = _pick([*_files(self.root), "manifest.json"], pick)
        (self.root / rel).unlink()
        return f"deleted {rel}"

    def _empty(self, pick: float, rng: random.Random) -> str:
        rel = _pick(_files(self.root), pick)
        (self.root / rel).write_bytes(b"")
        return f"emptied {rel}"

    # resealed damage: hashes pass

    def _array(self, pick: float, kinds: str) -> tuple[str, Any]:
        import numpy as np

        candidates = []
        for rel in _files(self.root, (".npy",)):
            with contextlib.suppress(Exception):
                array = np.load(self.root / rel, allow_pickle=False)
                if array.dtype.kind in kinds and array.size:
                    candidates.append((rel, array))
        rel, array = candidates[min(int(pick * len(candidates)), len(candidates) - 1)]
        return rel, array.copy()

    def _save(self, rel: str, array: Any, *, allow_pickle: bool = False) -> None:
        import numpy as np

        with (self.root / rel).open("wb") as fh:
            np.save(fh, array, allow_pickle=allow_pickle)
        reseal(self.root, rel)

    def _int_value(self, pick: float, rng: random.Random) -> str:
        import numpy as np

        rel, array = self._array(pick, "iu")
        flat = array.reshape(-1)
        value = rng.choice(INT_VALUES)
        value = {"len": flat.size, "len+1": flat.size + 1}.get(value, value)  # type: ignore[call-overload]
        where = rng.randrange(flat.size)
        flat[where] = np.array(value, dtype=np.int64).astype(array.dtype)
        self._save(rel, array)
        return f"{rel}[{where}] = {value} (resealed)"

    def _swap(self, pick: float, rng: random.Random) -> str:
        rel, array = self._array(pick, "iuf")
        flat = array.reshape(-1)
        if flat.size > 1:
            i = rng.randrange(flat.size - 1)
            flat[i], flat[i + 1] = flat[i + 1].copy(), flat[i].copy()
        self._save(rel, array)
        return f"swapped two values of {rel} (resealed)"

    def _float_value(self, pick: float, rng: random.Random) -> str:
        rel, array = self._array(pick, "f")
        flat = array.reshape(-1)
        value = rng.choice(FLOAT_VALUES)
        flat[rng.randrange(flat.size)] = value
        self._save(rel, array)
        return f"{rel} holds {value} (resealed)"

    def _dtype(self, pick: float, rng: random.Random) -> str:
        rel, array = self._array(pick, "iuf")
        dtype = rng.choice(DTYPES)
        with contextlib.suppress(ValueError, TypeError, OverflowError):
            array = array.astype(dtype)
        self._save(rel, array)
        return f"{rel} as {dtype} (resealed)"

    def _shape(self, pick: float, rng: random.Random) -> str:
        import numpy as np

        rel, array = self._array(pick, "iuf")
        how = rng.choice(["stack", "drop-last", "add", "column", "scalar", "empty"])
        changed = {
            "stack": lambda a: np.stack([a, a]),
            "drop-last": lambda a: a[:-1],
            "add": lambda a: np.concatenate([a, a[-1:]]),
            "column": lambda a: a.reshape(-1, 1),
            "scalar": lambda a: a.reshape(-1)[0],
            "empty": lambda a: a[:0],
        }[how](array)
        self._save(rel, np.ascontiguousarray(changed))
        return f"{rel} reshaped ({how}, resealed)"

    def _object_array(self, pick: float, rng: random.Random) -> str:
        import numpy as np

        rel, array = self._array(pick, "iuf")
        self._save(rel, np.array(array.reshape(-1).tolist(), dtype=object), allow_pickle=True)
        return f"{rel} as a pickled object array (resealed)"

    def _npy_header(self, pick: float, rng: random.Random) -> str:
        rel = _pick(_files(self.root, (".npy",)), pick)
        data = (self.root / rel).read_bytes()
        junk = rng.choice(
            [b"'descr': '<x9'", b"'shape': (-1,)", b"'fortran_order': None", b"'descr': 'O'", b"{"]
        )
        start = data.find(b"{")
        end = data.find(b"}", start)
        header = data[start : end + 1]
        new = header.replace(header[1 : 1 + len(junk)], junk[: len(header) - 2], 1)
        (self.root / rel).write_bytes(data[:start] + new + data[end + 1 :])
        reseal(self.root, rel)
        return f"{rel} header edited (resealed)"

    def _text_file(self, pick: float) -> str:
        return _pick(_files(self.root, (".txt", ".jsonl", ".json", ".md")), pick)

    def _bad_utf8(self, pick: float, rng: random.Random) -> str:
        rel = self._text_file(pick)
        lines = (self.root / rel).read_bytes().split(b"\n")
        where = rng.randrange(len(lines))
        bad = rng.choice(
            [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80", b"\x80", b"\xc0\xaf"]
        )
        lines[where] = bad + lines[where] if rng.random() < 0.5 else lines[where] + bad
        (self.root / rel).write_bytes(b"\n".join(lines))
        reseal(self.root, rel)
        return f"{rel} line {where + 1} not UTF-8 (resealed)"

    def _lines(self, pick: float, rng: random.Random) -> str:
        rel = self._text_file(pick)
        lines = (self.root / rel).read_bytes().split(b"\n")
        how = rng.choice(["drop", "duplicate", "swap", "blank", "nul", "crlf", "huge", "reverse"])
        i = rng.randrange(len(lines))
        if how == "drop":
            del lines[i]
        elif how == "duplicate":
            lines.insert(i, lines[i])
        elif how == "swap":
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif how == "blank":
            lines.insert(i, b"")
        elif how == "nul":
            lines[i] += b"\x00"
        elif how == "crlf":
            lines = [line + b"\r" for line in lines]
        elif how == "huge":
            lines[i] = b"x" * rng.randrange(100_000, 2_000_000)
        else:
            lines.reverse()
        (self.root / rel).write_bytes(b"\n".join(lines))
        reseal(self.root, rel)
        return f"{rel}: lines {how} (resealed)"

    def _json_shape(self, pick: float, rng: random.Random) -> str:
        candidates = [f for f in _files(self.root, (".json",))]
        rel = _pick(candidates, pick)
        value = json.loads((self.root / rel).read_text())
        where = _replace_random_node(value, rng)
        if where is None:
            value = rng.choice(JUNK_VALUES)
            where = "the whole document"
        (self.root / rel).write_text(json.dumps(value))
        reseal(self.root, rel)
        return f"{rel}: {where} replaced (resealed)"

    def _deep_json(self, pick: float, rng: random.Random) -> str:
        """A JSON file (the manifest too) or a record line nested far past any reader's stack."""
        depth = rng.choice([65, 129, 2_000, 200_000])
        deep = b"[" * depth + b"]" * depth
        rel = _pick([*_files(self.root, (".json", ".jsonl")), "manifest.json"], pick)
        if rel.endswith(".jsonl"):
            lines = (self.root / rel).read_bytes().split(b"\n")
            lines[rng.randrange(max(1, len(lines) - 1))] = b'{"file":' + deep + b"}"
            (self.root / rel).write_bytes(b"\n".join(lines))
        else:
            (self.root / rel).write_bytes(deep)
        if rel == "manifest.json":
            self.last = True
            return f"{rel} nested {depth:,} deep"
        reseal(self.root, rel)
        return f"{rel} nested {depth:,} deep (resealed)"

    def _special_file(self, pick: float, rng: random.Random) -> str:
        """A file replaced by a FIFO or a link to a device: a reader that opens it blocks or
        never reaches the end."""
        rel = _pick([*_files(self.root), "manifest.json"], pick)
        path = self.root / rel
        path.unlink()
        self.last = True
        if rng.random() < 0.5:
            os.mkfifo(path)
            return f"{rel} is a FIFO"
        path.symlink_to("/dev/zero")
        return f"{rel} links to /dev/zero"

    def _record(self, pick: float, rng: random.Random) -> str:
        rel = "identifiers/records.jsonl"
        path = self.root / rel
        if not path.is_file():
            return self._json_shape(pick, rng)
        lines = path.read_bytes().split(b"\n")
        i = min(int(pick * (len(lines) - 1)), len(lines) - 2)
        with contextlib.suppress(ValueError):
            record = json.loads(lines[i])
            if isinstance(record, dict) and record:
                key = rng.choice(sorted(record))
                record[key] = rng.choice([*JUNK_VALUES, "../../../etc/passwd"])
                lines[i] = json.dumps(record).encode()
        path.write_bytes(b"\n".join(lines))
        reseal(self.root, rel)
        return f"{rel} record {i} edited (resealed)"

    def _parquet(self, pick: float, rng: random.Random) -> str:
        import pyarrow as pa
        import pyarrow.parquet as pq

        rel = "chunks.parquet"
        table = pq.read_table(self.root / rel)
        name = _pick(table.column_names, pick)
        how = rng.choice(
            ["drop", "as-text", "nulls", "unsafe", "negative", "duplicate-ids", "empty", "extra"]
        )
        index = table.schema.get_field_index(name)
        n = len(table)
        if how == "drop":
            table = table.drop_columns([name])
        elif how == "as-text":
            table = table.set_column(
                index, name, pa.array([json.dumps(v) for v in table[name].to_pylist()])
            )
        elif how == "nulls":
            table = table.set_column(index, name, pa.nulls(n, table.schema.field(name).type))
        elif how == "unsafe":
            table = table.set_column(
                table.schema.get_field_index("file"),
                "file",
                pa.array([rng.choice(UNSAFE_NAMES)] * n),
            )
        elif how == "negative":
            table = table.set_column(
                table.schema.get_field_index("line_start"),
                "line_start",
                pa.array([-(2**31)] * n, pa.int32()),
            )
        elif how == "duplicate-ids":
            ids = table["chunk_id"].to_pylist()
            table = table.set_column(
                table.schema.get_field_index("chunk_id"), "chunk_id", pa.array([ids[0]] * n)
            )
        elif how == "empty":
            table = table.slice(0, 0)
        else:
            table = table.append_column("extra", pa.array([b"\xff"] * n, pa.binary()))
        pq.write_table(table, self.root / rel)
        reseal(self.root, rel)
        return f"chunks.parquet: {how} {name} (resealed)"

    def _manifest_value(self, pick: float, rng: random.Random) -> str:
        manifest = json.loads((self.root / "manifest.json").read_text())
        sections = {k: v for k, v in manifest.items() if k != "files"}
        where = _replace_random_node(sections, rng, numbers_first=True)
        manifest.update(sections)
        (self.root / "manifest.json").write_text(json.dumps(manifest, indent=2))
        return f"manifest.json: {where} replaced"

    def _manifest_name(self, pick: float, rng: random.Random) -> str:
        manifest = json.loads((self.root / "manifest.json").read_text())
        unsafe = rng.choice([*UNSAFE_NAMES, "x" * 300, "a/b", ".hidden"])
        how = rng.choice(["file-key", "keyword-files", "identifiers-files", "name"])
        if how == "file-key":
            old = _pick(sorted(manifest["files"]), pick)
            manifest["files"][unsafe] = manifest["files"].pop(old)
        elif how == "keyword-files" and isinstance(manifest.get("keyword"), dict):
            manifest["keyword"].setdefault("files", []).append(unsafe)
        elif how == "identifiers-files" and isinstance(manifest.get("identifiers"), dict):
            manifest["identifiers"].setdefault("files", []).append(unsafe)
        else:
            manifest["name"] = unsafe
        (self.root / "manifest.json").write_text(json.dumps(manifest, indent=2))
        return f"manifest.json: {how} named {unsafe!r}"

    def _page_link(self, pick: float, rng: random.Random) -> str:
        rel = _pick(_files(self.root, (".md",)) or _files(self.root), pick)
        secret = self.outside / "secret.md"
        (self.root / rel).unlink()
        os.symlink(secret, self.root / rel)
        reseal(self.root, rel)
        return f"{rel} is a link to a file outside (resealed)"


def _nodes(value: Any, path: str = "") -> Iterator[tuple[str, Any, Any]]:
    """(path, container, key) of every value inside `value`."""
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, child in items:
        here = f"{path}.{key}" if path else str(key)
        yield here, value, key
        yield from _nodes(child, here)


def _replace_random_node(
    value: Any, rng: random.Random, *, numbers_first: bool = False
) -> str | None:
    nodes = list(_nodes(value))
    if numbers_first:
        numeric = [n for n in nodes if isinstance(n[1][n[2]], int | float) and rng.random() < 0.8]
        nodes = numeric or nodes
    if not nodes:
        return None
    where, container, key = rng.choice(nodes)
    junk = rng.choice([*JUNK_VALUES, -(10**12), "nan", float("inf")])
    container[key] = junk
    return f"{where} = {junk!r}"
