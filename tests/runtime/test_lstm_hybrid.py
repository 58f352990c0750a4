"""Hybrid (dynamic-range) UNIDIRECTIONAL_SEQUENCE_LSTM against LiteRT's default Interpreter: float32 input,
output and state, int8 weights with one scale each (gates, peepholes, projection), float32 biases and layer
norm coefficients, as TensorFlow's dynamic-range quantizer writes it; symmetric and asymmetric input
quantization, over the variants, batch- and time-major, several invokes and reset_all_variables. Files built
here with the format layer; malformed ones must be Python errors naming the input."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest
from test_lstm import run_invokes

from rillet.converter.format import (
    BUILTIN_CODES,
    Buffer,
    ModelFile,
    Operator,
    OperatorCode,
    Options,
    QuantizationParameters,
    SubGraph,
    Tensor,
    save,
)
from rillet.runtime import Interpreter

pytest.importorskip("ai_edge_litert")

TYPES = {np.dtype(np.float32): 0, np.dtype(np.int32): 2, np.dtype(np.int8): 9}


@dataclass
class HybridSpec:
    """One hybrid LSTM's shape, variant and weight scales."""

    batch: int = 2
    steps: int = 5
    n_input: int = 3
    n_cell: int = 4
    n_output: int | None = None  # a projection when it differs from n_cell
    time_major: bool = False
    cifg: bool = False
    peephole: bool = False
    layer_norm: bool = False
    projection: bool = False
    cell_clip: float = 0.0
    proj_clip: float = 0.0
    asymmetric: bool = False
    activation: int = 4
    weight_scale: float = 0.6 / 127
    seed: int = 0
    drop: set[int] = field(default_factory=set)  # input slots to leave out (malformed files)
    dtypes: dict[int, object] = field(default_factory=dict)  # input slot -> dtype override (malformed files)
    per_channel: bool = False  # the forget gate's input weights with one scale per row


def hybrid_model(spec: HybridSpec) -> bytes:
    s = spec
    n_output = s.n_output or s.n_cell
    projection = s.projection or n_output != s.n_cell
    rng = np.random.default_rng(s.seed)
    buffers = [Buffer(data=None)]
    tensors: list[Tensor] = []

    def add(shape, dtype, value=None, scales=None, variable=False, name=None) -> int:
        buffer = 0
        if value is not None:
            buffer = len(buffers)
            buffers.append(Buffer(data=np.frombuffer(np.ascontiguousarray(value, dtype).tobytes(), np.uint8)))
        quant = None if scales is None else QuantizationParameters(
            scale=[float(v) for v in scales], zero_point=[0] * len(scales), quantized_dimension=0)
        tensors.append(Tensor(shape=list(shape), type=TYPES[np.dtype(dtype)], buffer=buffer, is_variable=variable,
                              name=name or f"t{len(tensors)}", quantization=quant))
        return len(tensors) - 1

    def int8(slot, shape, per_channel=False):
        dtype = s.dtypes.get(slot, np.int8)
        scale = s.weight_scale * (1 + 0.25 * (slot % 5))
        scales = [scale * (1 + 0.1 * r) for r in range(shape[0])] if per_channel else [scale]
        return add(shape, dtype, rng.integers(-127, 128, shape), scales if dtype == np.int8 else None)

    def floats(slot, n, low, high):
        return add([n], s.dtypes.get(slot, np.float32), rng.uniform(low, high, n))

    x_shape = [s.steps, s.batch, s.n_input] if s.time_major else [s.batch, s.steps, s.n_input]
    x = add(x_shape, np.float32, name="x")
    skip = s.cifg
    w_x = [-1 if (skip and g == 0) else int8(1 + g, [s.n_cell, s.n_input], s.per_channel and g == 1) for g in range(4)]
    w_h = [-1 if (skip and g == 0) else int8(5 + g, [s.n_cell, n_output]) for g in range(4)]
    peep = [int8(9 + k, [s.n_cell]) if s.peephole and not (skip and k == 0) else -1 for k in range(3)]
    bias = [-1 if (skip and g == 0) else floats(12 + g, s.n_cell, -0.5, 0.5) for g in range(4)]
    proj = int8(16, [n_output, s.n_cell]) if projection else -1
    proj_b = floats(17, n_output, -0.2, 0.2) if projection else -1
    h = add([s.batch, n_output], s.dtypes.get(18, np.float32), variable=True, name="h")
    c = add([s.batch, s.n_cell], s.dtypes.get(19, np.float32), variable=True, name="c")
    norms = [floats(20 + g, s.n_cell, 0.5, 1.5) if s.layer_norm and not (skip and g == 0) else -1 for g in range(4)]
    y = add([*x_shape[:2], n_output], np.float32, name="y")
    inputs = [x, *w_x, *w_h, *peep, *bias, proj, proj_b, h, c, *norms]
    inputs = [-1 if k in s.drop else t for k, t in enumerate(inputs)]
    options = Options("UnidirectionalSequenceLSTMOptions", fused_activation_function=s.activation,
                      cell_clip=s.cell_clip, proj_clip=s.proj_clip, time_major=s.time_major,
                      asymmetric_quantize_inputs=s.asymmetric, diagonal_recurrent_tensors=False)
    code = BUILTIN_CODES["UNIDIRECTIONAL_SEQUENCE_LSTM"]
    op = Operator(opcode_index=0, inputs=inputs, outputs=[y], builtin_options=options)
    return save(ModelFile(
        operator_codes=[OperatorCode(deprecated_builtin_code=code, builtin_code=code, version=3)], buffers=buffers,
        subgraphs=[SubGraph(tensors=tensors, inputs=[x], outputs=[y], name="main", operators=[op])]))


