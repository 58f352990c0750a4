"""Transformers on several threads (tests/data/transformers): every fixture gives one thread's bits on 2 and 3
threads, on every signature, and the ops that band over tokens (bands.h) form their segments: a hybrid
FULLY_CONNECTED runs on from the layer norm before it as the float one does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from single_op import OPTIONS_TYPES, TYPE_CODES, Quant

from rillet.converter.format import (
    BUILTIN_CODES,
    Buffer,
    ModelFile,
    Operator,
    OperatorCode,
    Options,
    SignatureDef,
    SubGraph,
    Tensor,
    TensorMap,
    save,
)
from rillet.runtime import Interpreter

DATA = Path(__file__).resolve().parents[1] / "data" / "transformers"
MODELS = sorted(p.stem for p in DATA.glob("*.tflite"))


def stored_inputs(name: str) -> dict[str, dict[str, np.ndarray]]:
    found: dict[str, dict[str, np.ndarray]] = {}
    with np.load(DATA / f"{name}.npz") as npz:
        for key in npz.files:
            sig, kind, tensor = key.split("/", 2)
            if kind == "in":
                found.setdefault(sig, {})[tensor] = npz[key]
    return found


def outputs(name: str, threads: int) -> dict[str, bytes]:
    it = Interpreter(model_path=str(DATA / f"{name}.tflite"), num_threads=threads)
    it.allocate_tensors()
    got = {}
    for sig, inputs in stored_inputs(name).items():
        runner = it.get_signature_runner(sig)
        runner(**inputs)  # twice: the second reads no stale band of the first
        for key, value in runner(**inputs).items():
            got[f"{sig}/{key}"] = np.asarray(value).tobytes()
    return got


@pytest.mark.parametrize("name", MODELS)
def test_every_thread_count_gives_one_thread_s_bits(name):
    one = outputs(name, 1)
    for threads in (2, 3):
        assert outputs(name, threads) == one, f"{name} on {threads} threads"


def segments_of(name: str, threads: int) -> list[list[str]]:
    it = Interpreter(model_path=str(DATA / f"{name}.tflite"), num_threads=threads)
    it.allocate_tensors()
    plan = it._plan
    return [list(plan.op_names[i:plan.op_segment_last(i) + 1]) for i in range(len(plan.op_names))
            if plan.op_segment_last(i) >= 0]


@pytest.mark.parametrize("name", ["bert_tiny_dynamic", "vit_tiny_dynamic"])
def test_hybrid_fully_connected_runs_in_the_layer_norm_s_bands(name):
    segments = segments_of(name, 2)
    assert any("FULLY_CONNECTED" in s and "RSQRT" in s for s in segments), segments


def test_int8_layer_norm_runs_in_bands():
    """bert_tiny_int8's layer norm: the residual ADD, MEAN over channels, the mean's DEQUANTIZE, NEG and QUANTIZE,
    SQUARED_DIFFERENCE against it, the second MEAN, the epsilon ADD (TFLite's arithmetic, by chunks of the
    reference), RSQRT (its refusal of inputs below the zero point checked after the segment), the normalizing
    MULs ([tokens, 1] times [channels] and times x), the beta ADD and the projections after it run as one job,
    and the int8 GELU inside the MLP's."""
    segments = segments_of("bert_tiny_int8", 2)
    chain = ["ADD", "MEAN", "DEQUANTIZE", "NEG", "QUANTIZE", "SQUARED_DIFFERENCE", "MEAN", "ADD", "RSQRT", "MUL",
             "MUL", "ADD", "MUL", "ADD", "FULLY_CONNECTED"]
    assert any(s[:len(chain)] == chain for s in segments), segments
    assert any("GELU" in s and "FULLY_CONNECTED" in s for s in segments), segments


