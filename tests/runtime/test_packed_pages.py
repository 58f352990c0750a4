"""The model file's pages that only packed constants occupy are dropped from memory once the plans are
prepared (runtime/packed_pages.py), and dropping them changes nothing a user sees: outputs, constants read
back, preparing again after a resize."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from rillet.runtime import Interpreter
from rillet.runtime.packed_pages import merge, release_packed_pages, subtract

from support import golden, model_path

SMAPS = Path("/proc/self/smaps")


def resident_kib(path: Path) -> int:
    """Resident KiB of this process's mappings of `path` (Linux's smaps)."""
    total, inside = 0, False
    for line in SMAPS.read_text().splitlines():
        fields = line.split()
        if fields and "-" in fields[0] and len(fields) >= 5 and ":" in fields[3]:
            inside = line.endswith(str(path))
        elif inside and line.startswith("Rss:"):
            total += int(fields[1])
    return total


@pytest.mark.skipif(not SMAPS.exists(), reason="needs Linux's /proc/self/smaps")
@pytest.mark.parametrize("name", ["mobilenet_v2_035_96_f32", "mobilenet_v2_035_96_int8"])
def test_packed_constants_pages_leave_memory_and_results_stay(tmp_path, name):
    path = tmp_path / f"{name}.tflite"  # a name only this test maps
    shutil.copyfile(model_path(name), path)
    size_kib = path.stat().st_size // 1024
    it = Interpreter(model_path=str(path))
    it.allocate_tensors()
    packed = it.memory_report()["packed_weight_bytes"] // 1024
    # Packing read every weight; what stays mapped is the metadata, the constants read in place and the
    # pages constants share with their neighbours' tables. Reading the tables keeps it so.
    it.memory_report()
    it.get_tensor_details()
    assert resident_kib(path) <= size_kib - packed // 3, (resident_kib(path), size_kib, packed)
    data = golden(name)
    index = it.get_input_details()[0]["index"]
    it.set_tensor(index, data["x"])
    it.invoke()
    out = it.get_tensor(it.get_output_details()[0]["index"])
    if out.dtype == np.float32:
        np.testing.assert_allclose(out, data["y"], rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_array_equal(out, data["y"])
    # A dropped constant reads back from the file with its bytes.
    weights = [t for t in it.get_tensor_details() if len(t["shape"]) == 4 and t["shape"][0] > 1]
    assert weights
    reference = Interpreter(model_content=path.read_bytes())
    reference.allocate_tensors()
    for t in weights:
        np.testing.assert_array_equal(it.get_tensor(t["index"]), reference.get_tensor(t["index"]))
    # Preparing again (a batch of 2) packs from the file again.
    it.resize_tensor_input(index, [2, *data["x"].shape[1:]])
    it.allocate_tensors()
    it.set_tensor(index, np.concatenate([data["x"], data["x"]]))
    it.invoke()
    again = it.get_tensor(it.get_output_details()[0]["index"])
    np.testing.assert_array_equal(again[0], out[0])
    np.testing.assert_array_equal(again[1], out[0])


def test_model_content_and_small_models_are_left_alone():
    it = Interpreter(model_content=model_path("mobilenet_v2_035_96_f32").read_bytes())
    it.allocate_tensors()
    assert release_packed_pages(it._content, it._plans) == 0
    small = Interpreter(model_path=str(model_path("cnn_small_f32")))
    small.allocate_tensors()
    assert release_packed_pages(small._content, small._plans) == 0


def test_span_arithmetic():
    assert merge([(10, 20), (0, 5), (21, 30)]) == [(0, 5), (10, 20), (21, 30)]
    assert merge([(10, 20), (0, 5), (20, 30), (25, 26)]) == [(0, 5), (10, 30)]
    assert subtract([(0, 10), (5, 20), (30, 40)], [(3, 4), (8, 12), (35, 50)]) == [(0, 3), (4, 8), (12, 20), (30, 35)]
    assert subtract([(0, 10)], []) == [(0, 10)]
    assert subtract([(0, 10)], [(0, 10)]) == []
    assert subtract([(5, 10)], [(0, 6), (9, 20)]) == [(6, 9)]
