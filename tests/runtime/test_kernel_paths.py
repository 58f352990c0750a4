"""Every kernel path this CPU runs (RILLET_ISA) and every thread count give the scalar path's results on
CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED, float32 and int8, on shapes around the micro-kernels' tile
edges; and LiteRT's (int8 bit for bit, float within 1e-5)."""

from __future__ import annotations

import os

import numpy as np
import pytest
from single_op import Const, Input, Quant, op_model, run

from rillet.native import ffi, lib

I8, F32 = np.int8, np.float32
CANDIDATES = ["scalar", "avx2", "avx512", "avx512vnni", "neon", "neondot"]


def path_runs(isa: str) -> bool:
    """Whether this CPU runs the path: a plan created under RILLET_ISA=isa says so (or refuses)."""
    old = os.environ.get("RILLET_ISA")
    os.environ["RILLET_ISA"] = isa
    try:
        out = ffi.new("rl_plan **")
        status = lib.rl_plan_create(out, 1)
        ok = status == lib.RL_OK and ffi.string(lib.rl_plan_isa(out[0])).decode() == isa
        lib.rl_plan_destroy(out[0])
        return ok
    finally:
        if old is None:
            del os.environ["RILLET_ISA"]
        else:
            os.environ["RILLET_ISA"] = old


PATHS = [isa for isa in CANDIDATES if path_runs(isa)]


def rillet_outputs(content: bytes, feeds, isa: str, threads: int, monkeypatch) -> list[np.ndarray]:
    from rillet.runtime import Interpreter

    monkeypatch.setenv("RILLET_ISA", isa)
    return run(Interpreter, content, feeds, num_threads=threads)


def assert_int8_paths_give_scalar_bits(content: bytes, feeds, monkeypatch, threads=(1, 2, 3)) -> None:
    """Every path this CPU runs, at each thread count, gives the scalar path's bits on one thread."""
    (expected,) = rillet_outputs(content, feeds, "scalar", 1, monkeypatch)
    for isa in PATHS:
        for count in threads:
            (got,) = rillet_outputs(content, feeds, isa, count, monkeypatch)
            assert got.tobytes() == expected.tobytes(), (isa, count, np.count_nonzero(got != expected))


def assert_best_path_gives_litert_bits(content: bytes, feeds, monkeypatch) -> None:
    """The CPU's best path on two threads gives LiteRT's bits."""
    pytest.importorskip("ai_edge_litert")
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.runtime import Interpreter

    monkeypatch.delenv("RILLET_ISA", raising=False)
    (expected,) = run(LiteRT, content, feeds)
    (got,) = run(Interpreter, content, feeds, num_threads=2)
    assert got.tobytes() == expected.tobytes(), np.count_nonzero(got != expected)


def conv_case(rng, int8: bool, n, h, w, cin, cout, k, stride, padding, act, depthwise=False):
    shape_w = (1, k, k, cout) if depthwise else (cout, k, k, cin)
    op = "DEPTHWISE_CONV_2D" if depthwise else "CONV_2D"
    options = {"padding": padding, "stride_w": stride, "stride_h": stride, "fused_activation_function": act,
               "dilation_w_factor": 1, "dilation_h_factor": 1}
    if depthwise:
        options["depth_multiplier"] = cout // cin
    if not int8:
        inputs = [Input((n, h, w, cin)), rng.standard_normal(shape_w).astype(F32),
                  rng.standard_normal(cout).astype(F32)]
        return op_model(op, inputs, [((n, 1, 1, cout), F32)], options), [rng.uniform(-1, 1, (n, h, w, cin)).astype(F32)]
    axis = 3 if depthwise else 0
    si, sw = np.float32(0.05), rng.uniform(0.002, 0.02, cout).astype(F32)
    so = np.float32(0.05 * float(sw.mean()) * np.sqrt(k * k * (1 if depthwise else cin)) * 8)
    zi, zo = (int(v) for v in rng.integers(-100, 100, 2))
    inputs = [Input((n, h, w, cin), I8, Quant(si, zi)),
              Const(rng.integers(-127, 128, shape_w).astype(I8), Quant(sw, 0, axis)),
              Const(rng.integers(-3000, 3000, cout).astype(np.int32), Quant(si * sw, 0))]
    model = op_model(op, inputs, [((n, 1, 1, cout), I8, Quant(so, zo))], options, version=3)
    return model, [rng.integers(-128, 128, (n, h, w, cin)).astype(I8)]