@pytest.mark.parametrize("name", ["bert_tiny_f32", "bert_tiny_dynamic", "bert_tiny_int8"])
def test_attention_scores_scale_and_softmax_are_one_segment(name):
    """Q.K^T per head (float, or int8 at TFLite's fixed point: y's zero point is not 0), its scale and SOFTMAX:
    the BATCH_MATMUL heads a segment over the heads' query rows; the Q and K transposes end the projection's."""
    segments = segments_of(name, 2)
    assert ["BATCH_MATMUL", "MUL", "SOFTMAX"] in segments, segments
    assert any(s[-2:] == ["TRANSPOSE", "TRANSPOSE"] and "FULLY_CONNECTED" in s for s in segments), segments


@pytest.mark.parametrize("name", ["whisper_tiny_encoder_f32", "whisper_tiny_encoder_int8", "vit_tiny_f32",
                                  "vit_tiny_int8"])
def test_attention_values_product_runs_in_the_scores_segment(name):
    """litert-torch's attention: the scores' product, SOFTMAX and P.V in one segment, each band multiplying its rows
    of P by V while they are in cache; V's RESHAPE (and the PT2E files' DEQUANTIZE of it) runs before the bands,
    since P.V reads V whole."""
    segments = segments_of(name, 2)
    assert any(s.count("BATCH_MATMUL") == 2 and "SOFTMAX" in s for s in segments), segments


def int8_add_rsqrt_model(shape: tuple[int, ...]) -> bytes:
    """x + x (int8, XNNPACK's arithmetic) then RSQRT: two int8 ops that band over x's rows on several threads."""
    quants = [Quant(0.05, 0), Quant(0.1, 0), Quant(0.02, -128)]
    tensors = [Tensor(shape=list(shape), type=TYPE_CODES[np.dtype(np.int8)], buffer=0, name=name,
                      quantization=q.parameters()) for name, q in zip(["x", "h", "y"], quants)]
    codes = ["ADD", "RSQRT"]
    operators = [Operator(opcode_index=0, inputs=[0, 0], outputs=[1],
                          builtin_options=Options(OPTIONS_TYPES["ADD"], fused_activation_function=0)),
                 Operator(opcode_index=1, inputs=[1], outputs=[2])]
    model = ModelFile(
        operator_codes=[OperatorCode(deprecated_builtin_code=min(BUILTIN_CODES[c], 127), builtin_code=BUILTIN_CODES[c],
                                     version=2) for c in codes],
        subgraphs=[SubGraph(tensors=tensors, inputs=[0], outputs=[2], operators=operators, name="main")],
        buffers=[Buffer(data=None)],
        signature_defs=[SignatureDef(inputs=[TensorMap(name="x", tensor_index=0)],
                                     outputs=[TensorMap(name="y", tensor_index=2)], signature_key="serving_default",
                                     subgraph_index=0)])
    return save(model)


def test_an_int8_rsqrt_in_bands_refuses_negative_inputs_after_its_segment():
    """RSQRT refuses inputs below its zero point; in bands it computes first and checks after the segment, so the
    invoke fails naming it as on one thread, and positive inputs give one thread's bits."""
    model = int8_add_rsqrt_model((1, 64, 32))
    good = np.random.default_rng(1).integers(1, 60, (1, 64, 32)).astype(np.int8)
    bad = good.copy()
    bad[0, 40, 7] = -3
    errors, bits = {}, {}
    for threads in (1, 2, 3):
        it = Interpreter(model_content=model, num_threads=threads)
        it.allocate_tensors()
        if threads == 2:
            assert it._plan.op_segment_last(0) == 1
        it.set_tensor(it.get_input_details()[0]["index"], good)
        it.invoke()
        bits[threads] = it.get_tensor(it.get_output_details()[0]["index"]).tobytes()
        it.set_tensor(it.get_input_details()[0]["index"], bad)
        with pytest.raises(Exception) as failure:
            it.invoke()
        errors[threads] = str(failure.value)
        it.set_tensor(it.get_input_details()[0]["index"], good)
        it.invoke()  # usable after the failure
        assert it.get_tensor(it.get_output_details()[0]["index"]).tobytes() == bits[threads]
    assert bits[2] == bits[1] and bits[3] == bits[1]
    assert "RSQRT" in errors[1] and "below the zero point" in errors[1]
    assert errors[2] == errors[1] and errors[3] == errors[1]
