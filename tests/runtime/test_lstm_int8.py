"""int8 UNIDIRECTIONAL_SEQUENCE_LSTM (TFLite's integer LSTM) against LiteRT's default Interpreter, bit for bit,
over several invokes (the state carries over) and reset_all_variables: files as TFLite's quantizer writes
them (int8 input, output state and weights, int16 cell state, peepholes and layer norm coefficients, int32
biases, five intermediates carrying the gates' and the hidden state's quantization), built here with the
format layer, over the variants (CIFG, peepholes, projection with clipping, layer norm), batch- and
time-major, sizes and scales."""

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

TYPES = {np.dtype(np.float32): 0, np.dtype(np.int32): 2, np.dtype(np.int16): 7, np.dtype(np.int8): 9}


@dataclass
class LstmSpec:
    """One int8 LSTM's shape, variant and quantization (scales as floats, zero points as ints)."""

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
    input_q: tuple[float, int] = (1 / 64, 3)
    state_q: tuple[float, int] = (1 / 128, -2)  # the output state's and the output's
    cell_exponent: int = -11
    hidden_q: tuple[float, int] | None = (1 / 128, -2)  # intermediate 4 (None: left unquantized)
    gate_scales: tuple[float, ...] = (2 ** -12,) * 4  # intermediates 0-3 (used with layer norm)
    weight_scale: float = 0.5 / 127
    seed: int = 0
    drop: set[int] = field(default_factory=set)  # input slots to leave out (malformed files)
    n_intermediates: int = 5
    dtypes: dict[int, object] = field(default_factory=dict)  # input slot -> dtype override (malformed files)


def lstm_int8_model(spec: LstmSpec) -> bytes:
    s = spec
    n_output = s.n_output or s.n_cell
    projection = s.projection or n_output != s.n_cell
    rng = np.random.default_rng(s.seed)
    buffers = [Buffer(data=None)]
    tensors: list[Tensor] = []

    def add(shape, dtype, value=None, q=None, variable=False, name=None) -> int:
        buffer = 0
        if value is not None:
            buffer = len(buffers)
            buffers.append(Buffer(data=np.frombuffer(np.ascontiguousarray(value, dtype).tobytes(), np.uint8)))
        quant = None if q is None else QuantizationParameters(scale=[float(q[0])], zero_point=[int(q[1])])
        tensors.append(Tensor(shape=list(shape), type=TYPES[np.dtype(dtype)], buffer=buffer, is_variable=variable,
                              name=name or f"t{len(tensors)}", quantization=quant))
        return len(tensors) - 1

    def weights(slot, rows, cols):
        dtype = s.dtypes.get(slot, np.int8)
        return add([rows, cols], dtype, rng.integers(-127, 128, (rows, cols)), (s.weight_scale, 0))

    def int32_vector(slot, n, scale, spread):
        dtype = s.dtypes.get(slot, np.int32)
        return add([n], dtype, rng.integers(-spread, spread + 1, n), (scale, 0))

    def int16_vector(slot, n, scale, low, high):
        return add([n], s.dtypes.get(slot, np.int16), rng.integers(low, high, n), (scale, 0))

    x_shape = [s.steps, s.batch, s.n_input] if s.time_major else [s.batch, s.steps, s.n_input]
    x = add(x_shape, np.int8, q=s.input_q, name="x")
    gates = range(4)
    skip_input_gate = s.cifg
    w_x = [-1 if (skip_input_gate and g == 0) else weights(1 + g, s.n_cell, s.n_input) for g in gates]
    w_h = [-1 if (skip_input_gate and g == 0) else weights(5 + g, s.n_cell, n_output) for g in gates]
    peep = [int16_vector(9 + k, s.n_cell, 2 ** -10, -1024, 1024) if s.peephole and not (s.cifg and k == 0) else -1
            for k in range(3)]
    # the gate biases: in the input sum's units, or (layer norm) in the normalized gate's 2^-10 of its scale
    bias_scale = s.weight_scale * s.input_q[0]
    bias = [-1 if (skip_input_gate and g == 0) else int32_vector(12 + g, s.n_cell, bias_scale, 3000 if not s.layer_norm else 600)
            for g in gates]
    proj = weights(16, n_output, s.n_cell) if projection else -1
    proj_b = int32_vector(17, n_output, s.weight_scale / 128, 400) if projection else -1
    h = add([s.batch, n_output], np.int8, q=s.state_q, variable=True, name="h")
    c = add([s.batch, s.n_cell], s.dtypes.get(19, np.int16), q=(2.0 ** s.cell_exponent, 0), variable=True, name="c")
    norms = [int16_vector(20 + g, s.n_cell, 1 / 1024, 512, 2048) if s.layer_norm and not (s.cifg and g == 0) else -1
             for g in gates]
    y = add([*x_shape[:2], n_output], np.int8, q=s.state_q, name="y")
    inputs = [x, *w_x, *w_h, *peep, *bias, proj, proj_b, h, c, *norms]
    inputs = [-1 if k in s.drop else t for k, t in enumerate(inputs)]
    intermediates = [add([], np.int16, q=(scale, 0), name=f"gate{k}") for k, scale in enumerate(s.gate_scales)]
    intermediates.append(add([], np.int8, q=s.hidden_q, name="hidden"))

    options = Options("UnidirectionalSequenceLSTMOptions", fused_activation_function=4, cell_clip=s.cell_clip,
                      proj_clip=s.proj_clip, time_major=s.time_major, asymmetric_quantize_inputs=False,
                      diagonal_recurrent_tensors=False)
    code = BUILTIN_CODES["UNIDIRECTIONAL_SEQUENCE_LSTM"]
    op = Operator(opcode_index=0, inputs=inputs, outputs=[y], builtin_options=options,
                  intermediates=intermediates[:s.n_intermediates])
    return save(ModelFile(
        operator_codes=[OperatorCode(deprecated_builtin_code=code, builtin_code=code, version=3)], buffers=buffers,
        subgraphs=[SubGraph(tensors=tensors, inputs=[x], outputs=[y], name="main", operators=[op])]))


