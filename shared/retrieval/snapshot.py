"""The search snapshot as bytes, so a cold instance loads it instead of reading every chunk.

Two sides: the lexical index and, when the instance had them, the chunks' compressed
vectors (``dense.DenseIndex``: per embedder its packed 4-bit codes, scales, and each
row's page, as a row of the lexical page table, and ordinal).

The payload is the index's packed form (``lexical.Packed``): the page table and the
heading table as columns of text joined by a separator (JSON when a value holds one),
every per-chunk column and the postings as arrays. No chunk text: the index does not hold
it. Loading tokenizes nothing and builds no object per chunk. An ``.npz`` container, read
with ``allow_pickle=False``. Pure: where the bytes are kept is the store's business.

The bytes come back from a store that anyone with write access to it (or a torn write)
may have damaged, so ``decode`` trusts nothing in them: whatever is wrong (structure,
types, sizes) reads as no snapshot, and nothing is inflated or allocated past what the
archive declares, which is itself bounded by the payload's size (``MAX_INFLATION``).
"""

from __future__ import annotations

import io
import json
import math
import struct
import zipfile
import zlib
from dataclasses import dataclass
from typing import Any, Literal, NotRequired, TypedDict, cast, get_args

import numpy as np
import numpy.typing as npt

from shared.retrieval.dense import CODE_DIMS, SCAN_ROWS, Block, DenseIndex, quantize, width
from shared.retrieval.lexical import LexicalIndex, Packed, PageFields

# 7: 4-bit codes; 6: the dense side as int8 codes; 5: tokens folded by shared.text.fold
FORMAT = 7
_READ = (5, 6, 7)  # format 5 is read as lexical only (the store's vector search answers)
_INT8 = 6  # int8 codes, re-coded on reading: a snapshot stored before 4-bit codes still serves
_DENSE = ("codes", "scales", "page", "ordinal")  # arrays of one embedder's rows, as dense<i>_…
_ROW, _TAG = "\x00", "\x1f"  # between rows of a column, between the tags of one row
_ARRAYS = {
    "page_of": np.int32,
    "ordinal": np.int32,
    "heading": np.int32,
    "chars": np.int32,
    "digest": np.uint32,
    "lengths": np.float32,
    "offsets": np.int64,
    "docs": np.int32,
    "tf": np.uint16,
}


Column = Literal["slug", "title", "page_type", "category", "tags", "headings", "vocabulary"]


class _Counts(TypedDict):
    pages: int
    headings: int


class _Meta(TypedDict):
    """The payload's ``meta`` member: its format and table sizes, the embedders of its
    dense side, and each text column that goes as JSON (a separator inside a value)."""

    format: int
    tags: NotRequired[list[list[str]]]  # as lists, when a tag holds the tag separator
    slug: NotRequired[list[str]]
    title: NotRequired[list[str]]
    page_type: NotRequired[list[str]]
    category: NotRequired[list[str]]
    headings: NotRequired[list[str]]
    vocabulary: NotRequired[list[str]]
    counts: NotRequired[_Counts]  # always written; checked when read
    dense: NotRequired[list[str]]


@dataclass(frozen=True, slots=True)
class Decoded:
    """What a payload holds: the lexical index and the dense side (None: it had none)."""

    index: LexicalIndex
    dense: DenseIndex | None


