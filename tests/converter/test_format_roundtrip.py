"""load -> save -> load keeps every model's structure, and LiteRT runs what we write, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter

from rillet.converter import load, save
from rillet.converter.format import ModelFile

from support import MODEL_NAMES, SINGLE_IO_MODELS, golden, model_path


@pytest.mark.parametrize("name", MODEL_NAMES)
@pytest.mark.parametrize("external", [False, True], ids=["inline", "offset-buffers"])
def test_round_trip_keeps_structure(name, external):
    original = load(model_path(name))
    again = load(save(original, external_buffers=external))
    assert again.same_as(original)
    assert [len(sg.operators) for sg in again.subgraphs] == [len(sg.operators) for sg in original.subgraphs]


def test_round_trip_detects_a_difference():
    # same_as must be able to fail, or the round-trip test above proves nothing.
    original = load(model_path("mlp_f32"))
    changed = load(save(original))
    changed.subgraphs[0].tensors[0].name = "renamed"
    assert not changed.same_as(original)
    changed = load(save(original))
    changed.buffers[next(i for i, b in enumerate(changed.buffers) if b.data is not None and b.data.size)].data = (
        np.zeros(4, np.uint8)
    )
    assert not changed.same_as(original)


@pytest.mark.parametrize("name", SINGLE_IO_MODELS)
@pytest.mark.parametrize("external", [False, True], ids=["inline", "offset-buffers"])
def test_litert_runs_rewritten_file_bit_exact(name, external):
    data = save(load(model_path(name)), external_buffers=external)
    ref = golden(name)
    interp = Interpreter(model_content=data)
    interp.allocate_tensors()
    interp.set_tensor(interp.get_input_details()[0]["index"], ref["x"])
    interp.invoke()
    y = interp.get_tensor(interp.get_output_details()[0]["index"])
    assert y.dtype == ref["y"].dtype
    np.testing.assert_array_equal(y, ref["y"])


@pytest.mark.parametrize("external", [False, True], ids=["inline", "offset-buffers"])
def test_litert_trains_rewritten_multi_signature_model(external):
    data = save(load(model_path("train_mlp")), external_buffers=external)
    ref = golden("train_mlp")
    interp = Interpreter(model_content=data)
    assert set(interp.get_signature_list()) == {"train", "infer"}
    train = interp.get_signature_runner("train")
    losses = [train(x=ref["xs"][i], y=ref["ys"][i])["loss"] for i in range(len(ref["losses"]))]
    np.testing.assert_array_equal(np.array(losses, dtype=ref["losses"].dtype), ref["losses"])
    out = interp.get_signature_runner("infer")(x=ref["xs"][0])
    np.testing.assert_array_equal(next(iter(out.values())), ref["infer_after"])


def test_buffers_are_zero_copy_views_of_the_file():
    data = model_path("mobilenet_v2_035_96_f32").read_bytes()
    model = load(data)
    file_bytes = np.frombuffer(data, np.uint8)
    weights = [b.data for b in model.buffers if b.data is not None and b.data.size]
    assert weights and all(np.shares_memory(w, file_bytes) for w in weights)


def test_written_buffers_are_16_byte_aligned():
    data = save(load(model_path("cnn_small_f32")))
    model = load(data)
    base = np.frombuffer(data, np.uint8).ctypes.data
    assert all((b.data.ctypes.data - base) % 16 == 0 for b in model.buffers if b.data is not None and b.data.size)


def test_tensor_data_is_typed_and_shaped():
    model = load(model_path("cnn_small_f32"))
    sg = model.subgraphs[0]
    conv = next(op for op in sg.operators if model.op_name(op) == "CONV_2D")
    weights = model.tensor_data(0, conv.inputs[1])
    assert weights.dtype == np.float32 and list(weights.shape) == sg.tensors[conv.inputs[1]].shape
    assert model.tensor_data(0, sg.inputs[0]) is None


def test_options_decode_to_named_fields():
    model = load(model_path("cnn_small_f32"))
    ops = {model.op_name(op): op for op in model.subgraphs[0].operators}
    conv = ops["CONV_2D"].builtin_options
    assert conv.type_name == "Conv2DOptions"
    assert conv.padding in (0, 1) and conv.stride_w >= 1 and conv.dilation_h_factor == 1
    pool = ops["MAX_POOL_2D"].builtin_options
    assert pool.type_name == "Pool2DOptions" and pool.filter_width >= 1


def test_save_builds_a_file_from_plain_objects():
    from rillet.converter.format import Buffer, Operator, OperatorCode, SubGraph, Tensor

    model = ModelFile(
        operator_codes=[OperatorCode(deprecated_builtin_code=19, builtin_code=19)],  # RELU
        subgraphs=[SubGraph(
            tensors=[Tensor(shape=[1, 4], type=0, name="x"), Tensor(shape=[1, 4], type=0, name="y")],
            inputs=[0], outputs=[1], operators=[Operator(opcode_index=0, inputs=[0], outputs=[1])],
        )],
        buffers=[Buffer()],
    )
    interp = Interpreter(model_content=save(model))
    interp.allocate_tensors()
    interp.set_tensor(0, np.array([[-1, 2, -3, 4]], np.float32))
    interp.invoke()
    np.testing.assert_array_equal(interp.get_tensor(1), [[0, 2, 0, 4]])
