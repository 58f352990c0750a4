"""Malformed and hostile files raise ModelError naming the problem: never a crash, never IndexError."""

from __future__ import annotations

import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rillet.converter import ModelError, load, save
from rillet.converter.format import Operator, Options
from rillet.converter.format.codec import Writer

from support import model_path


def mlp_bytes() -> bytes:
    return model_path("mlp_f32").read_bytes()


def write_unchecked(model) -> bytes:
    """Encode without validation, as a buggy or hostile producer would."""
    return bytes(Writer().finish(model, "Model", b"TFL3"))


def test_truncated_file():
    data = mlp_bytes()
    with pytest.raises(ModelError, match="outside the file|truncated"):
        load(data[: len(data) // 2])


def test_file_too_short_for_a_flatbuffer():
    with pytest.raises(ModelError, match="too short"):
        load(b"TFL")


def test_wrong_file_identifier():
    data = bytearray(mlp_bytes())
    data[4:8] = b"ABCD"
    with pytest.raises(ModelError, match="identifier is b'ABCD'"):
        load(bytes(data))


def test_missing_file_names_the_path(tmp_path):
    with pytest.raises(ModelError, match="nope.tflite"):
        load(tmp_path / "nope.tflite")


def test_operator_input_index_out_of_range():
    model = load(mlp_bytes())
    model.subgraphs[0].operators[0].inputs[0] = 999
    with pytest.raises(ModelError, match=r"operator 0 \(FULLY_CONNECTED\): input tensor index 999 is out of range"):
        load(write_unchecked(model))


def test_opcode_index_out_of_range():
    model = load(mlp_bytes())
    model.subgraphs[0].operators[1].opcode_index = 7
    with pytest.raises(ModelError, match="operator 1: opcode index 7 is out of range"):
        load(write_unchecked(model))


def test_tensor_buffer_index_out_of_range():
    model = load(mlp_bytes())
    model.subgraphs[0].tensors[2].buffer = 10_000
    with pytest.raises(ModelError, match="tensor 2 .*buffer index 10000 is out of range"):
        load(write_unchecked(model))


def test_signature_tensor_index_out_of_range():
    model = load(model_path("train_mlp").read_bytes())
    model.signature_defs[0].inputs[0].tensor_index = 5000
    with pytest.raises(ModelError, match="signature .*tensor index 5000 is out of range"):
        load(write_unchecked(model))


def test_buffer_smaller_than_its_tensor():
    model = load(mlp_bytes())
    sg = model.subgraphs[0]
    weights = next(t for t in sg.tensors if model.buffers[t.buffer].data is not None and model.buffers[t.buffer].data.size)
    model.buffers[weights.buffer].data = model.buffers[weights.buffer].data[:8]
    with pytest.raises(ModelError, match="holds 8 bytes"):
        load(write_unchecked(model))


def test_buffer_offset_reaching_past_end_of_file():
    data = bytearray(save(load(mlp_bytes()), external_buffers=True))
    model = load(bytes(data))
    big = max(range(len(model.buffers)), key=lambda i: model.buffers[i].size)
    offset, size = model.buffers[big].offset, model.buffers[big].size
    # Find the buffer table's 64-bit `offset` field by its value and push it past the end of the file.
    field = bytes(data).find(struct.pack("<Q", offset))
    assert field > 0
    data[field : field + 8] = struct.pack("<Q", len(data) - size // 2)
    with pytest.raises(ModelError, match=f"buffer {big}: data at bytes .* reaches past the end of the file"):
        load(bytes(data))


def test_cycle_of_subgraph_references():
    model = load(model_path("train_mlp").read_bytes())
    # Subgraph 0 runs CALL_ONCE on the initializer subgraph; make the initializer call subgraph 0 back.
    init = next(o.builtin_options.init_subgraph_index for o in model.subgraphs[0].operators
                if model.op_name(o) == "CALL_ONCE")
    call_once_code = next(i for i, c in enumerate(model.operator_codes) if c.name == "CALL_ONCE")
    model.subgraphs[init].operators.append(Operator(
        opcode_index=call_once_code, inputs=[], outputs=[],
        builtin_options=Options("CallOnceOptions", init_subgraph_index=0),
    ))
    with pytest.raises(ModelError, match=f"cycle of subgraph references: subgraph 0 -> subgraph {init} -> subgraph 0"):
        load(write_unchecked(model))


def test_called_subgraph_out_of_range():
    model = load(model_path("train_mlp").read_bytes())
    op = next(o for o in model.subgraphs[0].operators if model.op_name(o) == "CALL_ONCE")
    op.builtin_options.init_subgraph_index = 42
    with pytest.raises(ModelError, match="called subgraph index 42 is out of range"):
        load(write_unchecked(model))


def test_unknown_options_union_type():
    model = load(mlp_bytes())
    # Two empty options tables encode alike but for the union's type byte: that is the byte to corrupt.
    model.subgraphs[0].operators[0].builtin_options = Options("RightShiftOptions")
    a = write_unchecked(model)
    model.subgraphs[0].operators[0].builtin_options = Options("BitwiseXorOptions")
    b = write_unchecked(model)
    (position,) = [i for i in range(len(a)) if a[i] != b[i]]
    data = bytearray(a)
    data[position] = 200
    with pytest.raises(ModelError, match="unknown BuiltinOptions type 200"):
        load(bytes(data))


def test_wrong_schema_version():
    model = load(mlp_bytes())
    model.version = 2
    with pytest.raises(ModelError, match="schema version 2"):
        load(write_unchecked(model))


def test_save_refuses_a_broken_model_and_keeps_it_unchanged():
    model = load(mlp_bytes())
    model.subgraphs[0].outputs = [77]
    with pytest.raises(ModelError, match="output index 77 is out of range"):
        save(model)
    assert model.subgraphs[0].outputs == [77]


def test_save_refuses_values_outside_their_field():
    model = load(mlp_bytes())
    model.operator_codes[0].deprecated_builtin_code = 300  # a signed byte
    with pytest.raises(ModelError, match="does not fit the schema's byte"):
        save(model)


def test_non_utf8_name():
    data = bytearray(mlp_bytes())
    model = load(bytes(data))
    name = model.subgraphs[0].tensors[0].name.encode()
    position = bytes(data).find(name)
    data[position] = 0xFF
    with pytest.raises(ModelError, match="not UTF-8"):
        load(bytes(data))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_corrupted_bytes_raise_model_error_or_load(data):
    original = mlp_bytes()
    buf = bytearray(original)
    # Corrupt the structure (the first KB holds the flatbuffer's tables; weights follow) at a few places.
    for _ in range(data.draw(st.integers(1, 8))):
        pos = data.draw(st.integers(0, min(len(buf), 2048) - 1))
        buf[pos] = data.draw(st.integers(0, 255))
    if data.draw(st.booleans()):
        buf = buf[: data.draw(st.integers(0, len(buf)))]
    try:
        model = load(bytes(buf))
    except ModelError:
        return
    save(model)  # whatever loads must also write back


@settings(max_examples=100, deadline=None)
@given(st.binary(min_size=0, max_size=512))
def test_random_bytes_never_crash(blob):
    with pytest.raises(ModelError):
        load(b"\x10\x00\x00\x00TFL3" + blob)
