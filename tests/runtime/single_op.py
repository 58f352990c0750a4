"""Single-op .tflite models written with the format layer, and running them in LiteRT and in rillet.

`op_model("ADD", [x, y], [out])` takes numpy arrays (or `Const`) as constants and `Input(shape, dtype)` as
graph inputs (None for an omitted optional input); the file it returns loads in both runtimes. Quantized
tensors: `Input(..., quant=Quant(scales, zero_points))`, `Const(array, Quant(...))`, and an output spec
`(shape, dtype, Quant(...))`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from rillet.converter.format import (
    BUILTIN_CODES,
    Buffer,
    ModelFile,
    Operator,
    OperatorCode,
    Options,
    QuantizationParameters,
    SignatureDef,
    SubGraph,
    Tensor,
    TensorMap,
    save,
)

TYPE_CODES = {np.dtype(np.float32): 0, np.dtype(np.int32): 2, np.dtype(np.uint8): 3, np.dtype(np.int64): 4,
              np.dtype(np.bool_): 6, np.dtype(np.int16): 7, np.dtype(np.int8): 9}

OPTIONS_TYPES = {
    "CONV_2D": "Conv2DOptions", "DEPTHWISE_CONV_2D": "DepthwiseConv2DOptions", "MAX_POOL_2D": "Pool2DOptions",
    "AVERAGE_POOL_2D": "Pool2DOptions", "FULLY_CONNECTED": "FullyConnectedOptions",
    "BATCH_MATMUL": "BatchMatMulOptions", "MEAN": "ReducerOptions", "SUM": "ReducerOptions",
    "ADD": "AddOptions", "SUB": "SubOptions", "MUL": "MulOptions", "DIV": "DivOptions",
    "SQUARED_DIFFERENCE": "SquaredDifferenceOptions", "SOFTMAX": "SoftmaxOptions",
    "LOG_SOFTMAX": "LogSoftmaxOptions", "LEAKY_RELU": "LeakyReluOptions", "CONCATENATION": "ConcatenationOptions",
    "PAD": "PadOptions", "RESHAPE": "ReshapeOptions", "SQUEEZE": "SqueezeOptions", "EXPAND_DIMS": "ExpandDimsOptions",
    "TRANSPOSE": "TransposeOptions", "STRIDED_SLICE": "StridedSliceOptions", "SLICE": "SliceOptions",
    "GATHER": "GatherOptions", "SHAPE": "ShapeOptions", "PACK": "PackOptions", "CAST": "CastOptions",
    "GREATER": "GreaterOptions", "RESIZE_BILINEAR": "ResizeBilinearOptions",
    "RESIZE_NEAREST_NEIGHBOR": "ResizeNearestNeighborOptions",
}


@dataclass
class Quant:
    """A tensor's quantization: one scale and zero point (per tensor) or one per channel of `axis`."""

    scales: Any
    zero_points: Any = 0
    axis: int = 0

    def parameters(self) -> QuantizationParameters:
        scales = np.atleast_1d(np.asarray(self.scales, dtype=np.float32))
        zero_points = np.broadcast_to(np.asarray(self.zero_points, dtype=np.int64), scales.shape)
        return QuantizationParameters(scale=[float(v) for v in scales], zero_point=[int(v) for v in zero_points],
                                      quantized_dimension=self.axis)


@dataclass
class Input:
    """A graph input of the single-op model."""

    shape: tuple[int, ...]
    dtype: Any = np.float32
    quant: Quant | None = None


@dataclass
class Const:
    """A constant input with quantization (plain numpy arrays are unquantized constants)."""

    array: np.ndarray
    quant: Quant | None = None


