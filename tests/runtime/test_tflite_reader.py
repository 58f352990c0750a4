"""librillet's own .tflite reader (`rl_plan_build_from_tflite`): the plan it builds equals the plan that
Python fed from `load`'s objects through the same builders (tensors, quantization, every op's parameters
as the per-op fillers below read them, outputs), and damaged bytes given straight to it give a clean
error, never a crash."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from rillet.converter.format import ModelFile, Options, load
from rillet.converter.format.codec import SLOTS, Writer
from rillet.converter.format.schema import BUILTIN_CODES, UNIONS
from rillet.native import ffi, lib
from rillet.runtime.program import Program

from support import MODEL_NAMES, SINGLE_IO_MODELS, golden, model_path

MAX_DIMS = 8


def write_unchecked(model) -> bytes:
    return bytes(Writer().finish(model, "Model", b"TFL3"))


# ---- the reference: how runtime/plan.py filled each op's parameters from the decoded options ----

def _get(options: Options | None, name: str, default: Any) -> Any:
    value = getattr(options, name, None) if options is not None else None
    return default if value is None else value


def _conv(p: Any, o: Options | None) -> None:
    c = p.conv
    c.padding = _get(o, "padding", 0)
    c.stride_w, c.stride_h = _get(o, "stride_w", 1), _get(o, "stride_h", 1)
    c.dilation_w, c.dilation_h = _get(o, "dilation_w_factor", 1), _get(o, "dilation_h_factor", 1)
    c.depth_multiplier = _get(o, "depth_multiplier", 1)
    c.activation = _get(o, "fused_activation_function", 0)


def _pool(p: Any, o: Options | None) -> None:
    q = p.pool
    q.padding = _get(o, "padding", 0)
    q.stride_w, q.stride_h = _get(o, "stride_w", 1), _get(o, "stride_h", 1)
    q.filter_w, q.filter_h = _get(o, "filter_width", 1), _get(o, "filter_height", 1)
    q.activation = _get(o, "fused_activation_function", 0)


def _fully_connected(p: Any, o: Options | None) -> None:
    if _get(o, "weights_format", 0) != 0:
        raise ValueError("shuffled weights are not supported")
    p.fully_connected.activation = _get(o, "fused_activation_function", 0)
    p.fully_connected.keep_num_dims = int(bool(_get(o, "keep_num_dims", False)))
    p.fully_connected.quantized_bias_type = _get(o, "quantized_bias_type", 0)


def _batch_matmul(p: Any, o: Options | None) -> None:
    p.batch_matmul.adj_x = int(bool(_get(o, "adj_x", False)))
    p.batch_matmul.adj_y = int(bool(_get(o, "adj_y", False)))


def _arithmetic(p: Any, o: Options | None) -> None:
    p.arithmetic.activation = _get(o, "fused_activation_function", 0)


def _add_sub(p: Any, o: Options | None) -> None:
    _arithmetic(p, o)
    p.arithmetic.pot_scale_int16 = int(bool(_get(o, "pot_scale_int16", True)))


def _reducer(p: Any, o: Options | None) -> None:
    p.reducer.keep_dims = int(bool(_get(o, "keep_dims", False)))


def _softmax(p: Any, o: Options | None) -> None:
    p.softmax.beta = _get(o, "beta", 1.0)


def _leaky_relu(p: Any, o: Options | None) -> None:
    p.leaky_relu.alpha = _get(o, "alpha", 0.0)


def _concatenation(p: Any, o: Options | None) -> None:
    p.concatenation.axis = _get(o, "axis", 0)
    p.concatenation.activation = _get(o, "fused_activation_function", 0)


def _reshape(p: Any, o: Options | None) -> None:
    shape = _get(o, "new_shape", None)
    if shape is None or len(shape) > MAX_DIMS:
        p.reshape.count = -1
        return
    p.reshape.count = len(shape)
    for i, d in enumerate(shape):
        p.reshape.shape[i] = int(d)


def _squeeze(p: Any, o: Options | None) -> None:
    dims = list(_get(o, "squeeze_dims", []))[:MAX_DIMS]
    p.squeeze.count = len(dims)
    for i, d in enumerate(dims):
        p.squeeze.dims[i] = int(d)


def _strided_slice(p: Any, o: Options | None) -> None:
    s = p.strided_slice
    for name in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"):
        setattr(s, name, _get(o, name, 0))
    s.offset = int(bool(_get(o, "offset", False)))


def _gather(p: Any, o: Options | None) -> None:
    p.gather.axis = _get(o, "axis", 0)
    p.gather.batch_dims = _get(o, "batch_dims", 0)


def _pack(p: Any, o: Options | None) -> None:
    p.pack.axis = _get(o, "axis", 0)
    p.pack.values_count = _get(o, "values_count", 0)


def _shape(p: Any, o: Options | None) -> None:
    p.shape.out_type = _get(o, "out_type", 2)


def _resize(p: Any, o: Options | None) -> None:
    p.resize.align_corners = int(bool(_get(o, "align_corners", False)))
    p.resize.half_pixel_centers = int(bool(_get(o, "half_pixel_centers", False)))


def _call_once(p: Any, o: Options | None) -> None:
    p.call_once.init_subgraph_index = _get(o, "init_subgraph_index", 0)


FILLERS = {
    "CONV_2D": _conv, "DEPTHWISE_CONV_2D": _conv, "MAX_POOL_2D": _pool, "AVERAGE_POOL_2D": _pool,
    "FULLY_CONNECTED": _fully_connected, "BATCH_MATMUL": _batch_matmul,
    "ADD": _add_sub, "SUB": _add_sub, "MUL": _arithmetic, "DIV": _arithmetic,
    "MEAN": _reducer, "SUM": _reducer, "SOFTMAX": _softmax, "LEAKY_RELU": _leaky_relu,
    "CONCATENATION": _concatenation, "RESHAPE": _reshape, "SQUEEZE": _squeeze,
    "STRIDED_SLICE": _strided_slice, "GATHER": _gather, "PACK": _pack, "SHAPE": _shape,
    "RESIZE_BILINEAR": _resize, "RESIZE_NEAREST_NEIGHBOR": _resize, "CALL_ONCE": _call_once,
}


def new_plan(program: Program | None = None, subgraph: int = 0) -> Any:
    out = ffi.new("rl_plan **")
    assert lib.rl_plan_create(out, 1) == lib.RL_OK
    plan = ffi.gc(out[0], lib.rl_plan_destroy)
    if program is not None:
        assert lib.rl_program_add_plan(program.pointer, subgraph, plan) == lib.RL_OK
    return plan


def python_fed_plan(model: ModelFile, s: int, program: Program | None = None) -> tuple[Any, list[Any]]:
    """Subgraph s fed from `load`'s objects, one builder call per tensor and op (what plan.py did)."""
    plan, keep = new_plan(program, s), []
    sg = model.subgraphs[s]
    for t in sg.tensors:
        data = model.buffers[t.buffer].data
        constant = t.buffer > 0 and data is not None and data.size > 0 and not t.is_variable
        pointer = ffi.from_buffer("uint8_t[]", data) if constant else ffi.NULL
        keep.append(pointer)
        shape = list(t.shape or [])
        assert lib.rl_plan_add_tensor(plan, t.type, len(shape), ffi.new("int32_t[]", shape or [0]), pointer,
                                      data.size if constant else 0, int(t.is_variable)) == lib.RL_OK
    for i, t in enumerate(sg.tensors):
        q = t.quantization
        if q is None or not q.scale:
            continue
        zero_points = list(q.zero_point or [0] * len(q.scale))
        assert lib.rl_plan_set_quantization(plan, i, len(q.scale), ffi.new("float[]", list(q.scale)),
                                            ffi.new("int64_t[]", zero_points), q.quantized_dimension) == lib.RL_OK
    for j, op in enumerate(sg.operators):
        params = ffi.new("rl_op_params *")
        name = model.op_name(op)
        if name in FILLERS:
            FILLERS[name](params, op.builtin_options)
        elif name == "VAR_HANDLE":
            o = op.builtin_options
            params.var_handle.resource_id = program.variable_id(_get(o, "container", "") or "",
                                                                _get(o, "shared_name", "") or "")
        ins, outs = list(op.inputs or []), list(op.outputs or [])
        code = max(model.operator_codes[op.opcode_index].builtin_code,
                   model.operator_codes[op.opcode_index].deprecated_builtin_code)
        assert lib.rl_plan_add_op(plan, code, len(ins), ffi.new("int32_t[]", ins or [0]), len(outs),
                                  ffi.new("int32_t[]", outs or [0]), params) == lib.RL_OK, j
    assert lib.rl_plan_set_io(plan, len(sg.inputs), ffi.new("int32_t[]", sg.inputs or [0]), len(sg.outputs),
                              ffi.new("int32_t[]", sg.outputs or [0])) == lib.RL_OK
    return plan, keep


