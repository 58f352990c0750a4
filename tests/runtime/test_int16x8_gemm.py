"""TFLite's 16x8 mode (int16 activations with zero point 0, int8 weights, int64 biases) on CONV_2D,
DEPTHWISE_CONV_2D, FULLY_CONNECTED and TRANSPOSE_CONV: rillet gives LiteRT's default Interpreter's bits on every
kernel path this CPU runs (RILLET_ISA) at 1 and 2 threads, on the converter's own files (tests/data/int16x8,
made by bench/make_int16x8_models.py) and on single-op models around the kernels' tile edges, with sums past
2^31, exact ties, per-tensor and per-channel weights, and each of LiteRT's three requantizations
(native/kernels/qs16_gemm.h)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from single_op import OPTIONS_TYPES, Const, Input, Quant, litert_default, op_model, run
from test_kernel_paths import PATHS

pytest.importorskip("ai_edge_litert")

DATA = Path(__file__).resolve().parents[1] / "data" / "int16x8"
FIXTURES = sorted(p.stem for p in DATA.glob("*.tflite"))
I16, I8 = np.int16, np.int8
OPTIONS_TYPES.setdefault("TRANSPOSE_CONV", "TransposeConvOptions")
SAME, VALID = 0, 1
NONE, RELU, RELU_N1_TO_1, RELU6 = 0, 1, 2, 3


def rillet_on_every_path(content: bytes, feeds, monkeypatch) -> dict[tuple[str, int], np.ndarray]:
    from rillet.runtime import Interpreter

    got = {}
    for isa in PATHS:
        monkeypatch.setenv("RILLET_ISA", isa)
        for threads in (1, 2):
            got[isa, threads] = run(Interpreter, content, feeds, num_threads=threads)[0]
    return got


def assert_litert_bits_everywhere(content: bytes, feeds, monkeypatch) -> None:
    (expected,) = litert_default(content, feeds)
    for (isa, threads), got in rillet_on_every_path(content, feeds, monkeypatch).items():
        assert got.dtype == expected.dtype and got.shape == expected.shape, (isa, got.shape, expected.shape)
        assert got.tobytes() == expected.tobytes(), \
            (isa, threads, int(np.count_nonzero(got != expected)), int(np.abs(got.astype(int) - expected).max()))


def test_fixtures_are_present():
    assert {"dense_2d", "dense_3d", "dense_no_bias", "conv_same_stride", "conv_valid_dilated", "depthwise",
            "transpose_conv"} <= set(FIXTURES)
    assert sum(p.stat().st_size for p in DATA.iterdir()) < 200_000


@pytest.mark.parametrize("name", FIXTURES)
def test_converter_fixture(name, monkeypatch):
    """The converter's 16x8 file: LiteRT still gives the stored outputs, and rillet gives them everywhere."""
    content = (DATA / f"{name}.tflite").read_bytes()
    data = np.load(DATA / f"{name}.npz")
    (litert,) = litert_default(content, [data["x"]])
    assert litert.tobytes() == data["y"].tobytes(), "LiteRT's 16x8 outputs changed"
    for (isa, threads), got in rillet_on_every_path(content, [data["x"]], monkeypatch).items():
        assert got.tobytes() == data["y"].tobytes(), (isa, threads, int(np.count_nonzero(got != data["y"])))
    # random inputs over the whole int16 range, where the stored ones are a calibrated few thousand
    x = np.random.default_rng(len(name)).integers(-32768, 32768, data["x"].shape).astype(I16)
    assert_litert_bits_everywhere(content, [x], monkeypatch)


def scales(rng, channels: int, depth: int, ties: bool, per_channel: bool = True):
    """Input, filter and output scales: outputs spread over int16 or, with ties, powers of two that make
    exact halves (each rounding's tie rule shows)."""
    if ties:
        sx = np.float32(2.0**-10)
        sw = (2.0 ** -rng.integers(5, 8, channels)).astype(np.float32) if per_channel else np.float32(2.0**-6)
        return sx, sw, np.float32(sx * 2.0**-6 * 2.0**9)
    sx = np.float32(rng.uniform(1e-4, 1e-3))
    sw = rng.uniform(1e-3, 1e-2, channels).astype(np.float32) if per_channel else np.float32(rng.uniform(1e-3, 1e-2))
    so = np.float32(sx * float(np.mean(sw)) * 1.4e6 * np.sqrt(depth) / 6000)
    return sx, sw, so