def float_feeds(spec: HybridSpec, count: int, seed: int = 1) -> list[np.ndarray]:
    shape = (spec.steps, spec.batch, spec.n_input) if spec.time_major else (spec.batch, spec.steps, spec.n_input)
    rng = np.random.default_rng(seed)
    feeds = [rng.uniform(-2, 3, shape).astype(np.float32) for _ in range(count)]
    if spec.batch > 1 and spec.steps > 1:  # a zero row: quantized to zeros with scale 1
        row = (1, 0) if spec.time_major else (0, 1)
        feeds[0][row] = 0.0
    return feeds


def litert_and_rillet(spec: HybridSpec, invokes: int = 3, reset_after: int = -1, **litert_kwargs):
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    content = hybrid_model(spec)
    feeds = float_feeds(spec, invokes)
    return (run_invokes(LiteRT, content, feeds, reset_after, **litert_kwargs),
            run_invokes(Interpreter, content, feeds, reset_after))


def assert_close(theirs: list[np.ndarray], ours: list[np.ndarray]) -> None:
    for k, (t, o) in enumerate(zip(theirs, ours)):
        assert o.dtype == np.float32 and o.shape == t.shape
        np.testing.assert_allclose(o, t, rtol=1e-5, atol=1e-6, err_msg=f"invoke {k}")


VARIANTS = [
    {}, {"time_major": True}, {"cifg": True}, {"peephole": True}, {"layer_norm": True},
    {"n_output": 3}, {"n_output": 6, "proj_clip": 0.3}, {"projection": True}, {"cell_clip": 0.5},
    {"cifg": True, "peephole": True, "layer_norm": True}, {"layer_norm": True, "n_output": 5, "time_major": True},
    {"peephole": True, "n_output": 3, "batch": 3}, {"peephole": True, "n_output": 6, "time_major": True},
    {"batch": 1, "steps": 1}, {"batch": 3, "steps": 7, "n_input": 10, "n_cell": 16},
    {"activation": 1}, {"activation": 3, "cell_clip": 2.0}, {"activation": 1, "n_output": 2},
    {"activation": 0}, {"activation": 0, "cifg": True, "n_output": 3},  # NONE: TFLite's h is o * g, not o * c
]


@pytest.mark.parametrize("asymmetric", [False, True], ids=["symmetric", "asymmetric"])
@pytest.mark.parametrize("kwargs", VARIANTS, ids=lambda k: ",".join(f"{a}={b}" for a, b in k.items()) or "plain")
def test_hybrid_lstm_matches_litert_across_invokes(kwargs, asymmetric):
    theirs, ours = litert_and_rillet(HybridSpec(asymmetric=asymmetric, **kwargs))
    assert_close(theirs, ours)
    assert len(np.unique(ours[1])) > ours[1].size // 2  # a real sequence of outputs, not a constant


def test_per_channel_weights_count_as_zero_as_in_litert():
    """TFLite's hybrid LSTM reads a weight tensor's legacy single scale, 0 when the tensor has one per channel:
    LiteRT runs the forget gate's input weights as zeros, and rillet gives LiteRT's results."""
    theirs, ours = litert_and_rillet(HybridSpec(per_channel=True, n_cell=6))
    assert_close(theirs, ours)
    per_tensor = litert_and_rillet(HybridSpec(n_cell=6))[0]
    assert not np.allclose(per_tensor[0], theirs[0], rtol=1e-3)


def test_asymmetric_quantization_is_not_symmetric():
    """The option changes LiteRT's results, and rillet's with them (it is read, not ignored)."""
    spec = HybridSpec(n_cell=8, n_input=6, steps=6)
    sym = litert_and_rillet(spec)
    asym = litert_and_rillet(HybridSpec(n_cell=8, n_input=6, steps=6, asymmetric=True))
    assert not np.allclose(sym[0][1], asym[0][1], rtol=1e-5, atol=1e-6)
    assert_close(sym[0], sym[1])
    assert_close(asym[0], asym[1])