def c_built_plan(data: bytes, s: int, program: Program | None = None) -> tuple[Any, Any]:
    plan = new_plan(program, s)
    keep = ffi.from_buffer("uint8_t[]", data)
    status = lib.rl_plan_build_from_tflite(plan, keep, len(data), s)
    assert status == lib.RL_OK, ffi.string(lib.rl_plan_message(plan)).decode()
    return plan, keep


def op_parameters(plan: Any) -> list[bytes]:
    size = ffi.sizeof("rl_op_params")
    return [bytes(ffi.buffer(lib.rl_plan_op_params(plan, j), size)) for j in range(lib.rl_plan_op_count(plan))]


def tensors(plan: Any) -> list[list[int]]:
    return [[lib.rl_plan_tensor_rank(plan, i)] + [lib.rl_plan_tensor_dim(plan, i, d)
                                                   for d in range(lib.rl_plan_tensor_rank(plan, i))]
            for i in range(lib.rl_plan_tensor_count(plan))]


def assert_same_plans(data: bytes, s: int = 0) -> None:
    model = load(data)
    ours, _keep = c_built_plan(data, s, Program())
    theirs, _keep2 = python_fed_plan(model, s, Program())
    assert tensors(ours) == tensors(theirs)
    assert op_parameters(ours) == op_parameters(theirs)


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_every_subgraph_builds_as_python_fed_it(name):
    data = model_path(name).read_bytes()
    for s in range(len(load(data).subgraphs)):
        assert_same_plans(data, s)