INT32_TYPE, INT64_TYPE = 2, 4  # TensorType codes, as FullyConnectedOptions.quantized_bias_type names them
BIAS_TYPE_OPTION = {"none_int64": INT64_TYPE, "int64_typed": INT64_TYPE, "int32_typed": INT32_TYPE}


def bias_const(rng, kind: str, sx, sw, channels: int):
    """kind: none, int32 or int64, each optionally _typed (quantized_bias_type said too); none_int64: no bias
    and quantized_bias_type int64, as TensorFlow's converter writes a bias-less 16x8 layer."""
    if kind.startswith("none"):
        return None
    dtype = np.int64 if kind.startswith("int64") else np.int32
    return Const(rng.integers(-3_000_000, 3_000_000, channels).astype(dtype),
                 Quant(np.float32(sx) * np.broadcast_to(sw, (channels,)).astype(np.float32), 0))


def activations(rng, shape, big: bool = False) -> np.ndarray:
    if big:  # one sign per row: sums grow past 2^31
        return (rng.integers(30000, 32768, shape) * rng.choice([-1, 1], (*shape[:-1], 1))).astype(I16)
    return rng.integers(-32768, 32768, shape).astype(I16)


FC_CASES = [  # rows (or a 3-D shape), depth, units, bias, per_channel, activation, ties, big
    (1, 37, 19, "int64", True, NONE, False, False), (3, 33, 17, "int64", True, RELU, False, False),
    (5, 8, 9, "int64", False, RELU6, False, False), (9, 257, 8, "int64", True, NONE, False, True),
    (4, 300, 16, "int64", False, NONE, False, True), (7, 16, 33, "int64", True, RELU_N1_TO_1, False, False),
    (2, 40, 7, "none", True, NONE, False, False), (6, 301, 9, "none", False, NONE, False, True),
    (4, 24, 5, "int32", True, RELU, False, False), (3, 33, 12, "int32", False, NONE, False, False),
    ((2, 5, 24), 24, 13, "int64", True, NONE, False, False), ((1, 3, 4, 9), 9, 11, "none", True, RELU, False, False),
    (64, 20, 8, "int64", True, NONE, True, False), (64, 20, 8, "none", True, NONE, True, False),
    (64, 20, 8, "int32", False, NONE, True, False), (1, 1, 1, "int64", True, NONE, False, False),
    # no bias but quantized_bias_type int64: LiteRT's reference kernel (one rounding), not ruy's two
    (64, 20, 8, "none_int64", True, NONE, True, False), (6, 301, 9, "none_int64", False, NONE, False, True),
    ((2, 17, 24), 24, 24, "none_int64", True, RELU, False, False), (5, 33, 12, "int64_typed", True, NONE, True, False),
    (64, 20, 8, "int32_typed", True, NONE, True, False),
]


def fc_model(rng, rows, depth, units, bias, per_channel, act, ties, big):
    shape = rows if isinstance(rows, tuple) else (rows, depth)
    sx, sw, so = scales(rng, units, depth, ties, per_channel)
    w = rng.integers(-127, 128, (units, depth)).astype(I8)
    if big:
        w = np.abs(w) | 64
    out_shape = (*shape[:-1], units) if isinstance(rows, tuple) else (rows, units)
    if big:
        so = np.float32(so * 40)
    model = op_model("FULLY_CONNECTED", [Input(shape, I16, Quant(sx, 0)), Const(w, Quant(sw, 0)),
                                         bias_const(rng, bias, sx, sw, units)],
                     [(out_shape, I16, Quant(so, 0))],
                     {"fused_activation_function": act, "keep_num_dims": isinstance(rows, tuple),
                      "quantized_bias_type": BIAS_TYPE_OPTION.get(bias, 0)}, version=11)
    return model, [activations(rng, shape, big)]


@pytest.mark.parametrize("case", FC_CASES, ids=[f"fc{i}" for i in range(len(FC_CASES))])
def test_fully_connected(case, monkeypatch):
    model, feeds = fc_model(np.random.default_rng(FC_CASES.index(case)), *case)
    assert_litert_bits_everywhere(model, feeds, monkeypatch)


