"""Dropping the model file's pages that no invoke reads, once the plans are prepared.

A CONV_2D, FULLY_CONNECTED or DEPTHWISE_CONV_2D copies its constant filter and bias into packed weights at
prepare and never reads the file's copy again. When the model was opened by path, those bytes are pages of a
read-only mapping of the file: packing touched them, so they count in the process's resident memory, beside
the packed copy, for as long as the interpreter lives. madvise(MADV_DONTNEED) takes them out of this
process's memory; they stay in the file (and the page cache), and any later read of them (`get_tensor` of a
constant, preparing again after a resize) maps them back from the file with the same bytes, so dropping
them changes no result. A page is dropped only when it lies wholly inside constants that every op packed,
in every subgraph, and inside none that some op reads in place.
"""

import mmap
from collections.abc import Iterable

from rillet.native import ffi, lib

# Below this the pages to win are too few to be worth the bookkeeping at every allocate_tensors.
SMALLEST_MODEL_BYTES = 256 * 1024


def release_packed_pages(content: object, plans: "Iterable[object]") -> int:
    """Drops the pages of `content` (the model's mapped file) that only packed constants occupy; returns
    how many bytes were dropped (0 when the model is not a mapped file, is small, or the OS lacks madvise)."""
    if not isinstance(content, mmap.mmap) or len(content) < SMALLEST_MODEL_BYTES or not hasattr(content, "madvise"):
        return 0
    page = mmap.PAGESIZE
    packed, read = [], []
    for plan in plans:
        for offset, length, is_read in constant_spans(plan):
            if is_read:  # every page it touches stays
                read.append((offset // page * page, -(-(offset + length) // page) * page))
            else:
                packed.append((offset, offset + length))
    # Only the pages a constant fills: the page it shares with its neighbour also holds the neighbour's
    # Buffer table, which reading the model's tables (memory_report, tensor details) touches.
    whole = []
    for start, end in packed:
        first, last = -(-start // page) * page, end // page * page
        if last > first:
            whole.append((first, last))
    dropped = 0
    for start, end in subtract(whole, read):
        try:
            content.madvise(mmap.MADV_DONTNEED, start, min(end, len(content)) - start)
        except OSError:  # a filesystem or kernel that refuses: the pages simply stay
            break
        dropped += min(end, len(content)) - start
    return dropped


def merge(spans: "list[tuple[int, int]]") -> "list[tuple[int, int]]":
    """The [start, end) spans in order, those that overlap or touch joined."""
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(start, end) for start, end in merged]


def subtract(spans: "list[tuple[int, int]]", holes: "list[tuple[int, int]]") -> "list[tuple[int, int]]":
    """The parts of the [start, end) spans that no hole overlaps, merged and in order."""
    merged = merge(spans)
    holes = sorted(holes)
    out, h = [], 0
    for start, end in merged:
        while h < len(holes) and holes[h][1] <= start:
            h += 1
        k = h
        while start < end:
            if k < len(holes) and holes[k][0] < end:
                if holes[k][0] > start:
                    out.append((start, holes[k][0]))
                start = max(start, holes[k][1])
                k += 1
            else:
                out.append((start, end))
                break
    return out


def constant_spans(plan: object) -> "list[tuple[int, int, int]]":
    """(offset into the model, length, read at invoke) for each constant of one plan (rl_plan_constant_spans)."""
    native, model = plan._plan, plan._bytes
    capacity = int(lib.rl_plan_tensor_count(native))
    spans = ffi.new("uint64_t[]", 3 * max(1, capacity))
    count = min(int(lib.rl_plan_constant_spans(native, model, len(model), spans, capacity)), capacity)
    flat = ffi.unpack(spans, 3 * count)
    return list(zip(flat[0::3], flat[1::3], flat[2::3]))
