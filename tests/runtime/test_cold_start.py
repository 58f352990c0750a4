"""What the cold start path changed: model files are mapped, not read; librillet builds the plan from the
bytes; views of tensor memory keep the plan (and the mapping) alive; broken files still fail early."""

from __future__ import annotations

import gc
import mmap

import numpy as np
import pytest

from rillet.converter.format import ModelError, load
from rillet.converter.format.codec import Writer
from rillet.runtime import Interpreter

from support import SINGLE_IO_MODELS, golden, model_path


def write_unchecked(model) -> bytes:
    return bytes(Writer().finish(model, "Model", b"TFL3"))


def constant_tensor(model) -> int:
    sg = model.subgraphs[0]
    return next(i for i, t in enumerate(sg.tensors) if 0 < t.buffer and model.buffers[t.buffer].data is not None
                and model.buffers[t.buffer].data.size and not t.is_variable)


def test_model_path_is_mapped_and_stays_mapped_while_the_plan_lives():
    it = Interpreter(model_path=str(model_path("mobilenet_v2_035_96_f32")))
    assert isinstance(it._content, mmap.mmap)
    with pytest.raises(BufferError):  # the plan's pointers into it pin the mapping
        it._content.close()


@pytest.mark.parametrize("source", ["model_path", "model_content"])
def test_a_constant_view_outlives_its_interpreter(source):
    path = model_path("mobilenet_v2_035_96_int8")
    model = load(path)
    index = constant_tensor(model)
    expected = model.tensor_data(0, index).copy()
    it = Interpreter(**{source: str(path) if source == "model_path" else path.read_bytes()})
    it.allocate_tensors()
    view = it.tensor(index)()
    assert not view.flags.writeable
    del it
    gc.collect()
    np.testing.assert_array_equal(view, expected)


def test_an_output_view_outlives_its_interpreter():
    name = "cnn_small_f32"
    g = golden(name)
    it = Interpreter(model_path=str(model_path(name)))
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], g["x"])
    it.invoke()
    out = it.tensor(it.get_output_details()[0]["index"])()
    expected = out.copy()
    del it
    gc.collect()
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("name", SINGLE_IO_MODELS)
def test_mapped_and_in_memory_models_give_the_goldens(name):
    g = golden(name)
    for source in ({"model_path": str(model_path(name))}, {"model_content": model_path(name).read_bytes()}):
        it = Interpreter(**source)
        it.allocate_tensors()
        it.set_tensor(it.get_input_details()[0]["index"], g["x"])
        it.invoke()
        got = it.get_tensor(it.get_output_details()[0]["index"])
        if got.dtype == np.float32:
            np.testing.assert_allclose(got, g["y"], rtol=1e-4, atol=1e-5)
        else:
            np.testing.assert_array_equal(got, g["y"])


def test_interpreter_model_is_loads_model():
    path = model_path("cnn_small_int8")
    assert Interpreter(model_path=str(path)).model.same_as(load(path))


def test_a_buffer_smaller_than_its_tensor_fails_at_construction():
    model = load(model_path("mobilenet_v2_035_96_f32"))
    index = constant_tensor(model)
    buffer = model.buffers[model.subgraphs[0].tensors[index].buffer]
    buffer.data = buffer.data[:8]
    with pytest.raises(ModelError, match=f"tensor {index} .*holds 8 bytes"):
        Interpreter(model_content=write_unchecked(model))


def test_an_operator_reading_a_missing_tensor_fails_at_construction():
    model = load(model_path("mobilenet_v2_035_96_int8"))
    model.subgraphs[0].operators[3].outputs[0] = 10_000
    with pytest.raises(ModelError, match="operator 3 .*output tensor index 10000 is out of range"):
        Interpreter(model_content=write_unchecked(model))


def test_fewer_zero_points_than_scales_is_refused():
    model = load(model_path("cnn_small_int8"))
    t = next(t for t in model.subgraphs[0].tensors if t.quantization and len(t.quantization.scale or []) > 1)
    t.quantization.zero_point = t.quantization.zero_point[:1]
    with pytest.raises(ModelError, match="scales but 1 zero points"):
        Interpreter(model_content=write_unchecked(model))


def test_truncated_file_fails_at_construction(tmp_path):
    data = model_path("mobilenet_v2_035_96_f32").read_bytes()
    path = tmp_path / "cut.tflite"
    path.write_bytes(data[: len(data) // 3])
    with pytest.raises(ModelError, match="outside the file|truncated|past the end"):
        Interpreter(model_path=str(path))


def test_empty_file_is_a_model_error(tmp_path):
    path = tmp_path / "empty.tflite"
    path.write_bytes(b"")
    with pytest.raises(ModelError, match="too short"):
        Interpreter(model_path=str(path))


def test_a_small_model_file_is_read_not_mapped():
    """Below SMALLEST_MAPPED_FILE a mapping costs more to set up and tear down than copying the pages."""
    from rillet.runtime.interpreter import SMALLEST_MAPPED_FILE

    path = model_path("mlp_f32")
    assert path.stat().st_size < SMALLEST_MAPPED_FILE
    it = Interpreter(model_path=str(path))
    assert isinstance(it._content, bytes)
    it.allocate_tensors()
    data = golden("mlp_f32")
    it.set_tensor(it.get_input_details()[0]["index"], data["x"])
    it.invoke()
    np.testing.assert_allclose(it.get_tensor(it.get_output_details()[0]["index"]), data["y"], rtol=1e-5, atol=1e-6)