def int8_feeds(spec: LstmSpec, count: int, seed: int = 1) -> list[np.ndarray]:
    shape = (spec.steps, spec.batch, spec.n_input) if spec.time_major else (spec.batch, spec.steps, spec.n_input)
    rng = np.random.default_rng(seed)
    return [rng.integers(-128, 128, shape).astype(np.int8) for _ in range(count)]


def litert_and_rillet(spec: LstmSpec, invokes: int = 3, reset_after: int = -1):
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    content = lstm_int8_model(spec)
    feeds = int8_feeds(spec, invokes)
    return run_invokes(LiteRT, content, feeds, reset_after), run_invokes(Interpreter, content, feeds, reset_after)


def assert_same_bits(theirs: list[np.ndarray], ours: list[np.ndarray]) -> None:
    for k, (t, o) in enumerate(zip(theirs, ours)):
        assert o.dtype == np.int8 and o.shape == t.shape
        assert (o == t).all(), f"invoke {k}: {np.count_nonzero(o != t)} of {o.size} differ"


VARIANTS = [
    {}, {"time_major": True}, {"cifg": True}, {"peephole": True}, {"layer_norm": True},
    {"n_output": 3}, {"n_output": 6, "proj_clip": 0.3}, {"projection": True},
    {"cell_clip": 0.5}, {"cifg": True, "peephole": True, "layer_norm": True},
    {"layer_norm": True, "n_output": 5, "time_major": True}, {"peephole": True, "cifg": True, "cell_clip": 1.0},
    {"batch": 1, "steps": 1}, {"batch": 3, "steps": 7, "n_input": 10, "n_cell": 16},
    {"peephole": True, "n_output": 3, "batch": 3},  # TFLite's peephole over n_output values a call, kept
    {"peephole": True, "n_output": 3, "batch": 3, "time_major": True},  # ... across rows when time-major
    {"peephole": True, "cifg": True, "layer_norm": True, "n_output": 2, "n_cell": 5},
    {"batch": 1, "steps": 9, "n_input": 1, "n_cell": 8, "layer_norm": True, "time_major": True},
]