def op_model(op: str, inputs: list[Any], outputs: list[tuple[Any, ...]],
             options: dict[str, Any] | None = None, version: int = 1) -> bytes:
    """The bytes of a .tflite file running one builtin op; inputs: arrays (constants), Input, or None."""
    tensors: list[Tensor] = []
    buffers = [Buffer(data=None)]
    op_inputs: list[int] = []
    graph_inputs: list[int] = []
    for i, spec in enumerate(inputs):
        if spec is None:
            op_inputs.append(-1)
            continue
        quant = None
        if isinstance(spec, Input):
            dtype, shape, buffer, quant = np.dtype(spec.dtype), list(spec.shape), 0, spec.quant
            graph_inputs.append(len(tensors))
        else:
            if isinstance(spec, Const):
                spec, quant = spec.array, spec.quant
            array = np.ascontiguousarray(spec)
            dtype, shape, buffer = array.dtype, list(array.shape), len(buffers)
            buffers.append(Buffer(data=np.frombuffer(array.tobytes(), dtype=np.uint8)))
        op_inputs.append(len(tensors))
        tensors.append(Tensor(shape=shape, type=TYPE_CODES[dtype], buffer=buffer, name=f"in{i}",
                              quantization=quant.parameters() if quant else None))
    graph_outputs = []
    for i, (shape, dtype, *rest) in enumerate(outputs):
        quant = rest[0] if rest else None
        graph_outputs.append(len(tensors))
        tensors.append(Tensor(shape=list(shape), type=TYPE_CODES[np.dtype(dtype)], buffer=0, name=f"out{i}",
                              quantization=quant.parameters() if quant else None))
    code = BUILTIN_CODES[op]
    opts = Options(OPTIONS_TYPES[op], **options) if options is not None else None
    model = ModelFile(
        operator_codes=[OperatorCode(deprecated_builtin_code=min(code, 127), builtin_code=code, version=version)],
        subgraphs=[SubGraph(tensors=tensors, inputs=graph_inputs, outputs=graph_outputs,
                            operators=[Operator(opcode_index=0, inputs=op_inputs, outputs=graph_outputs,
                                                builtin_options=opts)], name="main")],
        buffers=buffers,
        signature_defs=[SignatureDef(inputs=[TensorMap(name=f"x{k}", tensor_index=t) for k, t in enumerate(graph_inputs)],
                                     outputs=[TensorMap(name=f"y{k}", tensor_index=t) for k, t in enumerate(graph_outputs)],
                                     signature_key="serving_default", subgraph_index=0)],
    )
    return save(model)


def run(interpreter_class: Any, content: bytes, feeds: list[np.ndarray], **kwargs: Any) -> list[np.ndarray]:
    """Allocates, sets the graph inputs in order, invokes, returns every output."""
    it = interpreter_class(model_content=content, **kwargs)
    it.allocate_tensors()
    for detail, value in zip(it.get_input_details(), feeds):
        it.set_tensor(detail["index"], value)
    it.invoke()
    return [it.get_tensor(d["index"]) for d in it.get_output_details()]


def litert_reference(content: bytes, feeds: list[np.ndarray]) -> list[np.ndarray]:
    """LiteRT's reference kernels (BUILTIN_REF): the specification rillet's scalar kernels follow."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    return run(Interpreter, content, feeds, experimental_op_resolver_type=OpResolverType.BUILTIN_REF)


def assert_matches_litert(content: bytes, feeds: list[np.ndarray], rtol: float = 1e-5, atol: float = 1e-6) -> None:
    from rillet.runtime import Interpreter

    expected = litert_reference(content, feeds)
    got = run(Interpreter, content, feeds)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype, (g.dtype, e.dtype)
        assert g.shape == e.shape, (g.shape, e.shape)
        if g.dtype == np.float32:
            np.testing.assert_allclose(g, e, rtol=rtol, atol=atol)
        else:
            np.testing.assert_array_equal(g, e)


def litert_default(content: bytes, feeds: list[np.ndarray]) -> list[np.ndarray]:
    """LiteRT's Interpreter as a user gets it (AUTO: XNNPACK where it takes the op, else builtin kernels)."""
    from ai_edge_litert.interpreter import Interpreter

    return run(Interpreter, content, feeds)


def assert_same_bits_as_litert(content: bytes, feeds: list[np.ndarray]) -> None:
    """int8 (and other integer) outputs equal, bit for bit, to what LiteRT's default Interpreter gives."""
    from rillet.runtime import Interpreter

    expected = litert_default(content, feeds)
    got = run(Interpreter, content, feeds)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape, ((g.dtype, g.shape), (e.dtype, e.shape))
        assert g.tobytes() == e.tobytes(), f"{np.count_nonzero(g != e)} of {g.size} differ; max |diff| " \
            f"{np.abs(g.astype(np.int64) - e.astype(np.int64)).max() if g.dtype.kind in 'iu' else np.abs(g - e).max()}"


# ---- int8 conversions and float16 weights (QUANTIZE, DEQUANTIZE) ----

TYPE_CODES.setdefault(np.dtype(np.float16), 1)


def assert_close_to_litert(content: bytes, feeds: list[np.ndarray], rtol: float = 1e-5, atol: float = 1e-6) -> None:
    """float outputs within rtol of what LiteRT's default Interpreter gives (integer outputs equal)."""
    from rillet.runtime import Interpreter

    expected = litert_default(content, feeds)
    got = run(Interpreter, content, feeds)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape, ((g.dtype, g.shape), (e.dtype, e.shape))
        np.testing.assert_allclose(g, e, rtol=rtol, atol=atol)