def encode(index: LexicalIndex, dense: DenseIndex | None = None) -> bytes:
    """The payload of ``index`` and, if given, ``dense`` (whose pages must be the index's)."""
    packed = index.packed()
    pages = packed.pages
    texts: dict[Column, list[str]] = {
        "slug": [p.slug for p in pages],
        "title": [p.title for p in pages],
        "page_type": [p.page_type or "" for p in pages],
        "category": [p.category or "" for p in pages],
        "tags": [_TAG.join(p.tags) for p in pages],
        "headings": packed.headings,
        "vocabulary": packed.vocabulary,
    }
    meta: _Meta = {"format": FORMAT}
    if any(_TAG in t for p in pages for t in p.tags):
        meta["tags"] = [list(p.tags) for p in pages]
        texts["tags"] = []
    named: dict[str, npt.NDArray[Any]] = {}
    for name, values in texts.items():
        if any(_ROW in v for v in values):
            meta[name] = values  # a separator inside a value: this column goes as JSON
        else:
            named[name] = _bytes(_ROW.join(values).encode())
    meta["counts"] = {"pages": len(pages), "headings": len(packed.headings)}
    named["meta"] = _bytes(json.dumps(meta).encode())
    named["nulls"] = np.array([[p.page_type is None, p.category is None] for p in pages], bool)
    for array, dtype in _ARRAYS.items():
        named[array] = np.asarray(getattr(packed, array), dtype=dtype)
    codes: dict[str, npt.NDArray[Any]] = {}
    if dense is not None:
        meta["dense"] = _dense_arrays(
            dense.packed(), {p.slug: i for i, p in enumerate(pages)}, named
        )
        named["meta"] = _bytes(json.dumps(meta).encode())
        codes = {k: named.pop(k) for k in list(named) if k.endswith("_codes")}
    out = io.BytesIO()
    np.savez_compressed(out, allow_pickle=False, **named)  # no object arrays: none written
    # The codes (most of a large payload, and they barely deflate) go uncompressed, so a
    # reader uses them where they lie in the payload instead of inflating a second copy.
    with zipfile.ZipFile(out, "a", compression=zipfile.ZIP_STORED) as archive:
        for stored, code_array in codes.items():
            with archive.open(f"{stored}.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(
                    member, np.ascontiguousarray(code_array), allow_pickle=False
                )
    return out.getvalue()


def _dense_arrays(
    dense: DenseIndex, page_ids: dict[str, int], named: dict[str, npt.NDArray[Any]]
) -> list[str]:
    """Put ``dense``'s blocks (one per embedder, packed) into ``named``; the embedders."""
    rows_page = np.array([page_ids.get(p.slug, -1) for p in dense.pages] + [-1], dtype=np.int32)
    embedders = []
    for i, (embedder, blocks) in enumerate(sorted(dense.blocks.items())):
        (block,) = blocks
        page = rows_page[block.page_of]
        known = page >= 0  # a page the lexical side lacks has no row to filter by: left out
        named[f"dense{i}_codes"] = block.codes[known]
        named[f"dense{i}_scales"] = block.scales[known]
        named[f"dense{i}_page"] = page[known]
        named[f"dense{i}_ordinal"] = block.ordinal[known]
        embedders.append(embedder)
    return embedders


def _bytes(data: bytes) -> np.ndarray[Any, np.dtype[np.uint8]]:
    return np.frombuffer(data, dtype=np.uint8)


# What the archive's members may add up to, inflated, per byte of payload. An honest
# snapshot inflates under 4x (its postings and columns are already dense; measured on
# the three corpora: 3.8x, 3.7x, 0.7x); deflate can reach ~1,000x, which is what a bomb uses.
MAX_INFLATION = 64
_COLUMNS: tuple[Column, ...] = get_args(Column)


def decode(payload: bytes | bytearray) -> LexicalIndex | None:
    """The lexical index the payload holds; None for a payload of another format or damaged."""
    decoded = decode_all(payload)
    return None if decoded is None else decoded.index


def decode_all(payload: bytes | bytearray) -> Decoded | None:
    """Both sides the payload holds; None for a payload of another format or damaged."""
    try:
        if not _sizes_declared_within_bounds(payload):
            return None
        with np.load(io.BytesIO(payload), allow_pickle=False) as arrays:
            packed = _packed(arrays)
            if packed is None:
                return None
            _check(packed)
            dense = _dense(arrays, packed, payload)
    except (
        zlib.error,
        zipfile.BadZipFile,
        EOFError,
        OSError,
        ValueError,
        LookupError,
        TypeError,
        AttributeError,
        MemoryError,
    ):
        return None  # any damage reads as no snapshot
    return Decoded(LexicalIndex.from_packed(packed), dense)


