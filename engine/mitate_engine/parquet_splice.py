"""A new Parquet file from the encoded column chunks of other Parquet files, without decoding them (issue 20).

A pre-processing condition that keeps every row in place changes a few columns; the other columns of the new
dataset are the source's, value for value. Instead of decoding and encoding those again, their column chunks
(compressed pages, statistics and all) are copied byte for byte from the source file beside the freshly encoded
chunks of the changed columns, row group by row group, and a new footer describes the result. Readers see an
ordinary Parquet file.

The footer is Thrift's compact protocol; `decode`/`encode` below read and write it generically (field id →
(type, value)), so fields this module does not know pass through unchanged. Only what moves is rewritten: chunk
offsets, the row groups' sizes and the schema. Page indexes, bloom filters and sorting columns of the inputs are
left out (they are optional; their positions or column numbers would no longer hold).

`splice` refuses (SpliceUnsupported) a layout it cannot vouch for — nested or encrypted columns, a chunk stored in
another file, row groups that do not line up, or a chunk whose byte range is not exactly a run of pages — and
the caller then writes the table the ordinary way.
"""

from __future__ import annotations

import io
import mmap
import os
import struct
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

MAGIC = b"PAR1"

# Thrift compact protocol types
BOOL_TRUE, BOOL_FALSE, BYTE, I16, I32, I64, DOUBLE, BINARY, LIST, SET, MAP, STRUCT = range(1, 13)


class SpliceUnsupported(Exception):
    """The inputs' layout is not one this module copies safely; write the table the ordinary way instead."""


# ---- Thrift compact protocol ---------------------------------------------------------------------