CONV_CASES = [  # n, h, w, cin, cout, (kh, kw), stride, dilation, padding, activation, ties, big
    (1, 5, 5, 3, 16, (3, 3), 1, 1, SAME, NONE, False, False), (1, 7, 6, 8, 17, (3, 3), 2, 1, SAME, RELU, False, False),
    (2, 4, 5, 5, 9, (1, 1), 1, 1, VALID, RELU6, False, False), (1, 9, 9, 16, 33, (3, 2), 1, 2, VALID, NONE, False, False),
    (1, 6, 7, 33, 8, (1, 1), 2, 1, SAME, NONE, True, False), (1, 8, 8, 7, 31, (5, 5), 1, 1, SAME, RELU, False, False),
    (1, 6, 6, 64, 4, (3, 3), 1, 1, VALID, NONE, False, True), (1, 3, 3, 1, 1, (1, 1), 1, 1, VALID, NONE, False, False),
    (1, 10, 9, 4, 7, (3, 3), (2, 1), (1, 3), SAME, RELU_N1_TO_1, False, False),
]


def conv_model(rng, n, h, w, cin, cout, k, stride, dilation, padding, act, ties, big, depthwise=False, mult=1):
    (kh, kw), (sh, sw_), (dh, dw) = k, np.broadcast_to(stride, 2), np.broadcast_to(dilation, 2)
    sx, sw, so = scales(rng, cout, kh * kw * (1 if depthwise else cin), ties)
    if big:
        so = np.float32(so * 30)
    if depthwise:
        filt = rng.integers(-127, 128, (1, kh, kw, cout)).astype(I8)
        fq = Quant(sw, 0, 3)
    else:
        filt = rng.integers(-127, 128, (cout, kh, kw, cin)).astype(I8)
        fq = Quant(sw, 0, 0)
    if big:
        filt = np.abs(filt) | 64
    options = {"padding": padding, "stride_h": int(sh), "stride_w": int(sw_), "dilation_h_factor": int(dh),
               "dilation_w_factor": int(dw), "fused_activation_function": act}
    if depthwise:
        options["depth_multiplier"] = mult
    model = op_model("DEPTHWISE_CONV_2D" if depthwise else "CONV_2D",
                     [Input((n, h, w, cin), I16, Quant(sx, 0)), Const(filt, fq), bias_const(rng, "int64", sx, sw, cout)],
                     [((n, 1, 1, cout), I16, Quant(so, 0))], options, version=5)
    return model, [activations(rng, (n, h, w, cin), big)]


@pytest.mark.parametrize("case", CONV_CASES, ids=[f"conv{i}" for i in range(len(CONV_CASES))])
def test_conv2d(case, monkeypatch):
    model, feeds = conv_model(np.random.default_rng(100 + CONV_CASES.index(case)), *case)
    assert_litert_bits_everywhere(model, feeds, monkeypatch)


DW_CASES = [  # n, h, w, channels, multiplier, (kh, kw), stride, dilation, padding, activation, ties, big
    (1, 6, 6, 16, 1, (3, 3), 1, 1, SAME, NONE, False, False), (1, 7, 5, 17, 1, (3, 3), 2, 1, SAME, RELU6, False, False),
    (2, 5, 5, 3, 2, (5, 5), 1, 1, VALID, RELU, False, False), (1, 9, 9, 5, 3, (3, 3), 2, 2, SAME, NONE, True, False),
    (1, 8, 8, 4, 1, (3, 3), 1, 1, VALID, NONE, False, True), (1, 4, 4, 1, 1, (1, 1), 1, 1, VALID, NONE, False, False),
]


@pytest.mark.parametrize("case", DW_CASES, ids=[f"dw{i}" for i in range(len(DW_CASES))])
def test_depthwise_conv2d(case, monkeypatch):
    n, h, w, c, mult, k, stride, dilation, padding, act, ties, big = case
    model, feeds = conv_model(np.random.default_rng(200 + DW_CASES.index(case)), n, h, w, c, c * mult, k, stride,
                              dilation, padding, act, ties, big, depthwise=True, mult=mult)
    assert_litert_bits_everywhere(model, feeds, monkeypatch)