def _dense(arrays: Any, packed: Packed, payload: bytes | bytearray) -> DenseIndex | None:
    """The dense side of an opened payload (checked like the rest); None when it has none."""
    meta = json.loads(arrays["meta"].tobytes())
    embedders = meta.get("dense")
    if embedders is None:
        return None
    if not isinstance(embedders, list) or not all(isinstance(e, str) for e in embedders):
        raise ValueError("dense embedders are not a list of names")
    blocks: dict[str, list[Block]] = {}
    for i, embedder in enumerate(embedders):
        scales, page, ordinal = (arrays[f"dense{i}_{name}"] for name in _DENSE[1:])
        codes = _stored_view(payload, f"dense{i}_codes")
        if codes is None:
            codes = arrays[f"dense{i}_codes"]
        rows = len(scales)
        if meta["format"] == _INT8 and codes.ndim == 2 and codes.shape[0] == rows:
            codes = _recoded(codes.astype(np.int8, copy=False), scales)
        if codes.ndim != 2 or codes.shape[0] != rows or len(page) != rows or len(ordinal) != rows:
            raise ValueError("dense arrays of different lengths")
        if rows and (int(page.min()) < 0 or int(page.max()) >= len(packed.pages)):
            raise ValueError("a dense row names a page the table lacks")
        blocks[embedder] = [
            Block(
                codes.astype(np.uint8, copy=False),
                scales.astype(np.float32, copy=False),
                page.astype(np.int32, copy=False),
                ordinal.astype(np.int32, copy=False),
                np.ones(rows, dtype=bool),
            )
        ]
    return DenseIndex(packed.pages, blocks)


def _stored_view(payload: bytes | bytearray, name: str) -> npt.NDArray[Any] | None:
    """Member ``name``'s array as a view into ``payload`` when it is stored uncompressed (no
    copy: a 100,000-page snapshot's codes would otherwise be held twice while decoding);
    None for a deflated member. Its header and bounds are checked (the CRC is not: damaged
    codes rank badly, and the exact rescoring of the shortlist still decides)."""
    with zipfile.ZipFile(io.BytesIO(payload)) as archive:
        info = archive.getinfo(f"{name}.npy")
    if info.compress_type != zipfile.ZIP_STORED:
        return None
    start = info.header_offset
    if payload[start : start + 4] != b"PK\x03\x04":
        raise ValueError("a member's local header is missing")
    name_length, extra_length = struct.unpack("<HH", payload[start + 26 : start + 30])
    start += 30 + name_length + extra_length
    head = io.BytesIO(payload[start : start + min(info.file_size, 1 << 16)])
    version = np.lib.format.read_magic(head)
    read_header = (
        np.lib.format.read_array_header_1_0
        if version == (1, 0)
        else np.lib.format.read_array_header_2_0
    )
    shape, fortran_order, dtype = read_header(head)
    count = math.prod(shape)
    if fortran_order or dtype.hasobject or head.tell() + count * dtype.itemsize > info.file_size:
        raise ValueError("a stored member's array does not fit it")
    array = np.frombuffer(payload, dtype=dtype, count=count, offset=start + head.tell())
    return array.reshape(shape)


