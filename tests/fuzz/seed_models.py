"""Small models that reach the ops issue 25 names (IF, WHILE, CALL_ONCE, resource variables, the LSTMs,
DENSIFY, MediaPipe's custom ops, signature defs), built with the builders the runtime tests use, as seeds for
the feature mutations (feature_mutations.py). Each family lists (name, builder) pairs; a builder returns the
bytes of a model that loads and runs, so a mutant's failure is the mutation's doing."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS / "runtime"))  # the builders live beside the runtime tests

from rillet.converter.format import (  # noqa: E402
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

RESOURCE = 13


def reference(name: str) -> Callable[[], bytes]:
    return lambda: (TESTS / "data" / "models" / f"{name}.tflite").read_bytes()


def counter_model() -> bytes:
    """A resource variable v, set to 1 by a CALL_ONCE initializer; each invoke returns v + x and stores it.
    Two signatures (step over subgraph 0, init over 1): the smallest file with every variable op."""
    names = ["CALL_ONCE", "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE", "ADD"]
    codes = [OperatorCode(deprecated_builtin_code=min(BUILTIN_CODES[n], 127), builtin_code=BUILTIN_CODES[n])
             for n in names]
    one = np.ones([2], np.float32)
    buffers = [Buffer(data=None), Buffer(data=one.view(np.uint8))]

    def op(name, inputs, outputs, options=None):
        return Operator(opcode_index=names.index(name), inputs=inputs, outputs=outputs, builtin_options=options)

    handle = Options("VarHandleOptions", container="", shared_name="v")
    main = SubGraph(name="step", inputs=[0], outputs=[3], tensors=[
        Tensor(shape=[2], name="x"), Tensor(shape=[], type=RESOURCE, name="v"), Tensor(shape=[2], name="v_now"),
        Tensor(shape=[2], name="y")], operators=[
        op("CALL_ONCE", [], [], Options("CallOnceOptions", init_subgraph_index=1)),
        op("VAR_HANDLE", [], [1], handle), op("READ_VARIABLE", [1], [2]),
        op("ADD", [2, 0], [3], Options("AddOptions", fused_activation_function=0)), op("ASSIGN_VARIABLE", [1, 3], [])])
    init = SubGraph(name="init", inputs=[], outputs=[], tensors=[
        Tensor(shape=[], type=RESOURCE, name="v"), Tensor(shape=[2], buffer=1, name="one")], operators=[
        op("VAR_HANDLE", [], [0], Options("VarHandleOptions", container="", shared_name="v")),
        op("ASSIGN_VARIABLE", [0, 1], [])])
    signatures = [SignatureDef(inputs=[TensorMap(name="x", tensor_index=0)], outputs=[TensorMap(name="y", tensor_index=3)],
                               signature_key="step", subgraph_index=0),
                  SignatureDef(inputs=[], outputs=[], signature_key="init", subgraph_index=1)]
    return save(ModelFile(operator_codes=codes, subgraphs=[main, init], buffers=buffers, signature_defs=signatures))


def _control_flow() -> list[tuple[str, Callable[[], bytes]]]:
    import test_control_flow as cf
    import test_control_flow_dynamic as dyn

    return [("if", cf.if_model), ("while", cf.while_model), ("while_if", lambda: cf.while_model(body_if=True)),
            ("doubling_while", dyn.doubling_while_model), ("growing_rows", dyn.growing_rows_model),
            ("shape_changing_if", dyn.shape_changing_if_model),
            ("while_over_if", dyn.while_over_a_shape_changing_if_model), ("counter", counter_model),
            ("train_mlp", reference("train_mlp"))]


def _lstm() -> list[tuple[str, Callable[[], bytes]]]:
    import test_lstm as f32
    import test_lstm_hybrid as hybrid
    import test_lstm_int8 as int8
    import test_lstm_layer_norm as norm

    return [("f32", f32.lstm_model), ("f32_cifg_peephole_projection",
                                      lambda: f32.lstm_model(cifg=True, peephole=True, n_output=3, proj_clip=0.3)),
            ("f32_layer_norm", lambda: norm.with_layer_norm(f32.lstm_model(), False, 4)),
            ("int8", lambda: int8.lstm_int8_model(int8.LstmSpec())),
            ("int8_layer_norm_projection", lambda: int8.lstm_int8_model(
                int8.LstmSpec(layer_norm=True, n_output=3, peephole=True))),
            ("hybrid", lambda: hybrid.hybrid_model(hybrid.HybridSpec())),
            ("hybrid_cifg_asymmetric", lambda: hybrid.hybrid_model(hybrid.HybridSpec(cifg=True, asymmetric=True)))]


def _densify() -> list[tuple[str, Callable[[], bytes]]]:
    import test_densify as d

    rng = np.random.default_rng(0)
    dense = rng.standard_normal((4, 8)).astype(np.float32)
    dense[rng.random((4, 8)) > 0.4] = 0
    int8 = (dense * 20).astype(np.int8)
    return [("csr_f32", lambda: d.sparse_model(dense)), ("csr_uint8_index", lambda: d.sparse_model(dense, np.uint8)),
            ("block4_f32", lambda: d.sparse_model(dense, np.uint16, block=4)),
            ("csr_int8_alone", lambda: d.sparse_model(int8, add=False))]


def _custom() -> list[tuple[str, Callable[[], bytes]]]:
    import test_mediapipe_custom_ops as deconv
    import test_mediapipe_pooling as pool

    return [("deconv", lambda: deconv.deconv_model((1, 4, 5, 3), (2, 2, 2, 3), 1, 2)[0]),
            ("deconv_valid_no_bias", lambda: deconv.deconv_model((1, 3, 3, 2), (3, 3, 3, 2), 2, 1, bias=False)[0]),
            ("argmax", lambda: pool.argmax_model((1, 4, 6, 2), pool.SAME, (2, 2))),
            ("unpool", lambda: pool.unpool_model((1, 2, 3, 2), (2, 2)))]


def _signatures() -> list[tuple[str, Callable[[], bytes]]]:
    import test_control_flow as cf
    from single_op import Input, op_model

    return [("train_mlp", reference("train_mlp")), ("counter", counter_model),
            ("single_add", lambda: op_model("ADD", [Input((2, 3)), Input((2, 3))], [((2, 3), np.float32)], {})),
            ("if", cf.if_model)]


FAMILIES: dict[str, Callable[[], list[tuple[str, Callable[[], bytes]]]]] = {
    "control_flow": _control_flow, "variables": lambda: [("counter", counter_model), ("train_mlp", reference("train_mlp"))],
    "lstm": _lstm, "densify": _densify, "custom": _custom, "signatures": _signatures,
}


def seeds(family: str) -> list[tuple[str, bytes]]:
    """The named seed models of one family, built."""
    return [(name, build()) for name, build in FAMILIES[family]()]
