"""Class `archive`: hostile `.tar.zst` files against `atlas_core.distribution.archive.unpack`.

Each case composes a few hostile members (names that climb out or are absolute, links, devices,
FIFOs, duplicates, long and pax names, lying pax sizes, zero-filled bombs, a manifest declaring
less than the members hold) with a few benign ones, then maybe damages the compressed stream
(truncated, bytes flipped, garbage, frames glued on). Where a name or link points outside, it
points into the case's own `outside/` folder, never at a real system file.

Clean: a DistributionError with a one-line message, and nothing left at the destination.
Accepted: unpack returned, and everything under the destination is a plain file or folder inside
it. Failure: any other exception, anything written outside the destination, or a hang.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import shutil
import stat
import tarfile
from pathlib import Path
from typing import Any

from benchmarks.fuzzing.core import Verdict, case_rng, clip, describe, one_line_error, tree

CLASS = "archive"
DEFAULT_CASES = 200
TIMEOUT_S = 60.0
MiB = 1024**2
TOP = "atlas-bundle"
OUT = "{OUT}"  # the case's outside/ folder, filled in where the archive is written
DEPTH = 5  # the destination sits this many folders below the case folder
# An honest bundle compresses a few times; the unpacker's own limit is tighter than this. Past
# it, a small archive bought a large unpack (a zstd bomb got through).
BOMB_RATIO = 1000
BOMB_ALLOWANCE = 16 * MiB
CLIMBS = ["../", "../../", "../../../", "../" * DEPTH]


def _escape_name(rng: random.Random) -> str:
    climb = rng.choice(CLIMBS)
    return rng.choice(
        [
            f"{climb}pwn-{rng.randrange(100)}",
            f"{TOP}/{climb}{climb}pwn",
            f"./{climb}pwn",
            f"{TOP}/sub/{'../' * (DEPTH + 2)}pwn",
            f"{OUT}/pwn-abs",
            f"/{OUT}/pwn-abs2",
            f"{TOP}\\..\\..\\pwn",
            "..\\..\\pwn",
            f"{TOP}/a\x00/../../pwn",
            f"{TOP}/..",
            "..",
            ".",
            "",
            f"{TOP}//{OUT}/x",
        ]
    )


def _odd_name(rng: random.Random) -> str:
    return rng.choice(
        [
            f"{TOP}/" + "d" * rng.randrange(100, 300) + "/page.md",
            f"{TOP}/" + "/".join(["deep"] * rng.randrange(50, 400)) + "/page.md",
            f"{TOP}/" + "n" * rng.randrange(256, 5000),
            f"{TOP}/caf\u00e9-\u2603.md",
            f"{TOP}/line\nbreak.md",
            f"{TOP}/tab\tname.md",
            f"{TOP}/\u202egnp.md",
            f"{TOP}/./././x.md",
            f"{TOP}/trailing/",
            f"{TOP}/CON",
        ]
    )


def _member(rng: random.Random) -> dict[str, Any]:
    """One hostile member (or a short run of them that only hurts together)."""
    kind = rng.choice(
        [
            "escape",
            "odd-name",
            "symlink",
            "symlink-then-write",
            "hardlink",
            "device",
            "fifo",
            "duplicate",
            "file-then-dir",
            "pax-path",
            "pax-size",
            "huge-pax",
            "bomb",
            "many-parts",
        ]
    )
    name = f"{TOP}/m{rng.randrange(1000)}.md"
    link_target = rng.choice([f"{OUT}/victim", OUT, "../" * rng.randrange(1, DEPTH + 3), "sub", ""])
    if kind == "escape":
        return {"kind": kind, "members": [{"type": "file", "name": _escape_name(rng), "size": 9}]}
    if kind == "odd-name":
        return {"kind": kind, "members": [{"type": "file", "name": _odd_name(rng), "size": 5}]}
    if kind == "symlink":
        return {"kind": kind, "members": [{"type": "symlink", "name": name, "link": link_target}]}
    if kind == "symlink-then-write":
        return {
            "kind": kind,
            "members": [
                {"type": "symlink", "name": f"{TOP}/door", "link": link_target},
                {"type": "file", "name": f"{TOP}/door/pwn", "size": 7},
            ],
        }
    if kind == "hardlink":
        return {
            "kind": kind,
            "members": [
                {
                    "type": "hardlink",
                    "name": name,
                    "link": rng.choice([f"{OUT}/victim", f"{TOP}/a.md"]),
                }
            ],
        }
    if kind == "device":
        return {"kind": kind, "members": [{"type": rng.choice(["chr", "blk"]), "name": name}]}
    if kind == "fifo":
        return {"kind": kind, "members": [{"type": "fifo", "name": name}]}
    if kind == "duplicate":
        return {
            "kind": kind,
            "members": [
                {"type": "file", "name": name, "size": 3},
                {"type": rng.choice(["file", "symlink"]), "name": name, "size": 4, "link": OUT},
            ],
        }
    if kind == "file-then-dir":
        first, second = rng.sample(["file", "dir"], 2)
        return {
            "kind": kind,
            "members": [
                {"type": first, "name": name, "size": 3},
                {"type": second, "name": name, "size": 3},
                {"type": "file", "name": f"{name}/inner.md", "size": 3},
            ],
        }
    if kind == "pax-path":
        return {
            "kind": kind,
            "members": [
                {"type": "file", "name": name, "size": 5, "pax": {"path": _escape_name(rng)}}
            ],
        }
    if kind == "pax-size":
        lie = rng.choice([0, 1, 10**6, 10**12, -1])
        return {
            "kind": kind,
            "members": [{"type": "file", "name": name, "size": 600, "pax": {"size": str(lie)}}],
        }
    if kind == "huge-pax":
        return {
            "kind": kind,
            "members": [
                {
                    "type": "file",
                    "name": name,
                    "size": 5,
                    "pax": {"comment": "x" * rng.randrange(MiB // 2, 4 * MiB)},
                }
            ],
        }
    if kind == "bomb":
        return {
            "kind": kind,
            "members": [
                {"type": "zeros", "name": f"{TOP}/bomb.bin", "size": rng.randrange(20, 400) * MiB}
            ],
        }
    parts = rng.randrange(20, 300)
    return {
        "kind": kind,
        "members": [
            {"type": "zeros", "name": f"{TOP}/part{i:04}.bin", "size": MiB} for i in range(parts)
        ],
    }


def _manifest(rng: random.Random, members: list[dict[str, Any]]) -> dict[str, Any]:
    """A manifest member declaring sizes for the files that follow: honest, smaller, or junk."""
    style = rng.choice(["honest", "honest", "smaller", "junk", "none-listed"])
    files: dict[str, Any] = {}
    for m in members:
        if m["type"] not in ("file", "zeros") or not m["name"].startswith(f"{TOP}/"):
            continue
        rel = m["name"][len(TOP) + 1 :]
        size = m.get("size", 0)
        if style == "smaller":
            size = rng.randrange(0, max(1, size))
        elif style == "junk":
            size = rng.choice([-1, "1000", 1.5, None, True, 10**30, [1]])
        if style != "none-listed":
            files[rel] = {"size": size, "sha256": "0" * 64}
    return {"type": "manifest", "name": f"{TOP}/manifest.json", "files": files}


def recipe(seed: int, index: int) -> dict[str, Any]:
    rng = case_rng(seed, CLASS, index)
    members: list[dict[str, Any]] = [
        {"type": "dir", "name": f"{TOP}/"},
        {"type": "file", "name": f"{TOP}/a.md", "size": rng.randrange(1, 4000)},
    ]
    kinds = []
    # A sixth of the cases hold only odd but harmless names: what a safe unpacker accepts.
    for _ in range(rng.choice([0, 1, 1, 1, 2, 3])):
        hostile = _member(rng)
        kinds.append(hostile["kind"])
        members += hostile["members"]
    if not kinds:
        kinds.append("harmless odd names")
        members += [{"type": "file", "name": _odd_name(rng), "size": 5} for _ in range(2)]
    if rng.random() < 0.5:
        manifest = _manifest(rng, members)
        members.insert(rng.choice([1, len(members)]), manifest)
        kinds.append("manifest-first" if members[1] is manifest else "manifest-last")
    stream = []
    if rng.random() < 0.3:
        stream.append(
            rng.choice(
                [
                    {"op": "truncate", "at": round(rng.random(), 3)},
                    {"op": "flip", "count": rng.randrange(1, 6)},
                    {"op": "append-garbage", "bytes": rng.randrange(1, 5000)},
                    {"op": "prepend-garbage", "bytes": rng.randrange(1, 64)},
                    {"op": "garbage", "bytes": rng.randrange(0, 20000)},
                    {"op": "not-a-tar", "bytes": rng.randrange(1, 20000)},
                    {"op": "skippable-frame"},
                    {"op": "second-archive"},
                ]
            )
        )
    fmt = rng.choice(["pax", "pax", "gnu"])
    label = f"{fmt} tar: {', '.join(kinds)}" + (f"; stream {stream[0]['op']}" if stream else "")
    return {
        "label": label,
        "format": fmt,
        "members": members,
        "stream": stream,
        "seed": rng.random(),
    }


# --- the case runner ----------------------------------------------------------------------------


class _Zeros(io.RawIOBase):
    """`size` zero bytes made as they are read, so a bomb costs no memory to write."""

    def __init__(self, size: int) -> None:
        self.left = size

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = min(len(buffer), self.left)
        buffer[:n] = bytes(n)
        self.left -= n
        return n


def write_archive(spec: dict[str, Any], path: Path, outside: Path) -> None:
    """The archive a recipe describes, at `path` (outside/ filled in for the placeholders)."""
    import zstandard

    fmt = tarfile.GNU_FORMAT if spec["format"] == "gnu" else tarfile.PAX_FORMAT
    with (
        path.open("wb") as raw,
        zstandard.ZstdCompressor(level=3).stream_writer(raw, closefd=False) as zfh,
        tarfile.open(fileobj=zfh, mode="w|", format=fmt) as tar,
    ):
        for member in spec["members"]:
            _add(tar, member, outside)
    _damage(path, spec["stream"], random.Random(spec["seed"]), outside)


def _add(tar: tarfile.TarFile, member: dict[str, Any], outside: Path) -> None:
    kind = member["type"]
    name = member["name"].replace(OUT, str(outside))
    info = tarfile.TarInfo(name)
    info.mtime = 1_700_000_000
    data: Any = None
    if kind == "file":
        body = (b"payload-" * (member["size"] // 8 + 1))[: member["size"]]
        info.size = len(body)
        data = io.BytesIO(body)
    elif kind == "zeros":
        info.size = member["size"]
        data = io.BufferedReader(_Zeros(member["size"]), 1024 * 1024)
    elif kind == "manifest":
        body = json.dumps(
            {"name": "fuzz", "format_version": "1.0", "files": member["files"]}
        ).encode()
        info.size = len(body)
        data = io.BytesIO(body)
    elif kind == "dir":
        info.type = tarfile.DIRTYPE
    elif kind == "symlink":
        info.type = tarfile.SYMTYPE
        info.linkname = member["link"].replace(OUT, str(outside))
    elif kind == "hardlink":
        info.type = tarfile.LNKTYPE
        info.linkname = member["link"].replace(OUT, str(outside))
    elif kind in ("chr", "blk"):
        info.type = tarfile.CHRTYPE if kind == "chr" else tarfile.BLKTYPE
        info.devmajor, info.devminor = 1, 5
    elif kind == "fifo":
        info.type = tarfile.FIFOTYPE
    pax = {k: v.replace(OUT, str(outside)) for k, v in member.get("pax", {}).items()}
    if pax:
        info.pax_headers = pax
    # A name this tar format cannot hold is left out; the case goes on with the members that fit.
    with contextlib.suppress(ValueError, UnicodeError):
        tar.addfile(info, data)


def _damage(path: Path, ops: list[dict[str, Any]], rng: random.Random, outside: Path) -> None:
    import zstandard

    data = bytearray(path.read_bytes())
    for op in ops:
        kind = op["op"]
        if kind == "truncate":
            data = data[: int(len(data) * op["at"])]
        elif kind == "flip":
            for _ in range(op["count"]):
                if data:
                    data[rng.randrange(len(data))] ^= rng.randrange(1, 256)
        elif kind == "append-garbage":
            data += rng.randbytes(op["bytes"])
        elif kind == "prepend-garbage":
            data[:0] = rng.randbytes(op["bytes"])
        elif kind == "garbage":
            data = bytearray(rng.randbytes(op["bytes"]))
        elif kind == "not-a-tar":
            data = bytearray(zstandard.ZstdCompressor().compress(rng.randbytes(op["bytes"])))
        elif kind == "skippable-frame":
            skip = rng.randbytes(rng.randrange(0, 4096))
            data[:0] = b"\x50\x2a\x4d\x18" + len(skip).to_bytes(4, "little") + skip
        elif kind == "second-archive":
            extra = io.BytesIO()
            with tarfile.open(fileobj=extra, mode="w") as tar:
                info = tarfile.TarInfo(f"{outside}/second".lstrip("/"))
                info.size = 3
                tar.addfile(info, io.BytesIO(b"two"))
            data += zstandard.ZstdCompressor().compress(extra.getvalue())
    path.write_bytes(bytes(data))


def check_unpacked(dest: Path, root: Path, archive_size: int) -> str | None:
    """Why an accepted unpack is unsafe (a link, a special file, a shared inode, far more bytes
    than the archive can honestly hold, files larger than its manifest declares), or None."""
    base = dest.resolve()
    if not root.resolve().is_relative_to(base):
        return f"unpack returned {root}, outside {dest}"
    written = sum(p.stat().st_size for p in dest.rglob("*") if p.is_file() and not p.is_symlink())
    if written > max(BOMB_ALLOWANCE, archive_size * BOMB_RATIO):
        return f"a {archive_size}-byte archive unpacked {written} bytes"
    if problem := _beyond_manifest(root):
        return problem
    for dirpath, dirnames, filenames in os.walk(dest):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                return f"left a symbolic link {path.relative_to(dest)}"
            if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
                return f"left a special file {path.relative_to(dest)}"
            if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
                return f"left a hard link {path.relative_to(dest)}"
            if not path.resolve().is_relative_to(base):
                return f"{path.relative_to(dest)} resolves outside"
    return None


def _beyond_manifest(root: Path) -> str | None:
    """A file larger than the size the unpacked manifest declares for it, or None."""
    try:
        files = json.loads((root / "manifest.json").read_bytes()).get("files")
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(files, dict):
        return None
    for rel, entry in files.items():
        declared = entry.get("size") if isinstance(entry, dict) else None
        path = root / str(rel)
        if (
            type(declared) is int
            and declared >= 0
            and path.is_file()
            and path.stat().st_size > declared
        ):
            return f"{rel} is {path.stat().st_size} bytes but the manifest declares {declared}"
    return None


class Target:
    def __init__(self, setup: dict[str, Any]) -> None:
        self.workdir = Path(setup["workdir"])

    def run(self, spec: dict[str, Any]) -> Verdict:
        from atlas_core.distribution.archive import unpack
        from atlas_core.errors import DistributionError

        case = self.workdir / "case"
        shutil.rmtree(case, ignore_errors=True)
        outside = case / "outside"
        outside.mkdir(parents=True)
        (outside / "victim").write_text("victim\n")
        dest = case.joinpath(*[f"l{i}" for i in range(DEPTH)], "dest")
        dest.parent.mkdir(parents=True)
        archive = case / "bundle.tar.zst"
        write_archive(spec, archive, outside)
        before = tree(case)
        try:
            root = unpack(archive, dest)
        except DistributionError as exc:
            verdict = Verdict.refused(exc.message)
            if why := one_line_error(exc):
                verdict = Verdict.failure(f"refused with {why}")
            elif dest.exists():
                verdict = Verdict.failure(
                    f"refused ({clip(exc.message, 120)}) but left {dest.name}/"
                )
        except Exception as exc:
            verdict = Verdict.failure(describe(exc))
        else:
            problem = check_unpacked(dest, root, archive.stat().st_size)
            verdict = Verdict.failure(problem) if problem else Verdict.accepted()
        written = tree(case, skip=dest) - before
        if written:
            verdict = Verdict.failure(f"wrote outside the destination: {sorted(written)[:3]}")
        if (outside / "victim").read_text() != "victim\n":
            verdict = Verdict.failure("changed a file outside through a link")
        shutil.rmtree(case, ignore_errors=True)
        return verdict