def _recoded(codes: npt.NDArray[np.int8], scales: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
    """Format 6's int8 codes as this format's 4-bit ones, ``SCAN_ROWS`` rows at a time."""
    out = np.empty((len(codes), width(min(codes.shape[1], CODE_DIMS))), dtype=np.uint8)
    for start in range(0, len(codes), SCAN_ROWS):
        part = codes[start : start + SCAN_ROWS].astype(np.float32)
        part *= scales[start : start + SCAN_ROWS, None].astype(np.float32)
        out[start : start + len(part)] = quantize(part)[0]
    return out


def _packed(arrays: Any) -> Packed | None:
    """The packed index of an opened payload's arrays; None for another format."""
    meta = _meta(json.loads(arrays["meta"].tobytes()))
    if meta is None:
        return None
    counts = meta["counts"]
    sizes: tuple[tuple[Column, int | None], ...] = (
        ("slug", counts["pages"]),
        ("title", counts["pages"]),
        ("page_type", counts["pages"]),
        ("category", counts["pages"]),
        ("headings", counts["headings"]),
        ("vocabulary", None),
    )
    columns = {name: _column(meta, arrays, name, size) for name, size in sizes}
    tags = (
        [tuple(t) for t in meta["tags"]]
        if "tags" in meta
        else [
            tuple(t.split(_TAG)) if t else ()
            for t in _column(meta, arrays, "tags", counts["pages"])
        ]
    )
    nulls = arrays["nulls"].reshape(-1, 2).tolist()
    pages = [
        PageFields(slug, title, None if n[0] else kind, None if n[1] else cat, tag)
        for slug, title, kind, cat, tag, n in zip(
            columns["slug"],
            columns["title"],
            columns["page_type"],
            columns["category"],
            tags,
            nulls,
            strict=True,
        )
    ]
    return Packed(
        pages=pages,
        headings=columns["headings"],
        vocabulary=columns["vocabulary"],
        **{name: arrays[name].astype(dtype, copy=False) for name, dtype in _ARRAYS.items()},
    )


def _sizes_declared_within_bounds(payload: bytes | bytearray) -> bool:
    """Whether every member declares a size that fits, and holds no more than it declares.

    ``zipfile`` inflates a member only up to its declared size, and numpy allocates an
    array of the shape its header names: both are checked here, reading only the headers,
    before anything is inflated or allocated.
    """
    with zipfile.ZipFile(io.BytesIO(payload)) as archive:
        members = archive.infolist()
        if sum(m.file_size for m in members) > MAX_INFLATION * max(len(payload), 1):
            return False
        for member in members:
            with archive.open(member) as stream:
                version = np.lib.format.read_magic(stream)
                read_header = (
                    np.lib.format.read_array_header_1_0
                    if version == (1, 0)
                    else np.lib.format.read_array_header_2_0
                )
                shape, _, dtype = read_header(stream)
                if dtype.hasobject or math.prod(shape) * dtype.itemsize > member.file_size:
                    return False
    return True


def _meta(meta: object) -> _Meta | None:
    """``meta`` if it has this format's structure and types, else None."""
    if not isinstance(meta, dict) or meta.get("format") not in _READ:
        return None
    counts = meta.get("counts")
    if not isinstance(counts, dict) or not all(
        type(counts.get(k)) is int and counts[k] >= 0 for k in ("pages", "headings")
    ):
        return None
    for name in _COLUMNS:
        if name == "tags" and name in meta:
            rows = meta[name]
            if not isinstance(rows, list) or not all(
                isinstance(r, list) and all(isinstance(t, str) for t in r) for r in rows
            ):
                return None
        elif name in meta and not (
            isinstance(meta[name], list) and all(isinstance(v, str) for v in meta[name])
        ):
            return None
    return cast("_Meta", meta)  # its structure and types checked above


def _column(meta: _Meta, arrays: Any, name: Column, size: int | None = None) -> list[str]:
    if name in meta:
        values = [str(v) for v in meta[name]]
    else:
        text = arrays[name].tobytes().decode()
        values = text.split(_ROW) if text or size else []
    if size is not None and len(values) != size:
        raise ValueError(f"column {name} holds {len(values)} values, not {size}")
    return values


def _check(packed: Packed) -> None:
    """Raise ValueError unless the arrays agree with each other and with the tables."""
    slots = len(packed.page_of)
    if any(
        len(getattr(packed, name)) != slots
        for name in ("ordinal", "heading", "chars", "digest", "lengths")
    ):
        raise ValueError("per-chunk columns of different lengths")
    if len(packed.offsets) != len(packed.vocabulary) + 1 or len(packed.docs) != len(packed.tf):
        raise ValueError("postings do not match the vocabulary")
    if int(packed.offsets[-1]) != len(packed.docs):
        raise ValueError("postings cut short")
    if slots and (
        int(packed.page_of.max()) >= len(packed.pages)
        or int(packed.heading.max()) >= len(packed.headings)
    ):
        raise ValueError("a chunk names a page or heading the tables lack")
    if len(packed.docs) and int(packed.docs.max()) >= slots:
        raise ValueError("a posting names a chunk the index lacks")
    if any(
        len(array) and int(array.min()) < 0
        for array in (packed.page_of, packed.heading, packed.docs, packed.offsets)
    ):
        raise ValueError("a negative row number")
    if int(packed.offsets[0]) != 0 or bool(np.any(np.diff(packed.offsets) < 0)):
        raise ValueError("postings out of order")