def run(plan: Any, x: np.ndarray, tensor_in: int, tensor_out: int) -> np.ndarray:
    assert lib.rl_plan_prepare(plan) == lib.RL_OK, ffi.string(lib.rl_plan_message(plan)).decode()
    ffi.memmove(lib.rl_plan_tensor_data(plan, tensor_in), x.tobytes(), x.nbytes)
    assert lib.rl_plan_invoke(plan) == lib.RL_OK
    out = ffi.buffer(lib.rl_plan_tensor_data(plan, tensor_out), lib.rl_plan_tensor_bytes(plan, tensor_out))
    return np.frombuffer(out, np.uint8).copy()


@pytest.mark.parametrize("name", SINGLE_IO_MODELS)
def test_the_c_built_plan_gives_the_python_fed_ones_bits(name):
    data = model_path(name).read_bytes()
    model = load(data)
    sg = model.subgraphs[0]
    x = np.ascontiguousarray(golden(name)["x"])
    outputs = []
    for plan, _keep in (c_built_plan(data, 0), python_fed_plan(model, 0)):
        outputs.append(run(plan, x, sg.inputs[0], sg.outputs[0]))
    np.testing.assert_array_equal(outputs[0], outputs[1])


def test_options_of_an_unusual_type_fill_as_the_filler_says():
    model = load(model_path("cnn_small_f32"))
    sg = model.subgraphs[0]
    conv = next(op for op in sg.operators if model.op_name(op) == "CONV_2D")
    depthwise = next(op for op in sg.operators if model.op_name(op) == "DEPTHWISE_CONV_2D")
    conv.builtin_options, depthwise.builtin_options = depthwise.builtin_options, None
    assert_same_plans(write_unchecked(model))


def test_options_that_leave_fields_out_fill_as_the_filler_says():
    """A writer leaves out fields equal to the schema's default (beta 0, stride 0, alpha 0): the schema's
    default applies then, the op's own default only when the options table is absent."""
    model = load(model_path("cnn_small_f32"))
    for op in model.subgraphs[0].operators:
        name = model.op_name(op)
        if name == "SOFTMAX":
            op.builtin_options = Options("SoftmaxOptions", beta=0.0)
        elif name == "CONV_2D":
            op.builtin_options.stride_w = 0
        elif name == "MAX_POOL_2D":
            op.builtin_options = None
    content = write_unchecked(model)
    assert_same_plans(content)
    plan, _keep = c_built_plan(content, 0)
    softmax = next(j for j, op in enumerate(model.subgraphs[0].operators) if model.op_name(op) == "SOFTMAX")
    assert lib.rl_plan_op_params(plan, softmax).softmax.beta == 0.0