def fc_case(rng, int8: bool, rows, depth, units, act):
    if not int8:
        inputs = [Input((rows, depth)), rng.standard_normal((units, depth)).astype(F32),
                  rng.standard_normal(units).astype(F32)]
        model = op_model("FULLY_CONNECTED", inputs, [((rows, units), F32)], {"fused_activation_function": act})
        return model, [rng.uniform(-1, 1, (rows, depth)).astype(F32)]
    si, sw = np.float32(0.05), rng.uniform(0.002, 0.02, units).astype(F32)
    so = np.float32(0.05 * float(sw.mean()) * np.sqrt(depth) * 8)
    zi, zo = (int(v) for v in rng.integers(-100, 100, 2))
    inputs = [Input((rows, depth), I8, Quant(si, zi)),
              Const(rng.integers(-127, 128, (units, depth)).astype(I8), Quant(sw, 0, 0)),
              Const(rng.integers(-3000, 3000, units).astype(np.int32), Quant(si * sw, 0))]
    model = op_model("FULLY_CONNECTED", inputs, [((rows, units), I8, Quant(so, zo))],
                     {"fused_activation_function": act}, version=5)
    return model, [rng.integers(-128, 128, (rows, depth)).astype(I8)]


# Output channels and pixel counts straddle the tiles (4, 8, 16 columns; 2 to 7 rows; 4 to 32 channels).
CONV_CASES = [  # n, h, w, cin, cout, k, stride, padding (0 SAME, 1 VALID), activation
    (1, 5, 5, 3, 16, 3, 1, 0, 0), (1, 7, 6, 8, 17, 3, 2, 0, 1), (2, 4, 5, 5, 15, 1, 1, 0, 3),
    (1, 9, 9, 16, 33, 3, 1, 1, 0), (1, 3, 3, 1, 1, 1, 1, 1, 0), (1, 6, 7, 33, 8, 1, 2, 0, 3),
    (1, 8, 8, 7, 31, 5, 1, 0, 1), (3, 2, 2, 9, 9, 2, 1, 1, 0),
    # 1x1 convolutions of one and two pixels (squeeze-and-excite, a classifier head): int8 runs them on the
    # row-dot kernels, float on the GEMM; three pixels stay on the GEMM
    (1, 1, 1, 40, 37, 1, 1, 0, 3), (2, 1, 1, 24, 17, 1, 1, 1, 1), (1, 1, 2, 33, 8, 1, 1, 0, 0),
    (3, 1, 1, 9, 20, 1, 1, 0, 0),
]
DW_CASES = [  # n, h, w, channels, multiplier, k, stride, padding, activation
    (1, 6, 6, 16, 1, 3, 1, 0, 0), (1, 7, 5, 17, 1, 3, 2, 0, 3), (2, 5, 5, 33, 1, 5, 1, 0, 1),
    (1, 4, 4, 1, 1, 3, 1, 1, 0), (1, 9, 9, 15, 1, 3, 2, 1, 3), (1, 5, 5, 3, 2, 3, 1, 0, 0),
    (1, 3, 8, 48, 1, 3, 1, 0, 3), (1, 4, 4, 31, 1, 1, 1, 0, 0),
    # Rows of 16 output pixels and more share their indirection columns (dwconv_driver.c): stride 1 and 2,
    # SAME and VALID, 3x3 and 5x5, batch 2, and a row just under and at the edge.
    (1, 5, 18, 16, 1, 3, 1, 0, 0), (2, 4, 33, 17, 1, 3, 2, 0, 3), (1, 6, 40, 8, 1, 5, 1, 1, 1),
    (1, 7, 37, 33, 1, 5, 2, 1, 0), (1, 3, 15, 5, 1, 3, 1, 0, 0), (1, 3, 16, 5, 1, 3, 1, 0, 2),
    # Narrow layers (fewer than two wide tiles, not a whole number: the 8-channel AVX2 kernel): MediaPipe's
    # 1x1 and 3x3 on 8 channels, 24 and 12 channels, a 5x5 stride 2, and rows that end mid-pass.
    (1, 4, 20, 8, 1, 1, 1, 0, 0), (1, 5, 18, 24, 1, 3, 1, 0, 1), (1, 6, 17, 12, 1, 5, 2, 0, 3),
    (1, 3, 7, 4, 1, 1, 1, 1, 0), (2, 6, 19, 8, 1, 3, 1, 0, 3),
]
POOL_CASES = [  # op, n, h, w, channels, window, stride, padding, activation
    ("MAX_POOL_2D", 1, 26, 26, 8, 2, 2, 1, 0), ("AVERAGE_POOL_2D", 1, 13, 13, 16, 3, 2, 0, 3),
    ("MAX_POOL_2D", 2, 40, 40, 33, 3, 1, 0, 1), ("AVERAGE_POOL_2D", 1, 48, 48, 17, 2, 1, 0, 0),
    ("AVERAGE_POOL_2D", 1, 9, 9, 5, 9, 1, 1, 0),
]
FC_CASES = [(1, 16, 10, 0), (3, 33, 17, 1), (7, 8, 16, 3), (5, 1, 1, 0), (2, 100, 33, 0)]