def _varint(buf, pos: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift > 70:
            raise SpliceUnsupported("malformed varint")


def _zigzag(n: int) -> int:
    return (n >> 1) ^ -(n & 1)


def _value(buf, pos: int, t: int):
    if t in (BOOL_TRUE, BOOL_FALSE):  # inside a collection: one byte
        return buf[pos], pos + 1
    if t == BYTE:
        return buf[pos], pos + 1
    if t in (I16, I32, I64):
        v, pos = _varint(buf, pos)
        return _zigzag(v), pos
    if t == DOUBLE:
        return bytes(buf[pos : pos + 8]), pos + 8
    if t == BINARY:
        n, pos = _varint(buf, pos)
        return bytes(buf[pos : pos + n]), pos + n
    if t in (LIST, SET):
        head = buf[pos]
        pos += 1
        n, et = head >> 4, head & 0x0F
        if n == 15:
            n, pos = _varint(buf, pos)
        items = []
        for _ in range(n):
            v, pos = _value(buf, pos, et)
            items.append(v)
        return (et, items), pos
    if t == MAP:
        n, pos = _varint(buf, pos)
        if n == 0:
            return (0, 0, []), pos
        kv = buf[pos]
        pos += 1
        kt, vt = kv >> 4, kv & 0x0F
        pairs = []
        for _ in range(n):
            k, pos = _value(buf, pos, kt)
            v, pos = _value(buf, pos, vt)
            pairs.append((k, v))
        return (kt, vt, pairs), pos
    if t == STRUCT:
        return decode(buf, pos)
    raise SpliceUnsupported(f"unknown Thrift type {t}")


def decode(buf, pos: int = 0) -> tuple[dict[int, tuple[int, object]], int]:
    """One struct at `pos`: ({field id: (type, value)}, the position after it). Booleans are (BOOL_TRUE|FALSE, None)."""
    fields: dict[int, tuple[int, object]] = {}
    last = 0
    while True:
        head = buf[pos]
        pos += 1
        if head == 0:
            return fields, pos
        t, delta = head & 0x0F, head >> 4
        if delta:
            fid = last + delta
        else:
            v, pos = _varint(buf, pos)
            fid = _zigzag(v)
        last = fid
        if t in (BOOL_TRUE, BOOL_FALSE):
            fields[fid] = (t, None)
        else:
            val, pos = _value(buf, pos, t)
            fields[fid] = (t, val)


def _put_varint(out: bytearray, n: int) -> None:
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


def _put_int(out: bytearray, n: int) -> None:
    _put_varint(out, (n << 1) ^ (n >> 63))


def _put_value(out: bytearray, t: int, v) -> None:
    if t in (BOOL_TRUE, BOOL_FALSE, BYTE):
        out.append(v & 0xFF)
    elif t in (I16, I32, I64):
        _put_int(out, v)
    elif t == DOUBLE:
        out += v
    elif t == BINARY:
        _put_varint(out, len(v))
        out += v
    elif t in (LIST, SET):
        et, items = v
        if len(items) < 15:
            out.append((len(items) << 4) | et)
        else:
            out.append(0xF0 | et)
            _put_varint(out, len(items))
        for item in items:
            _put_value(out, et, item)
    elif t == MAP:
        kt, vt, pairs = v
        _put_varint(out, len(pairs))
        if pairs:
            out.append((kt << 4) | vt)
            for k, val in pairs:
                _put_value(out, kt, k)
                _put_value(out, vt, val)
    elif t == STRUCT:
        encode(v, out)
    else:
        raise SpliceUnsupported(f"unknown Thrift type {t}")


def encode(fields: dict[int, tuple[int, object]], out: bytearray | None = None) -> bytearray:
    """The struct's bytes (fields in id order), appended to `out`."""
    out = bytearray() if out is None else out
    last = 0
    for fid in sorted(fields):
        t, v = fields[fid]
        if 0 < fid - last <= 15:
            out.append(((fid - last) << 4) | t)
        else:
            out.append(t)
            _put_int(out, fid)
        last = fid
        if t not in (BOOL_TRUE, BOOL_FALSE):
            _put_value(out, t, v)
    out.append(0)
    return out


# ---- Parquet footers -----------------------------------------------------------------------------


def read_footer(buf) -> tuple[dict, int]:
    """(FileMetaData, where it starts) of a whole Parquet file given as bytes or an mmap."""
    size = len(buf)
    if size < 12 or bytes(buf[:4]) != MAGIC or bytes(buf[size - 4 :]) != MAGIC:
        raise SpliceUnsupported("not a plain Parquet file (or an encrypted one)")
    length = struct.unpack("<I", buf[size - 8 : size - 4])[0]
    start = size - 8 - length
    if start < 4:
        raise SpliceUnsupported("footer length out of range")
    meta, end = decode(buf, start)
    if end != size - 8:
        raise SpliceUnsupported("footer does not end where its length says")
    return meta, start


def _get(s: dict, fid: int, default=None):
    f = s.get(fid)
    return default if f is None else f[1]


@dataclass
class _Chunk:
    """One column chunk of one input: its ColumnChunk struct and the byte range of its pages."""

    buf: object
    fd: int
    meta: dict
    start: int
    size: int


def _chunks(buf, fd: int, meta: dict, data_end: int) -> tuple[list[str], list[int], list[dict[str, _Chunk]], dict[str, dict]]:
    """Column names, rows per row group, each row group's chunks by column, and each column's SchemaElement;
    SpliceUnsupported unless the schema is flat and every chunk's bytes are exactly its run of pages."""
    if 8 in meta or 9 in meta:
        raise SpliceUnsupported("encrypted footer")
    schema = [s for s in _get(meta, 2, (STRUCT, []))[1]]
    if not schema or _get(schema[0], 5, 0) != len(schema) - 1 or any(5 in s for s in schema[1:]):
        raise SpliceUnsupported("nested schema")
    names = [_get(s, 4).decode("utf-8") for s in schema[1:]]
    if len(set(names)) != len(names):
        raise SpliceUnsupported("duplicate column names")
    elements = dict(zip(names, schema[1:], strict=True))
    sizes: list[int] = []
    groups: list[dict[str, _Chunk]] = []
    for rg in _get(meta, 4, (STRUCT, []))[1]:
        cols = _get(rg, 1, (STRUCT, []))[1]
        if len(cols) != len(names):
            raise SpliceUnsupported("row group column count differs from the schema")
        chunks = {}
        for name, cc in zip(names, cols, strict=True):
            if 1 in cc or 8 in cc or 9 in cc or 3 not in cc:
                raise SpliceUnsupported("column chunk kept in another file or encrypted")
            md = cc[3][1]
            if [p.decode("utf-8") for p in _get(md, 3)[1]] != [name]:
                raise SpliceUnsupported("column chunk path differs from the schema")
            offsets = [o for o in (_get(md, 9), _get(md, 11), _get(md, 10)) if o is not None and o >= 4]
            if not offsets:
                raise SpliceUnsupported("column chunk without a page offset")
            start, size = min(offsets), _get(md, 7)
            if size is None or size <= 0 or start + size > data_end:
                raise SpliceUnsupported("column chunk out of range")
            _check_pages(buf, start, size)
            chunks[name] = _Chunk(buf, fd, cc, start, size)
        groups.append(chunks)
        sizes.append(_get(rg, 3))
    return names, sizes, groups, elements


def _check_pages(buf, start: int, size: int) -> None:
    """The range holds whole pages, back to back, and nothing else."""
    pos, end = start, start + size
    while pos < end:
        header, after = decode(buf, pos)
        page = _get(header, 3)
        if page is None or page < 0 or _get(header, 1) not in (0, 1, 2, 3):
            raise SpliceUnsupported("not a page header")
        pos = after + page
    if pos != end:
        raise SpliceUnsupported("column chunk size does not match its pages")


def _copy(src_fd: int, dst_fd: int, offset: int, count: int) -> None:
    while count > 0:
        try:
            n = os.copy_file_range(src_fd, dst_fd, count, offset)
        except OSError:
            n = 0
        if n <= 0:  # across file systems on older kernels: copy through user space
            data = os.pread(src_fd, min(count, 1 << 24), offset)
            if not data:
                raise SpliceUnsupported("input ended early")
            n = os.write(dst_fd, data)
        offset += n
        count -= n


def _shifted(cc: dict, delta: int) -> dict:
    """The ColumnChunk moved by `delta` bytes: page offsets shifted; page indexes and bloom filters left out."""
    md = dict(cc[3][1])
    for fid in (9, 10, 11):
        if fid in md and md[fid][1] is not None and md[fid][1] >= 4:
            md[fid] = (md[fid][0], md[fid][1] + delta)
    for fid in (14, 15):
        md.pop(fid, None)
    out = {fid: v for fid, v in cc.items() if fid not in (4, 5, 6, 7)}
    out[3] = (STRUCT, md)
    if 2 in out and out[2][1]:
        out[2] = (I64, out[2][1] + delta)
    return out


def arrow_schema_metadata(schema: pa.Schema) -> list[dict]:
    """The key-value metadata (ARROW:schema) the Arrow writer stores for `schema`, as Thrift KeyValue structs."""
    sink = io.BytesIO()
    pq.write_table(schema.empty_table(), sink)
    meta, _ = read_footer(sink.getvalue())
    return list(_get(meta, 5, (STRUCT, []))[1])


def splice(columns: list[str], sources: list[Path], out: Path, schema: pa.Schema) -> None:
    """Writes `out` with `columns` in this order, each taken from the first file in `sources` that has it. The
    files must hold the same rows in the same row groups; `schema` is the Arrow schema readers should see (stored
    as ARROW:schema, as the Arrow writer does)."""
    opened = []
    try:
        inputs = []
        for p in sources:
            fd = os.open(p, os.O_RDONLY)
            opened.append(fd)
            buf = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
            opened.append(buf)
            meta, footer_at = read_footer(buf)
            inputs.append((meta, *_chunks(buf, fd, meta, footer_at)))
        owner = {}
        for meta, names, sizes, groups, elements in inputs:
            for c in names:
                owner.setdefault(c, (meta, sizes, groups, elements))
        if any(c not in owner for c in columns):
            raise SpliceUnsupported("a column is in none of the inputs")
        sizes = inputs[0][2]
        if any(s != sizes for _, _, s, _, _ in inputs):
            raise SpliceUnsupported("the inputs' row groups do not line up")
        first = inputs[0][0]

        fd_out = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        opened.append(fd_out)
        os.write(fd_out, MAGIC)
        pos = len(MAGIC)
        row_groups = []
        for i, rows in enumerate(sizes):
            chunk_structs = []
            total_uncompressed = total_compressed = 0
            group_start = pos
            for c in columns:
                ch = owner[c][2][i][c]
                _copy(ch.fd, fd_out, ch.start, ch.size)
                chunk_structs.append(_shifted(ch.meta, pos - ch.start))
                pos += ch.size
                total_uncompressed += _get(ch.meta[3][1], 6, 0)
                total_compressed += ch.size
            row_groups.append(
                {
                    1: (LIST, (STRUCT, chunk_structs)),
                    2: (I64, total_uncompressed),
                    3: (I64, rows),
                    5: (I64, group_start),
                    6: (I64, total_compressed),
                    7: (I16, i),
                }
            )
        root = dict(_get(first, 2)[1][0])
        root[5] = (I32, len(columns))
        footer = {
            1: (I32, max(_get(m, 1, 1) for m, *_ in inputs)),
            2: (LIST, (STRUCT, [root] + [owner[c][3][c] for c in columns])),
            3: (I64, _get(first, 3)),
            4: (LIST, (STRUCT, row_groups)),
            5: (LIST, (STRUCT, arrow_schema_metadata(schema))),
            6: (BINARY, _get(inputs[-1][0], 6, b"mitate")),
        }
        orders: dict[str, dict] = {}
        for meta, names, *_ in inputs:
            if 7 in meta:
                orders.update({n: o for n, o in zip(names, meta[7][1][1], strict=False) if n not in orders})
        if all(c in orders for c in columns):
            footer[7] = (LIST, (STRUCT, [orders[c] for c in columns]))
        data = bytes(encode(footer))
        if os.lseek(fd_out, 0, os.SEEK_CUR) != pos:
            raise SpliceUnsupported("output position differs from the bytes copied")
        tail = memoryview(data + struct.pack("<I", len(data)) + MAGIC)
        while tail:
            tail = tail[os.write(fd_out, tail) :]
    finally:
        for o in reversed(opened):
            if isinstance(o, mmap.mmap):
                o.close()
            else:
                os.close(o)
