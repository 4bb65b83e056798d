"""A minimal reader for ONNX model files: nodes, graph inputs/outputs and initializers as numpy.

The MLX backend needs the encoder's weights but not ONNX Runtime, and the ``onnx`` package is a
heavy build-time dependency. An ONNX file is a protobuf ``ModelProto``; the handful of fields read
here (from onnx/onnx.proto, stable since IR version 3) are decoded directly. Tensors stored as
``raw_data`` (what every exporter writes for weights) become zero-copy numpy views of the file.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from atlas_core.errors import ModelError

# TensorProto.DataType -> numpy dtype
_DTYPES: dict[int, Any] = {
    1: np.float32,
    2: np.uint8,
    3: np.int8,
    4: np.uint16,
    5: np.int16,
    6: np.int32,
    7: np.int64,
    9: np.bool_,
    10: np.float16,
    11: np.float64,
    12: np.uint32,
    13: np.uint64,
}


@dataclass(slots=True)
class Node:
    op_type: str
    inputs: list[str]
    outputs: list[str]
    name: str = ""
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class Graph:
    nodes: list[Node]
    initializers: dict[str, np.ndarray]
    inputs: list[str]
    outputs: list[str]


class _Malformed(Exception):
    pass


def _varint(buf: memoryview, pos: int) -> tuple[int, int]:
    result = 0
    shift = 0
    while True:
        if pos >= len(buf):
            raise _Malformed("truncated varint")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise _Malformed("varint too long")


def _fields(buf: memoryview) -> Iterator[tuple[int, int, int | memoryview]]:
    """Yield (field number, wire type, value); value is an int (varint) or a memoryview slice."""
    pos = 0
    end = len(buf)
    while pos < end:
        key, pos = _varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(buf, pos)
        elif wire == 1:
            if pos + 8 > end:
                raise _Malformed("truncated fixed64")
            value = buf[pos : pos + 8]
            pos += 8
        elif wire == 2:
            length, pos = _varint(buf, pos)
            if pos + length > end:
                raise _Malformed("truncated length-delimited field")
            value = buf[pos : pos + length]
            pos += length
        elif wire == 5:
            if pos + 4 > end:
                raise _Malformed("truncated fixed32")
            value = buf[pos : pos + 4]
            pos += 4
        else:
            raise _Malformed(f"unsupported wire type {wire}")
        yield number, wire, value


def _length_delimited(buf: memoryview) -> Iterator[tuple[int, memoryview]]:
    """The sub-messages, strings and packed arrays of ``buf``, skipping scalar fields."""
    for number, wire, value in _fields(buf):
        if wire == 2 and isinstance(value, memoryview):
            yield number, value


def _as_bytes(number: int, value: int | memoryview) -> memoryview:
    # A field the schema declares as a string, message or fixed-width number, sent as a varint.
    if isinstance(value, int):
        raise _Malformed(f"field {number} is a varint where bytes were expected")
    return value


def _as_int(number: int, value: int | memoryview) -> int:
    if not isinstance(value, int):
        raise _Malformed(f"field {number} is bytes where a varint was expected")
    return value


def _packed_varints(value: int | memoryview) -> list[int]:
    """A repeated integer field: one varint, or a packed run of them."""
    if isinstance(value, int):
        return [value]
    out = []
    pos = 0
    while pos < len(value):
        item, pos = _varint(value, pos)
        out.append(item)
    return out


def _signed64(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _text(value: memoryview) -> str:
    return bytes(value).decode("utf-8")


def _tensor(buf: memoryview) -> tuple[str, np.ndarray]:
    dims: list[int] = []
    dtype_code = 0
    name = ""
    raw: memoryview | None = None
    floats: list[float] = []
    ints: list[int] = []
    external = False
    for number, _wire, value in _fields(buf):
        if number == 1:
            dims.extend(_signed64(v) for v in _packed_varints(value))
        elif number == 2:
            dtype_code = _as_int(number, value)
        elif number == 4:  # float_data
            data = bytes(_as_bytes(number, value))
            floats.extend(struct.unpack(f"<{len(data) // 4}f", data))
        elif number in (5, 7, 11):  # int32_data, int64_data, uint64_data
            ints.extend(_signed64(v) for v in _packed_varints(value))
        elif number == 8:
            name = _text(_as_bytes(number, value))
        elif number == 9:
            raw = _as_bytes(number, value)
        elif number == 10:  # double_data
            data = bytes(_as_bytes(number, value))
            floats.extend(struct.unpack(f"<{len(data) // 8}d", data))
        elif number == 14 and value == 1:
            external = True
    if external:
        raise _Malformed(f"tensor {name!r} keeps its data in an external file")
    dtype = _DTYPES.get(dtype_code)
    if dtype is None:
        raise _Malformed(f"tensor {name!r} has unsupported data type {dtype_code}")
    if raw is not None:
        array = np.frombuffer(raw, dtype=np.dtype(dtype).newbyteorder("<"))
    elif floats:
        array = np.asarray(floats, dtype=dtype)
    elif dtype == np.float16:  # float16 is stored as its bit pattern in int32_data
        array = np.asarray(ints, dtype=np.uint16).view(np.float16)
    else:
        array = np.asarray(ints).astype(dtype)
    return name, array.reshape(dims)


def _attribute(buf: memoryview) -> tuple[str, Any]:
    name = ""
    found: Any = None
    floats: list[float] = []
    ints: list[int] = []
    for number, wire, value in _fields(buf):
        if number == 1:
            name = _text(_as_bytes(number, value))
        elif number == 2:
            found = struct.unpack("<f", bytes(_as_bytes(number, value)))[0]
        elif number == 3:
            found = _signed64(_as_int(number, value))
        elif number == 4:
            found = bytes(_as_bytes(number, value))
        elif number == 5:
            found = _tensor(_as_bytes(number, value))[1]
        elif number == 7:
            data = bytes(_as_bytes(number, value))
            if wire == 5:
                floats.append(struct.unpack("<f", data)[0])
            else:
                floats.extend(struct.unpack(f"<{len(data) // 4}f", data))
        elif number == 8:
            ints.extend(_signed64(v) for v in _packed_varints(value))
    if found is None:
        found = floats or ints
    return name, found


def _node(buf: memoryview) -> Node:
    node = Node(op_type="", inputs=[], outputs=[])
    for number, _wire, value in _fields(buf):
        if number == 1:
            node.inputs.append(_text(_as_bytes(number, value)))
        elif number == 2:
            node.outputs.append(_text(_as_bytes(number, value)))
        elif number == 3:
            node.name = _text(_as_bytes(number, value))
        elif number == 4:
            node.op_type = _text(_as_bytes(number, value))
        elif number == 5:
            key, attr = _attribute(_as_bytes(number, value))
            node.attributes[key] = attr
    return node


def _value_info_name(buf: memoryview) -> str:
    for number, _wire, value in _fields(buf):
        if number == 1:
            return _text(_as_bytes(number, value))
    return ""


def read_graph(path: Path) -> Graph:
    """Parse ``path``; any structural problem is a ModelError naming the file."""
    try:
        data = memoryview(path.read_bytes())
    except OSError as exc:
        raise ModelError(f"cannot read {path}: {exc}", path=str(path)) from exc
    try:
        graph_buf = None
        for number, value in _length_delimited(data):
            if number == 7:
                graph_buf = value
        if graph_buf is None:
            raise _Malformed("no graph")
        graph = Graph(nodes=[], initializers={}, inputs=[], outputs=[])
        for number, value in _length_delimited(graph_buf):
            if number == 1:
                graph.nodes.append(_node(value))
            elif number == 5:
                name, array = _tensor(value)
                graph.initializers[name] = array
            elif number == 11:
                graph.inputs.append(_value_info_name(value))
            elif number == 12:
                graph.outputs.append(_value_info_name(value))
    except (_Malformed, UnicodeDecodeError, ValueError, struct.error) as exc:
        raise ModelError(
            f"{path} is not a readable ONNX model: {exc}",
            hint="copy or export model.onnx again",
            path=str(path),
        ) from exc
    # Initializers may also be listed as graph inputs (older exporters); they are not fed.
    graph.inputs = [name for name in graph.inputs if name not in graph.initializers]
    return graph