def cases():
    for i, c in enumerate(CONV_CASES):
        for int8 in (False, True):
            yield pytest.param("conv", int8, c, id=f"conv{i}-{'int8' if int8 else 'f32'}")
    for i, c in enumerate(DW_CASES):
        for int8 in (False, True):
            yield pytest.param("dw", int8, c, id=f"dw{i}-{'int8' if int8 else 'f32'}")
    for i, c in enumerate(FC_CASES):
        for int8 in (False, True):
            yield pytest.param("fc", int8, c, id=f"fc{i}-{'int8' if int8 else 'f32'}")
    for i, c in enumerate(POOL_CASES):
        for int8 in (False, True):
            yield pytest.param("pool", int8, c, id=f"pool{i}-{'int8' if int8 else 'f32'}")


def pool_case(rng, int8: bool, op, n, h, w, c, k, stride, padding, act):
    options = {"padding": padding, "stride_w": stride, "stride_h": stride, "filter_width": k, "filter_height": k,
               "fused_activation_function": act}
    if not int8:
        model = op_model(op, [Input((n, h, w, c))], [((n, 1, 1, c), F32)], options)
        return model, [rng.uniform(-1, 1, (n, h, w, c)).astype(F32)]
    q = Quant(np.float32(0.05), int(rng.integers(-50, 50)))
    model = op_model(op, [Input((n, h, w, c), I8, q)], [((n, 1, 1, c), I8, q)], options, version=2)
    return model, [rng.integers(-128, 128, (n, h, w, c)).astype(I8)]


def build(kind, int8, case, seed=0):
    rng = np.random.default_rng(seed)
    if kind == "conv":
        return conv_case(rng, int8, *case)
    if kind == "dw":
        n, h, w, c, mult, k, stride, padding, act = case
        return conv_case(rng, int8, n, h, w, c, c * mult, k, stride, padding, act, depthwise=True)
    if kind == "pool":
        return pool_case(rng, int8, *case)
    return fc_case(rng, int8, *case)


@pytest.mark.parametrize("kind, int8, case", list(cases()))
def test_every_path_and_thread_count_gives_the_scalar_result(kind, int8, case, monkeypatch):
    model, feeds = build(kind, int8, case)
    (expected,) = rillet_outputs(model, feeds, "scalar", 1, monkeypatch)
    for isa in PATHS:
        for threads in (1, 2, 3):
            (got,) = rillet_outputs(model, feeds, isa, threads, monkeypatch)
            if int8:
                assert got.tobytes() == expected.tobytes(), (isa, threads, np.count_nonzero(got != expected))
            else:
                # Relative to the output's scale: FMA and a different summation order move a sum that cancels
                # to near zero by the same absolute amount as a large one.
                scale = float(np.abs(expected).max()) or 1.0
                np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6 * scale, err_msg=f"{isa}, {threads} threads")