@pytest.mark.parametrize("kwargs", VARIANTS, ids=lambda k: ",".join(f"{a}={b}" for a, b in k.items()) or "plain")
def test_int8_lstm_matches_litert_across_invokes(kwargs):
    theirs, ours = litert_and_rillet(LstmSpec(**kwargs))
    assert_same_bits(theirs, ours)
    assert len(np.unique(ours[1])) > min(8, ours[1].size // 2)  # a real sequence of outputs, not a saturated constant


SCALES = [
    {"input_q": (0.05, -20), "state_q": (0.02, 10), "hidden_q": (0.02, 10)},
    {"input_q": (1 / 256, 0), "state_q": (1 / 256, 0), "hidden_q": (1 / 256, 0), "cell_exponent": -15},
    {"cell_exponent": -9, "weight_scale": 2 / 127},
    {"cell_exponent": -13, "hidden_q": (0.01, 5), "n_output": 3},  # the hidden zero point through the projection
    {"layer_norm": True, "gate_scales": (2 ** -11, 3e-4, 1e-4, 2 ** -12), "n_cell": 32},
    {"weight_scale": 8 / 127, "seed": 3},  # gates driven into saturation
    {"input_q": (0.1, 127), "state_q": (0.003, -128), "hidden_q": (0.003, -128), "seed": 5},
]


@pytest.mark.parametrize("kwargs", SCALES)
def test_int8_lstm_matches_litert_over_scales_and_zero_points(kwargs):
    theirs, ours = litert_and_rillet(LstmSpec(**kwargs))
    assert_same_bits(theirs, ours)


def test_state_carries_over_and_reset_all_variables_starts_again():
    spec = LstmSpec(layer_norm=True, n_output=3)
    theirs, ours = litert_and_rillet(spec, invokes=4, reset_after=2)
    assert_same_bits(theirs, ours)
    content, feeds = lstm_int8_model(spec), int8_feeds(spec, 4)
    fresh = run_invokes(Interpreter, content, feeds[1:2])[0]
    assert not (ours[1] == fresh).all()  # invoke 1 continued from invoke 0's state
    after_reset = run_invokes(Interpreter, content, [feeds[0], feeds[1], feeds[0]], reset_after=2)[2]
    assert (after_reset == ours[0]).all()  # after the reset: a fresh start (the output state at its zero point)


def test_litert_runs_the_builtin_kernel_not_xnnpack():
    """The default Interpreter gives the builtin kernel's bits (XNNPACK does not take the op), which rillet follows."""
    from ai_edge_litert.interpreter import Interpreter as LiteRT
    from ai_edge_litert.interpreter import OpResolverType

    spec = LstmSpec(layer_norm=True)
    content, feeds = lstm_int8_model(spec), int8_feeds(spec, 2)
    builtin = run_invokes(LiteRT, content, feeds,
                          experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    assert_same_bits(run_invokes(LiteRT, content, feeds), builtin)


def random_spec(seed: int) -> LstmSpec:
    """Sizes, variant, scales and zero points drawn at random (one cell under layer norm takes the variance
    guard: a row's variance is 0)."""
    rng = np.random.default_rng(1000 + seed)
    n_cell = int(rng.integers(1, 21))
    projection = bool(rng.random() < 0.3)
    peephole = bool(rng.random() < 0.3)
    n_output = int(rng.integers(1, n_cell + 1 if peephole else 12)) if projection else None
    return LstmSpec(
        batch=int(rng.integers(1, 4)), steps=int(rng.integers(1, 7)), n_input=int(rng.integers(1, 13)),
        n_cell=n_cell, n_output=n_output, projection=projection, time_major=bool(rng.random() < 0.5),
        cifg=bool(rng.random() < 0.3), peephole=peephole, layer_norm=bool(rng.random() < 0.5),
        cell_clip=float(rng.choice([0.0, 0.25, 3.0])), proj_clip=float(rng.choice([0.0, 0.2])) if projection else 0.0,
        input_q=(float(rng.uniform(0.002, 0.1)), int(rng.integers(-128, 128))),
        state_q=(s := float(rng.uniform(0.002, 0.05)), zp := int(rng.integers(-128, 128))),
        hidden_q=(s, zp) if not projection else (float(rng.uniform(0.002, 0.05)), int(rng.integers(-20, 21))),
        cell_exponent=int(rng.integers(-15, -8)), weight_scale=float(rng.uniform(0.1, 4.0)) / 127,
        gate_scales=tuple(float(v) for v in rng.uniform(2e-5, 1e-3, 4)), seed=seed)


@pytest.mark.parametrize("seed", range(40))
def test_int8_lstm_matches_litert_on_random_specs(seed):
    theirs, ours = litert_and_rillet(random_spec(seed))
    assert_same_bits(theirs, ours)
