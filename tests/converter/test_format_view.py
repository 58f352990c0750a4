"""ModelView, the on-demand reader: it gives what `load` gives, and a file `load` refuses it refuses with
`load`'s message (now, or when the broken part is first read); what `load` accepts it accepts."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rillet.converter import ModelError, load
from rillet.converter.format import ModelView
from rillet.converter.format.codec import Writer

from support import MODEL_NAMES, model_path


def write_unchecked(model) -> bytes:
    return bytes(Writer().finish(model, "Model", b"TFL3"))


def read_everything(view: ModelView) -> None:
    """What the runtime reads when it builds a plan of subgraph 0, and the call graph."""
    view.subgraphs[0].columns()
    view.check_calls()


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_view_gives_what_load_gives(name):
    data = model_path(name).read_bytes()
    model, view = load(data), ModelView(data)
    assert view.version == model.version and view.description == model.description
    assert len(view.subgraphs) == len(model.subgraphs)
    for ours, theirs in [(view.operator_codes, model.operator_codes), (view.buffers, model.buffers)]:
        assert len(ours) == len(theirs) and all(a.same_as(b) for a, b in zip(ours, theirs))
    for name_ in ("signature_defs", "metadata"):
        ours, theirs = getattr(view, name_), getattr(model, name_)
        assert (ours is None and theirs is None) or all(a.same_as(b) for a, b in zip(ours, theirs))
    for s, (sg, expected) in enumerate(zip(view.subgraphs, model.subgraphs)):
        assert sg.name == expected.name and sg.inputs == expected.inputs and sg.outputs == expected.outputs
        assert all(a.same_as(b) for a, b in zip(sg.tensors, expected.tensors))
        assert all(a.same_as(b) for a, b in zip(sg.operators, expected.operators))
        assert sg.builtin_options() == [op.builtin_options for op in expected.operators]
        tensors, ops = sg.columns()
        for i, t in enumerate(expected.tensors):
            assert tensors.shape.row(i).tolist() == (t.shape or [])
            assert (tensors.type[i], tensors.buffer[i], tensors.is_variable[i]) == (t.type, t.buffer, t.is_variable)
            assert view.tensor_data(s, i) is None if model.tensor_data(s, i) is None else \
                (view.tensor_data(s, i) == model.tensor_data(s, i)).all()
        quantized = [i for i, t in enumerate(expected.tensors) if t.quantization is not None]
        assert tensors.quantized.tolist() == quantized
        for k, i in enumerate(quantized):
            q = expected.tensors[i].quantization
            assert tensors.scale.row(k).tolist() == (q.scale or [])
            assert tensors.zero_point.row(k).tolist() == (q.zero_point or [])
            assert tensors.quantized_dimension[k] == q.quantized_dimension
        for j, op in enumerate(expected.operators):
            assert ops.opcode_index[j] == op.opcode_index
            assert ops.inputs.row(j).tolist() == (op.inputs or [])
            assert ops.outputs.row(j).tolist() == (op.outputs or [])
    assert view.to_model().same_as(model)


def test_lazy_list_reads_like_a_list():
    view = ModelView(model_path("mlp_f32").read_bytes())
    tensors = view.subgraphs[0].tensors
    assert tensors[-1] is tensors[len(tensors) - 1]
    assert [t.name for t in tensors[1:3]] == [tensors[1].name, tensors[2].name]
    with pytest.raises(IndexError):
        tensors[len(tensors)]


def test_buffer_smaller_than_its_tensor_is_refused_with_loads_message():
    model = load(model_path("mlp_f32").read_bytes())
    t = next(t for t in model.subgraphs[0].tensors if model.buffers[t.buffer].data is not None
             and model.buffers[t.buffer].data.size)
    model.buffers[t.buffer].data = model.buffers[t.buffer].data[:8]
    data = write_unchecked(model)
    with pytest.raises(ModelError, match="holds 8 bytes") as from_load:
        load(data)
    with pytest.raises(ModelError) as from_view:
        read_everything(ModelView(data))
    assert str(from_view.value) == str(from_load.value)


def test_operator_input_out_of_range_is_refused():
    model = load(model_path("mlp_f32").read_bytes())
    model.subgraphs[0].operators[0].inputs[0] = 999
    with pytest.raises(ModelError, match=r"operator 0 \(FULLY_CONNECTED\): input tensor index 999 is out of range"):
        read_everything(ModelView(write_unchecked(model)))


def test_bad_signature_is_refused_when_read():
    model = load(model_path("train_mlp").read_bytes())
    model.signature_defs[0].inputs[0].tensor_index = 5000
    view = ModelView(write_unchecked(model))
    read_everything(view)  # the plan does not read signatures
    with pytest.raises(ModelError, match="signature .*tensor index 5000 is out of range"):
        _ = view.signature_defs


def test_non_utf8_tensor_name_is_refused_when_read():
    data = bytearray(model_path("mlp_f32").read_bytes())
    name = load(bytes(data)).subgraphs[0].tensors[0].name.encode()
    data[bytes(data).find(name)] = 0xFF
    view = ModelView(bytes(data))
    read_everything(view)
    with pytest.raises(ModelError, match="not UTF-8"):
        view.subgraphs[0].tensors[0]


def outcome(read, data: bytes) -> str | None:
    try:
        read(data)
    except ModelError as e:
        return str(e)
    return None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["mlp_f32", "cnn_small_int8", "train_mlp"]), st.data())
def test_damaged_bytes_view_agrees_with_load(name, data):
    buf = bytearray(model_path(name).read_bytes())
    for _ in range(data.draw(st.integers(1, 8))):
        pos = data.draw(st.integers(0, min(len(buf), 4096) - 1))
        buf[pos] = data.draw(st.integers(0, 255))
    if data.draw(st.booleans()):
        buf = buf[: data.draw(st.integers(0, len(buf)))]
    damaged = bytes(buf)
    from_load = outcome(load, damaged)
    from_view = outcome(lambda d: read_everything(ModelView(d)), damaged)
    if from_view is not None:  # refused now: load refuses it too, for the same reason
        assert from_view == from_load
    elif from_load is None:  # load accepts it: so does the view, with the same objects
        view, model = ModelView(damaged), load(damaged)
        assert all(a.same_as(b) for a, b in zip(view.subgraphs[0].tensors, model.subgraphs[0].tensors))
    else:  # the broken part is one the plan does not read: it raises when read
        with pytest.raises(ModelError):
            ModelView(damaged).to_model()


@settings(max_examples=100, deadline=None)
@given(st.binary(min_size=0, max_size=512))
def test_random_bytes_never_crash(blob):
    with pytest.raises(ModelError):
        read_everything(ModelView(b"\x10\x00\x00\x00TFL3" + blob))