def test_state_carries_over_and_reset_all_variables_starts_again():
    spec = HybridSpec(layer_norm=True, n_output=3, peephole=True)
    theirs, ours = litert_and_rillet(spec, invokes=4, reset_after=2)
    assert_close(theirs, ours)
    content, feeds = hybrid_model(spec), float_feeds(spec, 4)
    fresh = run_invokes(Interpreter, content, feeds[1:2])[0]
    assert not np.allclose(ours[1], fresh)  # invoke 1 continued from invoke 0's state
    after_reset = run_invokes(Interpreter, content, [feeds[0], feeds[1], feeds[0]], reset_after=2)[2]
    np.testing.assert_array_equal(after_reset, ours[0])


@pytest.mark.parametrize("asymmetric", [False, True])
def test_litert_runs_the_builtin_kernel_not_xnnpack(asymmetric):
    """The default Interpreter gives the builtin kernel's results (XNNPACK does not take the op)."""
    from ai_edge_litert.interpreter import Interpreter as LiteRT
    from ai_edge_litert.interpreter import OpResolverType

    spec = HybridSpec(layer_norm=True, n_output=3, asymmetric=asymmetric)
    content, feeds = hybrid_model(spec), float_feeds(spec, 2)
    builtin = run_invokes(LiteRT, content, feeds,
                          experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    for a, b in zip(run_invokes(LiteRT, content, feeds), builtin):
        np.testing.assert_array_equal(a, b)


def random_spec(seed: int) -> HybridSpec:
    rng = np.random.default_rng(2000 + seed)
    n_cell = int(rng.integers(1, 21))
    projection = bool(rng.random() < 0.3)
    return HybridSpec(
        batch=int(rng.integers(1, 4)), steps=int(rng.integers(1, 7)), n_input=int(rng.integers(1, 13)),
        n_cell=n_cell, n_output=int(rng.integers(1, 12)) if projection else None, projection=projection,
        time_major=bool(rng.random() < 0.5), cifg=bool(rng.random() < 0.3), peephole=bool(rng.random() < 0.3),
        layer_norm=bool(rng.random() < 0.4), cell_clip=float(rng.choice([0.0, 0.25, 3.0])),
        proj_clip=float(rng.choice([0.0, 0.2])) if projection else 0.0, asymmetric=bool(rng.random() < 0.5),
        weight_scale=float(rng.uniform(0.05, 2.0)) / 127, seed=seed)


@pytest.mark.parametrize("seed", range(30))
def test_hybrid_lstm_matches_litert_on_random_specs(seed):
    theirs, ours = litert_and_rillet(random_spec(seed))
    assert_close(theirs, ours)


@pytest.mark.parametrize("kwargs, words", [
    ({"dtypes": {13: np.int8}}, "input 13 is int8, a hybrid LSTM"),
    ({"dtypes": {6: np.float32}}, "input 6 is float32"),
    ({"dtypes": {16: np.int32}, "n_output": 3}, "input 16 is int32"),
    ({"dtypes": {19: np.int8}}, "float32 output state, cell state"),
    ({"drop": {2}}, "the forget gate needs"),
    ({"drop": {18}}, "state tensors"),
    ({"drop": {5}}, "the input gate needs"),
    ({"drop": {1}}, "CIFG (no input gate weights) yet"),
    ({"peephole": True, "drop": {10}}, "peephole weights"),
    ({"layer_norm": True, "drop": {22}}, "layer norm coefficients 22"),
    ({"drop": {16}, "n_output": 3}, "a projection bias without projection weights"),
    ({"n_input": 0}, "each must be at least 1"),
])
def test_malformed_hybrid_lstm_is_a_clear_error(kwargs, words):
    content = hybrid_model(HybridSpec(**kwargs))
    with pytest.raises(Exception) as info:
        it = Interpreter(model_content=content)
        it.allocate_tensors()
    message = str(info.value)
    assert "UNIDIRECTIONAL_SEQUENCE_LSTM" in message and words in message, message


@pytest.mark.parametrize("slot, shape, words", [
    (3, [2, 3], "input 3 must be [4, 3]"), (13, [2], "input 13 must be [4]"), (7, [4, 2], "input 7 must be [4, 4]"),
])
def test_float_lstm_with_a_weight_of_the_wrong_shape_is_an_error(slot, shape, words):
    """lstm.c's float path checks every weight's and bias's shape too (the step reads n_cell rows of each: a
    smaller tensor was read past its end)."""
    from test_lstm import lstm_model

    from rillet.converter.format import load

    model = load(lstm_model())
    t = model.subgraphs[0].tensors[model.subgraphs[0].operators[0].inputs[slot]]
    t.shape = shape
    model.buffers[t.buffer].data = np.zeros(int(np.prod(shape)), np.float32).view(np.uint8)
    with pytest.raises(Exception) as info:
        it = Interpreter(model_content=save(model))
        it.allocate_tensors()
    message = str(info.value)
    assert "UNIDIRECTIONAL_SEQUENCE_LSTM" in message and words in message, message