@pytest.mark.parametrize("kind, int8, case", list(cases()))
def test_best_path_agrees_with_litert(kind, int8, case, monkeypatch):
    pytest.importorskip("ai_edge_litert")
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    model, feeds = build(kind, int8, case, seed=1)
    monkeypatch.delenv("RILLET_ISA", raising=False)
    (expected,) = run(LiteRT, model, feeds)
    from rillet.runtime import Interpreter

    (got,) = run(Interpreter, model, feeds, num_threads=2)
    if int8:
        assert got.tobytes() == expected.tobytes(), np.count_nonzero(got != expected)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * (float(np.abs(expected).max()) or 1.0))


def test_an_unknown_or_unavailable_path_is_a_clear_error(monkeypatch):
    from rillet.runtime import Interpreter

    model, _ = build("fc", False, FC_CASES[0])
    monkeypatch.setenv("RILLET_ISA", "sse9")
    with pytest.raises(RuntimeError, match="RILLET_ISA=sse9 names no path"):
        Interpreter(model_content=model)
    missing = [isa for isa in CANDIDATES if isa not in PATHS]
    if missing:
        monkeypatch.setenv("RILLET_ISA", missing[0])
        with pytest.raises(RuntimeError, match=f"RILLET_ISA={missing[0]}: this CPU runs at most"):
            Interpreter(model_content=model)


def test_the_detected_path_is_detected_once_and_checked_when_passed(monkeypatch):
    """Plans take the path Python detected once per process (a cpuid trap each time in a VM); RILLET_ISA still
    goes to librillet, and a path number that is no path is an error, not a crash."""
    from rillet.native import kernel_path
    from rillet.runtime import plan

    monkeypatch.delenv("RILLET_ISA", raising=False)
    assert plan._default_isa() == plan._best_isa() == int(lib.rl_best_isa())
    out = ffi.new("rl_plan **")
    assert lib.rl_plan_create_on(out, 1, 99) == lib.RL_INVALID
    assert "kernel path 99" in ffi.string(lib.rl_plan_message(out[0])).decode()
    lib.rl_plan_destroy(out[0])
    monkeypatch.setenv("RILLET_ISA", "scalar")
    assert plan._default_isa() == -1 and kernel_path() == "scalar"


def test_memory_report_counts_packed_weights_within_the_models_own_weight_bytes():
    """Packed weights (panels padded to the tile, bias and scales beside them) stay within the model's own
    weight bytes, float and int8 (0.98x each on MobileNet: its few-row FULLY_CONNECTED reads the file's weights
    in place, a last panel of 1-8 columns is packed 8 wide, and int8 depthwise layers read their weights in
    place, packing only a bias and a scale per channel), and live in each op's counted state."""
    from rillet.runtime import Interpreter

    from support import model_path

    for name, most in (("mobilenet_v2_035_96_f32", 1.0), ("mobilenet_v2_035_96_int8", 1.0)):
        path = model_path(name)
        it = Interpreter(model_path=str(path))
        it.allocate_tensors()
        memory = it.memory_report()
        assert 0 < memory["packed_weight_bytes"] <= most * memory["weight_bytes"], memory
        assert memory["op_state_bytes"] >= memory["packed_weight_bytes"]
        assert it.kernel_path in PATHS


def test_weights_that_change_between_invokes_are_packed_in_arena_scratch_not_counted_as_packed_weights():
    """A training model's BATCH_MATMULs read variables a train step updates: their weights are packed again
    at every invoke, into the op's arena scratch (planned with the tensors), so the plan keeps no packed copy
    of them; the model still trains and infers as before (test_train_models checks the values)."""
    from rillet.runtime import Interpreter

    from support import model_path

    it = Interpreter(model_path=str(model_path("train_mlp")))
    it.allocate_tensors()
    memory = it.memory_report()
    assert memory["packed_weight_bytes"] == 0, memory
    assert memory["arena_bytes"] >= 64 * 32 * 4, memory