# ---- options of every kind, present, absent, of another type ----

# Any type but those naming a subgraph (a cycle in a one-subgraph model) or a variable (needs a program).
OPTION_TYPES = sorted(set(UNIONS["BuiltinOptions"][1:]) - {"VarHandleOptions", "CallOptions", "IfOptions",
                                                           "WhileOptions", "CallOnceOptions"})


def options_strategy(type_name: str) -> st.SearchStrategy[Options]:
    fields = {}
    for _, name, ftype, _ in SLOTS[type_name]:
        if name is None:
            continue
        if ftype in ("byte", "int", "uint", "short", "ubyte"):
            fields[name] = st.integers(0 if ftype.startswith("u") else -3, 5)
        elif ftype == "bool":
            fields[name] = st.booleans()
        elif ftype == "float":
            fields[name] = st.sampled_from([0.0, 0.5, 1.0, -2.0])
        elif ftype == "[int]":
            fields[name] = st.none() | st.lists(st.integers(-2, 6), max_size=10)
    return st.fixed_dictionaries(fields).map(lambda f: Options(type_name, **f))


OPTIONS_EXAMPLES = int(os.environ.get("RILLET_OPTIONS_EXAMPLES", "60"))  # CI: short; run long once in a while


@settings(max_examples=OPTIONS_EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow], phases=[Phase.explicit, Phase.generate])
@given(st.data())
def test_parameters_from_any_options_equal_the_fillers(data):
    name = data.draw(st.sampled_from(["cnn_small_f32", "mobilenet_v2_035_96_int8", "mlp_f32"]))
    model = load(model_path(name).read_bytes())
    for code in model.operator_codes:  # any kind that has parameters, whether or not the plan could run it
        if data.draw(st.booleans()):
            builtin = BUILTIN_CODES[data.draw(st.sampled_from(sorted(FILLERS)))]
            code.builtin_code, code.deprecated_builtin_code = builtin, min(builtin, 127)
    for op in model.subgraphs[0].operators:
        choice = data.draw(st.sampled_from(["keep", "none", "same type", "other type"]))
        usual = op.builtin_options.type_name if op.builtin_options is not None else None
        if choice == "none":
            op.builtin_options = None
        elif choice == "same type" and usual:
            op.builtin_options = data.draw(options_strategy(usual))
        elif choice == "other type":
            op.builtin_options = data.draw(st.sampled_from(OPTION_TYPES).flatmap(options_strategy))
    content = write_unchecked(model)
    model = load(content)
    try:
        theirs, _keep = python_fed_plan(model, 0)
    except ValueError:  # shuffled weights: refused by both
        plan = new_plan()
        assert lib.rl_plan_build_from_tflite(plan, content, len(content), 0) == lib.RL_INVALID
        assert "shuffled weights" in ffi.string(lib.rl_plan_message(plan)).decode()
        return
    ours, _keep2 = c_built_plan(content, 0)
    assert op_parameters(ours) == op_parameters(theirs)


def test_the_option_field_table_is_the_schemas():
    """tflite_options.c's option_fields rows are schema.py's slots, types and defaults."""
    source = (Path(lib_source_dir()) / "tflite_options.c").read_text()
    block = source[source.index("option-fields-begin"):source.index("option-fields-end")]
    names = {"activation": "fused_activation_function", "dilation_w": "dilation_w_factor",
             "dilation_h": "dilation_h_factor", "filter_w": "filter_width", "filter_h": "filter_height"}
    types = {"FB_I8": "byte", "FB_I32": "int", "FB_BOOL": "bool", "FB_F32": "float", "FB_INTS": "[int]",
             "FB_STRING": "string", "FB_I64": "long"}
    rows = re.findall(r"\{(\d+), F_(\w+), (\d+), (FB_\w+), (-?\d+)\}", block)
    used = {names.get(f.lower(), f.lower()) for _, f, _, _, _ in rows}
    expected = sorted((code, name, slot, ftype, int(default or 0)) for code, t in enumerate(UNIONS["BuiltinOptions"])
                      if t for slot, name, ftype, default in SLOTS[t] if name in used)
    got = sorted((int(c), names.get(f.lower(), f.lower()), int(s), types[t], int(d)) for c, f, s, t, d in rows)
    assert got == expected


def lib_source_dir() -> str:
    from rillet.native.build_config import NATIVE_DIR

    return f"{NATIVE_DIR}/src"