TCONV_CASES = [  # n, (h, w), (cin, cout), (kh, kw), stride, padding, bias, ties
    (1, (5, 5), (3, 4), (3, 3), 2, SAME, "int64", False), (2, (4, 3), (5, 6), (3, 3), 1, VALID, "none", False),
    (1, (7, 7), (8, 16), (4, 4), 2, SAME, "int64", True), (2, (3, 5), (7, 3), (2, 3), 2, VALID, "none", True),
    (1, (1, 1), (1, 1), (1, 1), 1, SAME, "int64", False),
]


@pytest.mark.parametrize("case", TCONV_CASES, ids=[f"tconv{i}" for i in range(len(TCONV_CASES))])
def test_transpose_conv(case, monkeypatch):
    n, (h, w), (cin, cout), (kh, kw), stride, padding, bias, ties = case
    rng = np.random.default_rng(300 + TCONV_CASES.index(case))
    oh = h * stride if padding == SAME else (h - 1) * stride + kh
    ow = w * stride if padding == SAME else (w - 1) * stride + kw
    sx, sw, so = scales(rng, cout, kh * kw * cin, ties)
    inputs = [np.array([n, oh, ow, cout], np.int32), Const(rng.integers(-127, 128, (cout, kh, kw, cin)).astype(I8),
                                                           Quant(sw, 0, 0)),
              Input((n, h, w, cin), I16, Quant(sx, 0))]
    b = bias_const(rng, bias, sx, sw, cout)
    if b is not None:
        inputs.append(b)
    model = op_model("TRANSPOSE_CONV", inputs, [((n, oh, ow, cout), I16, Quant(so, 0))],
                     {"padding": padding, "stride_h": stride, "stride_w": stride}, version=3)
    assert_litert_bits_everywhere(model, [activations(rng, (n, h, w, cin))], monkeypatch)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.integers(1, 11), depth=st.integers(1, 300), units=st.integers(1, 20),
       bias=st.sampled_from(["int64", "int32", "none", "none_int64"]), per_channel=st.booleans(),
       act=st.sampled_from([NONE, RELU, RELU6]), ties=st.booleans(), seed=st.integers(0, 2**16))
def test_fully_connected_random(rows, depth, units, bias, per_channel, act, ties, seed, monkeypatch):
    model, feeds = fc_model(np.random.default_rng(seed), rows, depth, units, bias, per_channel, act, ties, False)
    assert_litert_bits_everywhere(model, feeds, monkeypatch)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hw=st.tuples(st.integers(1, 9), st.integers(1, 9)), cin=st.integers(1, 20), cout=st.integers(1, 20),
       k=st.tuples(st.integers(1, 3), st.integers(1, 3)), stride=st.integers(1, 2), dilation=st.integers(1, 2),
       padding=st.sampled_from([SAME, VALID]), depthwise=st.booleans(), seed=st.integers(0, 2**16))
def test_conv_random(hw, cin, cout, k, stride, dilation, padding, depthwise, seed, monkeypatch):
    h, w = hw
    if padding == VALID and (h < (k[0] - 1) * dilation + 1 or w < (k[1] - 1) * dilation + 1):
        padding = SAME
    mult = 1 + cout % 2
    model, feeds = conv_model(np.random.default_rng(seed), 1, h, w, cin, cin * mult if depthwise else cout, k, stride,
                              dilation, padding, NONE, False, False, depthwise=depthwise, mult=mult)
    assert_litert_bits_everywhere(model, feeds, monkeypatch)


