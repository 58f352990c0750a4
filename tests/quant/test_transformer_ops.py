"""The quantizer on what TensorFlow's and litert-torch's transformer files hold: NEG (TensorFlow's layer
norm), PADV2 with a -inf pad before a max pool (litert-torch's padded max pool), EMBEDDING_LOOKUP, and a tiny
attention block (layer-norm chain, RESHAPE / TRANSPOSE into heads, BATCH_MATMUL between activations, SOFTMAX).
Every file runs in LiteRT and in rillet with LiteRT's bits; an op rillet's runtime refuses in int8 is kept
float and named; every refusal's advice, followed, gives a file."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter as LiteRT
from quantcheck import run, sqnr_db
from single_op import Input, op_model
from tiny_transformer import block, padded_max_pool, samples

from rillet.converter.format import load
from rillet.quant import QuantizationWarning, quantize
from rillet.runtime import Interpreter

INT8 = 9
RNG = np.random.default_rng(3)


def op_names(data: bytes) -> list[str]:
    model = load(data)
    return [model.op_name(op) for op in model.subgraphs[0].operators]


def same_bits(data: bytes, xs: list[np.ndarray]) -> bool:
    return run(data, xs, Interpreter, dequantize=False).tobytes() == run(data, xs, LiteRT, dequantize=False).tobytes()


def test_neg_runs_int8_as_the_negation():
    """LiteRT's int8 NEG negates the stored integers: its input is requantized onto [-127, 127] first, so
    that every value, the calibrated extremes and values beyond them included, has its negation."""
    content = op_model("NEG", [Input((1, 64))], [((1, 64), np.float32)])
    data = quantize(content, RNG.uniform(-1, 3, (16, 1, 64)).astype(np.float32), progress=False)
    assert op_names(data) == ["QUANTIZE", "QUANTIZE", "NEG", "DEQUANTIZE"]
    xs = [np.linspace(-1, 3, 64, dtype=np.float32)[None], np.linspace(-1.5, 4, 64, dtype=np.float32)[None]]
    assert same_bits(data, xs)
    got, step = run(data, xs), 4 / 254
    np.testing.assert_allclose(got[0], -xs[0], atol=1.5 * step)
    np.testing.assert_allclose(got[1], -np.clip(xs[1], -1, 3), atol=1.5 * step)  # saturates, never wraps


@pytest.mark.parametrize("pad_value", [-np.inf, float(np.finfo(np.float32).min)], ids=["-inf", "lowest"])
def test_a_max_pools_very_negative_pad_quantizes_to_the_int8_minimum(pad_value):
    content = padded_max_pool(pad_value)
    xs = list(RNG.normal(size=(8, 1, 6, 6, 4)).astype(np.float32))
    data = quantize(content, np.stack(xs), progress=False)
    model = load(data)
    sg = model.subgraphs[0]
    (pad,) = [op for op in sg.operators if model.op_name(op) == "PADV2"]
    assert sg.tensors[pad.outputs[0]].type == INT8
    assert model.tensor_data(0, pad.inputs[2]).tolist() == -128
    assert same_bits(data, xs)
    assert sqnr_db(run(content, xs), run(data, xs)) > 40
    kept = quantize(content, np.stack(xs), keep_float=["PADV2"], progress=False)  # the float pad's -inf:
    assert op_names(kept) == ["PADV2", "QUANTIZE", "MAX_POOL_2D", "DEQUANTIZE"]  # the finite range quantizes it
    assert same_bits(kept, xs) and sqnr_db(run(content, xs), run(kept, xs)) > 40


def test_embedding_lookup_becomes_an_int8_gather_of_the_same_rows():
    table = RNG.normal(size=(10, 6)).astype(np.float32)
    content = op_model("EMBEDDING_LOOKUP", [Input((5,), np.int32), table], [((5, 6), np.float32)])
    ids = [RNG.integers(0, 10, 5).astype(np.int32) for _ in range(4)]
    data = quantize(content, ids, progress=False, interpreter_class=LiteRT)  # rillet runs no float EMBEDDING_LOOKUP
    assert op_names(data) == ["GATHER", "DEQUANTIZE"]
    assert same_bits(data, ids)
    half_step = (table.max() - table.min()) / 255 / 2
    np.testing.assert_allclose(run(data, ids), table[np.stack(ids)], atol=half_step * 1.001)


def quantize_block(**kwargs) -> tuple[bytes, list[str]]:
    """The block with every op int8 that can be (auto=False: the default keeps a transformer's layer norms,
    softmax and residual adds float, and these tests are about the int8 rules)."""
    kwargs.setdefault("auto", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", QuantizationWarning)
        data = quantize(block(), samples(48), progress=False, **kwargs)
    return data, [str(w.message) for w in caught if w.category is QuantizationWarning]


def test_the_attention_block_runs_int8_with_litert_bits():
    """Every op int8, the BATCH_MATMULs between activations included (y with zero point 0, x asymmetric)."""
    data, notes = quantize_block()
    model = load(data)
    sg = model.subgraphs[0]
    assert not notes
    assert [sg.tensors[op.outputs[0]].type for op in sg.operators][1:-1] == [INT8] * (len(sg.operators) - 2)
    for op in sg.operators:
        if model.op_name(op) == "BATCH_MATMUL":
            x, y = (sg.tensors[i].quantization for i in op.inputs)
            assert y.zero_point == [0] and x.zero_point != [0]
    assert set(op_names(data)) >= {"NEG", "SOFTMAX", "RSQRT", "SQUARED_DIFFERENCE", "MEAN", "TRANSPOSE"}
    xs = list(samples(8, seed=9))
    assert same_bits(data, xs)
    assert sqnr_db(run(block(), xs), run(data, xs)) > 25


def test_an_op_rillet_refuses_is_kept_float_and_named(monkeypatch):
    """The check after writing: a refusal traced to a float op keeps that op float and tries again."""
    import rillet.quant as rq
    from rillet.quant.verify import Refusal

    calls = []

    def refuse_softmax_once(data, float_model, *_):
        calls.append(op_names(data).count("SOFTMAX"))
        model = load(data)
        softmax = [op for op in model.subgraphs[0].operators if model.op_name(op) == "SOFTMAX"]
        if model.subgraphs[0].tensors[softmax[0].outputs[0]].type == INT8:
            return Refusal("SOFTMAX op 9 ('attn'): no kernel", "23", "SOFTMAX #23 ('attn')")
        return None

    monkeypatch.setattr(rq, "rillet_refusal", refuse_softmax_once)
    data, notes = quantize_block(keep_float=["BATCH_MATMUL"])
    assert len(calls) == 2 and notes == [("SOFTMAX #23 ('attn') kept float: rillet's runtime refused its int8 form "
                                         "(SOFTMAX op 9 ('attn'): no kernel)")]
    model = load(data)
    (softmax,) = [op for op in model.subgraphs[0].operators if model.op_name(op) == "SOFTMAX"]
    assert model.subgraphs[0].tensors[softmax.outputs[0]].type == 0


def test_a_refusal_no_op_explains_is_an_error(monkeypatch):
    import rillet.quant as rq
    from rillet.quant import QuantizationError
    from rillet.quant.verify import Refusal

    monkeypatch.setattr(rq, "rillet_refusal", lambda data, model, *_: Refusal("arena too large", None, ""))
    with pytest.raises(QuantizationError, match="rillet's runtime cannot run the int8 file: arena too large"):
        quantize_block()


def cli(tmp_path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rillet.cli", "quantize", *args, "--quiet"], check=False,
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)


def test_cli_advice_followed_gives_a_file(tmp_path):
    (tmp_path / "sin.tflite").write_bytes(op_model("SIN", [Input((1, 8))], [((1, 8), np.float32)]))
    np.save(tmp_path / "x.npy", RNG.normal(size=(8, 1, 8)).astype(np.float32))
    refused = cli(tmp_path, "sin.tflite", "--calib", "x.npy", "-o", "q.tflite")
    assert refused.returncode == 1 and "--keep-float SIN" in refused.stderr, refused.stderr
    assert not (tmp_path / "q.tflite").exists()
    done = cli(tmp_path, "sin.tflite", "--calib", "x.npy", "-o", "q.tflite", "--keep-float", "SIN")
    assert done.returncode == 0, done.stderr
    (tmp_path / "pool.tflite").write_bytes(padded_max_pool())
    np.save(tmp_path / "p.npy", RNG.normal(size=(8, 1, 6, 6, 4)).astype(np.float32))
    for extra in ([], ["--keep-float", "PADV2"]):
        done = cli(tmp_path, "pool.tflite", "--calib", "p.npy", "-o", "p.tflite", *extra)
        assert done.returncode == 0, done.stderr
        Interpreter(model_path=str(tmp_path / "p.tflite")).allocate_tensors()


def test_cli_names_the_ops_it_kept_float(tmp_path):
    (tmp_path / "block.tflite").write_bytes(block())
    np.save(tmp_path / "x.npy", samples(16))
    done = cli(tmp_path, "block.tflite", "--calib", "x.npy", "-o", "q.tflite")
    assert done.returncode == 0, done.stderr
    data = (tmp_path / "q.tflite").read_bytes()
    model = load(data)
    floats = [op for op in model.subgraphs[0].operators if model.op_name(op) == "BATCH_MATMUL"
              and model.subgraphs[0].tensors[op.outputs[0]].type != INT8]
    assert done.stdout.count("kept float: rillet's runtime refused") == len(floats)


def test_min_sqnr_keeps_op_types_float_until_the_outputs_reach_it():
    from rillet.quant.precision import output_values, outputs_sqnr

    calibration = samples(48)
    feeds = [{0: x} for x in calibration]
    full, _ = quantize_block()
    reference = output_values(block(), feeds, [0], LiteRT)
    start = outputs_sqnr(reference, output_values(full, feeds, [0], LiteRT))
    target = start + 6
    data, notes = quantize_block(min_sqnr=target)
    kept = [n for n in notes if "kept float (min_sqnr" in n]
    assert kept and all(n.split()[0] in op_names(full) for n in kept)
    assert outputs_sqnr(reference, output_values(data, feeds, [0], LiteRT)) >= target
    assert same_bits(data, list(samples(4, seed=9)))
    _, notes = quantize_block(min_sqnr=200.0, io="int8")  # int8 outputs cannot reach it
    assert any("min_sqnr 200 dB not reached" in n for n in notes), notes


def test_a_constant_two_ops_read_gets_parameters_per_op():
    """The 0.0 a SELECT_V2 ties to -3.4e38 (scale 1e36) is also the SUB's: each reads its own copy, and the
    SUB runs int8 with its own scale."""
    from tiny_transformer import shared_zero

    content = shared_zero()
    xs = list(RNG.uniform(-2, 2, (8, 1, 8)).astype(np.float32))
    data = quantize(content, np.stack(xs), progress=False)
    model = load(data)
    sg = model.subgraphs[0]
    (sub,) = [op for op in sg.operators if model.op_name(op) == "SUB"]
    assert sg.tensors[sub.outputs[0]].type == INT8
    assert sg.tensors[sub.inputs[0]].quantization.scale[0] <= 1  # the lone 0.0's own, not the mask's 1e36
    it = Interpreter(model_content=data)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], xs[0])
    it.invoke()
    negated = it.get_tensor(it.get_output_details()[0]["index"])
    np.testing.assert_allclose(negated, -xs[0], atol=4 / 255)


def test_auto_calibration_keeps_the_softmax_inputs_maximum():
    from rillet.quant.ranges import method_for

    model = load(block())
    sg = model.subgraphs[0]
    index = {t.name: i for i, t in enumerate(sg.tensors)}
    assert method_for("auto", model, 0, index["scaled"]) == "minmax"  # what the SOFTMAX reads
    assert method_for("auto", model, 0, index["qk"]) == method_for("auto", model, 0, index["ln/out"]) == "mse"
    assert method_for("percentile", model, 0, index["scaled"]) == "percentile"
    data, _ = quantize_block(calibration="auto")
    xs = list(samples(8, seed=9))
    assert same_bits(data, xs) and sqnr_db(run(block(), xs), run(data, xs)) > 25


def test_the_report_measures_a_padded_tensor_on_its_finite_values():
    from rillet.quant import quantize_with_report

    xs = RNG.normal(size=(8, 1, 6, 6, 4)).astype(np.float32)
    _, report = quantize_with_report(padded_max_pool(), xs, progress=False, report=True)
    (pad,) = [layer for layer in report.layers if layer.op == "PADV2"]
    assert pad.sqnr_db > 30 and pad.added_db < 1


def test_infinite_range_advice_names_the_next_op_once_the_producer_is_float():
    """LOG(0) = -inf read by an int8 ADD: the advice names LOG; with LOG float, it names the ADD; followed,
    it gives a file."""
    from rillet.converter.from_graph import convert
    from rillet.graph import Graph, ops
    from rillet.quant import QuantizationError

    with Graph().as_default():
        x = ops.placeholder([2, 4], name="x")
        y = ops.add(ops.log(x, name="log"), np.float32(1.0), name="y")
        content = convert(inputs={"x": x}, outputs={"y": y})
    calibration = np.abs(RNG.uniform(-1, 1, (4, 2, 4))).astype(np.float32)
    calibration[0, 0, 0] = 0.0
    with pytest.raises(QuantizationError, match=r"keep LOG #0 \('log'\) float"):
        quantize(content, calibration, progress=False)
    with pytest.raises(QuantizationError, match=r"keep ADD #1 \('y'\) float too with keep_float=\['1'\] "
                                                r"\(or --keep-float 1\)"):
        quantize(content, calibration, keep_float=["LOG"], progress=False)
    data = quantize(content, calibration, keep_float=["LOG", "1"], progress=False)
    assert op_names(data)[:2] == ["LOG", "ADD"]


@pytest.mark.parametrize("n, int8", [(64, True), (300, False)])
def test_a_softmax_over_more_than_256_values_stays_float(n, int8):
    content = op_model("SOFTMAX", [Input((1, 4, n))], [((1, 4, n), np.float32)], {"beta": 1.0})
    xs = RNG.normal(size=(8, 1, 4, n)).astype(np.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", QuantizationWarning)
        data = quantize(content, xs, progress=False)
    model = load(data)
    (softmax,) = [op for op in model.subgraphs[0].operators if model.op_name(op) == "SOFTMAX"]
    assert (model.subgraphs[0].tensors[softmax.outputs[0]].type == INT8) == int8
    said = [str(w.message) for w in caught if w.category is QuantizationWarning]
    assert said == ([] if int8 else [(f"SOFTMAX #0 ('out0') kept float: it weighs {n} values, and int8 SOFTMAX's "
                                     f"fixed output step of 1/256 rounds their average weight 1/{n} to nothing")])


def test_an_attention_masks_ops_stay_float_and_the_softmax_runs_int8():
    """SELECT_V2 and ADD hold float's lowest (int8 would give them a scale of 1e36, which LiteRT aborts on
    in the SOFTMAX after): they stay float, named; the SOFTMAX's input is quantized over the scores' finite
    range, 20 below their maximum at least, and masked weights come out 0."""
    from tiny_transformer import masked_softmax

    content = masked_softmax()
    xs = RNG.normal(size=(8, 1, 16, 16)).astype(np.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", QuantizationWarning)
        data = quantize(content, xs, progress=False)
    notes = [str(w.message) for w in caught if w.category is QuantizationWarning]
    assert [n.split(" kept float")[0] for n in notes] == ["SELECT_V2 #0 ('mask')", "ADD #1 ('masked')"]
    model = load(data)
    sg = model.subgraphs[0]
    (softmax,) = [op for op in sg.operators if model.op_name(op) == "SOFTMAX"]
    scale = sg.tensors[softmax.inputs[0]].quantization.scale[0]
    assert sg.tensors[softmax.inputs[0]].type == INT8 and 20 / 255 <= scale < 30 / 255
    assert same_bits(data, list(xs[:3]))
    got = run(data, list(xs[:3]))
    assert np.all(got[:, :, np.triu_indices(16, 1)[0], np.triu_indices(16, 1)[1]] == 0)
    assert sqnr_db(run(content, list(xs[:3])), got) > 20


def test_cli_min_sqnr_names_the_types_it_kept_float(tmp_path):
    (tmp_path / "block.tflite").write_bytes(block())
    np.save(tmp_path / "x.npy", samples(16))
    done = cli(tmp_path, "block.tflite", "--calib", "x.npy", "-o", "q.tflite", "--min-sqnr", "45")
    assert done.returncode == 0, done.stderr
    kept = [line.split()[0] for line in done.stdout.splitlines() if "kept float (min_sqnr 45 dB)" in line]
    assert kept and set(kept) <= set(op_names(block()))