# ---- damaged bytes, straight to the reader ----

def damage(data: bytes, draw: Any) -> bytes:
    buf = bytearray(data)
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["byte", "word", "cut"]))
        pos = draw(st.integers(0, len(buf) - 1)) if buf else 0
        if kind == "byte" and buf:
            buf[pos] = draw(st.integers(0, 255))
        elif kind == "word" and len(buf) >= 4:
            pos = min(pos, len(buf) - 4) & ~3
            buf[pos:pos + 4] = draw(st.sampled_from([0, 1, 4, 0x7FFFFFFF, 0xFFFFFFFF, 0x80000000,
                                                     draw(st.integers(0, 2**32 - 1))])).to_bytes(4, "little")
        elif kind == "cut":
            buf = buf[: draw(st.integers(0, len(buf)))]
    return bytes(buf)


FUZZ_EXAMPLES = int(os.environ.get("RILLET_FUZZ_EXAMPLES", "150"))  # CI: short; run long once in a while


@settings(max_examples=FUZZ_EXAMPLES, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([n for n in MODEL_NAMES if n != "mobilenet_v2_035_96_f32"]), st.data())
def test_damaged_bytes_give_a_clean_error(name, data):
    content = damage(model_path(name).read_bytes(), data.draw)
    plan = new_plan(Program())
    status = lib.rl_plan_build_from_tflite(plan, content, len(content), data.draw(st.integers(0, 2)))
    message = ffi.string(lib.rl_plan_message(plan)).decode(errors="replace")
    assert status in (lib.RL_OK, lib.RL_INVALID, lib.RL_UNSUPPORTED), (status, message)
    if status != lib.RL_OK:
        assert message
    elif lib.rl_plan_check_support(plan) == lib.RL_OK:
        lib.rl_plan_prepare(plan)  # a clean status either way


def test_a_plan_is_built_once():
    data = model_path("mlp_f32").read_bytes()
    plan, keep = c_built_plan(data, 0)
    assert lib.rl_plan_build_from_tflite(plan, keep, len(data), 0) == lib.RL_BAD_STATE


@pytest.mark.parametrize("content, problem", [
    (b"", "too short"), (b"\x08\x00\x00\x00TFL2\x00\x00\x00\x00", "identifier"),
    (b"\xff\xff\xff\x7fTFL3", "outside the file"),
])
def test_broken_headers_are_refused(content, problem):
    plan = new_plan()
    assert lib.rl_plan_build_from_tflite(plan, content, len(content), 0) == lib.RL_INVALID
    assert problem in ffi.string(lib.rl_plan_message(plan)).decode()


# ---- what a plan of one subgraph cannot see: calls between subgraphs, unknown ops anywhere ----

def call_once(model: ModelFile) -> Options:
    op = next(op for op in model.subgraphs[0].operators if model.op_name(op) == "CALL_ONCE")
    return op.builtin_options


@pytest.mark.parametrize("target, problem", [(0, "cycle of subgraph references"),
                                             (99, "called subgraph index 99 is out of range")])
def test_a_call_to_a_missing_subgraph_or_a_cycle_is_refused_with_loads_message(target, problem):
    from rillet.converter.format import ModelError
    from rillet.runtime import Interpreter

    model = load(model_path("train_mlp"))
    call_once(model).init_subgraph_index = target
    content = write_unchecked(model)
    for s in range(len(model.subgraphs)):
        plan = new_plan(Program(), s)
        assert lib.rl_plan_build_from_tflite(plan, content, len(content), s) == lib.RL_INVALID
    with pytest.raises(ModelError, match=problem):
        Interpreter(model_content=content)


def test_an_unknown_op_in_another_subgraph_is_listed():
    from rillet.runtime import Interpreter, UnsupportedOpsError

    model = load(model_path("train_mlp"))
    code = next(c for c in model.operator_codes if c.builtin_code == 144)  # ASSIGN_VARIABLE, in subgraph 1
    code.builtin_code = code.deprecated_builtin_code = 27  # SVDF: no kernel
    content = write_unchecked(model)
    plan = new_plan(Program(), 0)
    assert lib.rl_plan_build_from_tflite(plan, content, len(content), 0) == lib.RL_UNSUPPORTED
    with pytest.raises(UnsupportedOpsError, match=r"SVDF \(subgraph 1 op"):
        Interpreter(model_content=content)