def test_refusals_name_the_problem():
    """What LiteRT's 16x8 kernels do not define, or what rillet does not match, is refused at load."""
    from rillet.runtime import Interpreter, UnsupportedOpsError

    rng = np.random.default_rng(0)
    w = Const(rng.integers(-127, 128, (4, 3, 3, 2)).astype(I8), Quant(np.full(4, 0.01, np.float32), 0, 0))
    conv32 = op_model("CONV_2D", [Input((1, 5, 5, 2), I16, Quant(0.001, 0)), w,
                                  Const(np.zeros(4, np.int32), Quant(np.full(4, 1e-5, np.float32), 0))],
                      [((1, 3, 3, 4), I16, Quant(0.01, 0))], {"padding": VALID, "stride_h": 1, "stride_w": 1}, version=5)
    with pytest.raises(UnsupportedOpsError, match="int32 bias"):
        Interpreter(model_content=conv32).allocate_tensors()
    zp = op_model("FULLY_CONNECTED", [Input((2, 3), I16, Quant(0.001, 5)),
                                      Const(np.ones((4, 3), I8), Quant(0.01, 0)), None],
                  [((2, 4), I16, Quant(0.01, 0))], {}, version=11)
    with pytest.raises(UnsupportedOpsError, match="zero point 5"):
        Interpreter(model_content=zp).allocate_tensors()
    # LiteRT 2.3 refuses a quantized_bias_type the bias does not have, and one that is neither int32 nor int64
    for bias, bias_type, message in ((np.int32, INT64_TYPE, "int32 bias but quantized_bias_type int64"),
                                     (np.int64, INT32_TYPE, "int64 bias but quantized_bias_type int32"),
                                     (None, 7, "quantized_bias_type is int16")):
        b = None if bias is None else Const(np.zeros(4, bias), Quant(np.full(4, 1e-5, np.float32), 0))
        typed = op_model("FULLY_CONNECTED", [Input((2, 3), I16, Quant(0.001, 0)),
                                             Const(np.ones((4, 3), I8), Quant(0.01, 0)), b],
                         [((2, 4), I16, Quant(0.01, 0))], {"quantized_bias_type": bias_type}, version=11)
        with pytest.raises(RuntimeError):
            litert_default(typed, [np.zeros((2, 3), I16)])
        with pytest.raises(UnsupportedOpsError, match=message):
            Interpreter(model_content=typed).allocate_tensors()


@pytest.mark.parametrize("bias", ["int64", "int32", "none"])
@pytest.mark.parametrize("real", [1.7, 169.0, 5000.0, 3e6])
def test_fully_connected_scales_above_one(bias, real, monkeypatch):
    """Requantization scales past 1 (and past TFLite's nominal 2^7): small sums that land inside int16, and, at
    3e6, products past int32 that LiteRT's reference kernel (int64 bias) casts to INT32_MIN."""
    rng = np.random.default_rng(int(real) + len(bias))
    sx, sw = np.float32(1e-3), rng.uniform(1e-3, 1e-2, 9).astype(np.float32)
    so = np.float32(sx * sw.mean() / real)
    b = None if bias == "none" else Const(rng.integers(-3, 3, 9).astype(np.int64 if bias == "int64" else np.int32),
                                          Quant(sx * sw, 0))
    model = op_model("FULLY_CONNECTED", [Input((200, 6), I16, Quant(sx, 0)),
                                         Const(rng.integers(-127, 128, (9, 6)).astype(I8), Quant(sw, 0)), b],
                     [((200, 9), I16, Quant(so, 0))], {}, version=11)
    assert_litert_bits_everywhere(model, [rng.integers(-3, 3, (200, 6)).astype(I16)], monkeypatch)


@pytest.mark.parametrize("real", [1.7, 5000.0, 40000.0])
def test_conv_scales_above_one(real, monkeypatch):
    """CONV_2D's 16-bit-rounded multiplier shifts right by 15 - shift: scales up to 2^14 give LiteRT's bits,
    larger ones (where LiteRT's shift is undefined) are refused."""
    from rillet.runtime import Interpreter, UnsupportedOpsError

    rng = np.random.default_rng(int(real))
    sx, sw = np.float32(1e-3), rng.uniform(1e-3, 1e-2, 9).astype(np.float32)
    so = np.float32(sx * sw.mean() / real)
    model = op_model("CONV_2D", [Input((1, 1, 200, 6), I16, Quant(sx, 0)),
                                 Const(rng.integers(-127, 128, (9, 1, 1, 6)).astype(I8), Quant(sw, 0)),
                                 Const(rng.integers(-3, 3, 9).astype(np.int64), Quant(sx * sw, 0))],
                     [((1, 1, 200, 9), I16, Quant(so, 0))], {"padding": VALID, "stride_h": 1, "stride_w": 1},
                     version=5)
    x = rng.integers(-3, 3, (1, 1, 200, 6)).astype(I16)
    if real < 2**14:
        assert_litert_bits_everywhere(model, [x], monkeypatch)
    else:
        with pytest.raises(UnsupportedOpsError, match=r"2\^14 or more"):
            Interpreter(model_content=model).allocate_tensors()
