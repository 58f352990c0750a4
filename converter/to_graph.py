"""`to_graph`: a float .tflite file (rillet's or TensorFlow's) -> a rillet graph, to run or fine-tune.

Each builtin maps back to the graph op whose TFLite lowering it is (the registry's `tflite` records);
float weights of more than one element become Variables, so `rl.gradients` and the optimizers can train
them; float16 and sparse weights (a DEQUANTIZE of a float16 constant, a DENSIFY of a sparse one) become
dense float32 ones. A quantized model (int8 activations or weights: full-integer or dynamic-range) is
refused, naming a quantized tensor: the graph's ops compute in float and would ignore its scales and zero
points.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .dense_weights import expand_weights
from .format import ModelError, ModelFile, load
from .format.schema import ACTIVATIONS, PADDING, TENSOR_TYPE_DTYPES


@dataclass
class ImportedModel:
    """A graph built from a .tflite signature, with its named inputs and outputs."""

    graph: Any
    inputs: dict[str, Any]
    outputs: dict[str, Any]
    variables: list[Any] = field(default_factory=list)

    def run(self, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        return self.graph.run(self.outputs, {self.inputs[k]: v for k, v in feeds.items()})


def to_graph(model: ModelFile | str | os.PathLike | bytes, signature: str | None = None,
             graph: Any = None) -> ImportedModel:
    """Import one signature of a float model (a ModelFile, a path, or the file's bytes) into `graph` (default:
    a new Graph): `signature` names it (default: the first, or subgraph 0 when the file has none). Inputs
    and outputs are keyed by the signature's names (the tensors' names without one). ModelError names what
    cannot be imported: an op rillet.graph has no op for, a quantized tensor, an unknown signature."""
    from rillet.graph import REGISTRY, Graph, Variable, ops

    if not isinstance(model, ModelFile):
        model = load(model)
    model = expand_weights(model)
    sg_index, input_names, output_names = _signature(model, signature)
    sg = model.subgraphs[sg_index]
    quantized = next((i for i, t in enumerate(sg.tensors) if _is_quantized(t)), None)
    if quantized is not None:
        t = sg.tensors[quantized]
        raise ModelError(f"tensor {quantized} {t.name!r} is quantized ({t.dtype.name}, scale "
                         f"{t.quantization.scale[0]:g}): to_graph imports float models; import the float model "
                         "this one was quantized from")
    by_builtin = {d.tflite["builtin"]: d for d in REGISTRY.values() if d.tflite}
    unsupported = sorted({model.op_name(op) for op in sg.operators
                          if model.op_name(op) not in by_builtin and model.op_name(op) not in CUSTOM_IMPORTS})
    if unsupported:
        raise ModelError("cannot import operators rillet.graph has no op for: " + ", ".join(unsupported))
    graph = graph or Graph()
    tensors: dict[int, Any] = {}
    variables = []
    with graph.as_default():
        for name, index in input_names.items():
            t = sg.tensors[index]
            shape = t.shape_signature if t.shape_signature else t.shape
            tensors[index] = ops.placeholder([None if d < 0 else d for d in shape], t.dtype.name, name=name)

        def value_of(index: int) -> Any:
            if index not in tensors:
                data = model.tensor_data(sg_index, index)
                if data is None:
                    raise ModelError(f"tensor {index} {sg.tensors[index].name!r} is used before it is computed")
                if data.dtype == np.float32 and data.size > 1:
                    var = Variable(np.array(data), name=sg.tensors[index].name or f"tensor_{index}")
                    variables.append(var)
                    tensors[index] = var.value
                else:
                    tensors[index] = ops.constant(np.array(data), name=sg.tensors[index].name or "const")
            return tensors[index]

        for j, op in enumerate(sg.operators):
            builtin = model.op_name(op)
            if builtin in CUSTOM_IMPORTS:
                inputs = [value_of(i) if i >= 0 else None for i in op.inputs or []]
                out = CUSTOM_IMPORTS[builtin](ops, op, inputs, sg.tensors[op.outputs[0]].name or f"op_{j}")
                tensors[op.outputs[0]] = out
                continue
            opdef = by_builtin[builtin]
            spec = opdef.tflite
            real_inputs = [i for i in (op.inputs or [])]
            attrs = _attrs_from_options(spec, op.builtin_options)
            if builtin == "UNIDIRECTIONAL_SEQUENCE_LSTM":
                node_inputs, attr_slots = _lstm_node_inputs(model, sg, op, j), []
            elif spec.get("order"):  # attrs among the inputs where TFLite puts them (SPLIT's axis first)
                slots = list(zip(spec["order"], real_inputs))
                node_inputs = [index for slot, index in slots if isinstance(slot, int)]
                attr_slots = [(slot, index) for slot, index in slots if isinstance(slot, str)]
            else:
                # Attributes written as trailing inputs; a RESHAPE may give its shape in its options alone.
                n_attr_inputs = min(len(spec["attr_inputs"]), max(len(real_inputs) - 1, 0))
                node_inputs = real_inputs[: len(real_inputs) - n_attr_inputs]
                attr_slots = list(zip(spec["attr_inputs"], real_inputs[len(node_inputs):]))
            for attr, index in attr_slots:
                if index >= 0:  # -1: an omitted optional input (the options say it)
                    attrs[attr] = _attr_from_tensor(model, sg_index, index, op, attr)
            if builtin == "CAST":  # the options may be absent; the output tensor's type is the target
                attrs["to"] = sg.tensors[op.outputs[0]].dtype.name
            attrs = {k: v for k, v in attrs.items() if k in opdef.attrs}
            inputs = [value_of(i) for i in node_inputs if i >= 0]
            if builtin == "FULLY_CONNECTED" and len(inputs[0].shape) != 2:
                # TFLite flattens the input to [-1, in_features] unless keep_num_dims is set.
                inputs[0] = ops.reshape(inputs[0], (None, inputs[1].shape[1]))
            name = sg.tensors[op.outputs[0]].name or f"op_{j}"
            node = graph.add_node(opdef.name, inputs, attrs, name=name)
            outputs = list(node.outputs)
            activation = ACTIVATIONS.get(getattr(op.builtin_options, "fused_activation_function", 0), "NONE")
            if activation != "NONE" and builtin != "UNIDIRECTIONAL_SEQUENCE_LSTM":  # its cells', not after it
                outputs[0] = _activation(ops, activation, outputs[0], builtin, j)
            for index, t in zip(op.outputs, outputs):
                tensors[index] = t
    return ImportedModel(graph, {k: tensors[v] for k, v in input_names.items()},
                         {k: value_of(v) for k, v in output_names.items()}, variables)


def _lstm_node_inputs(model: ModelFile, sg: Any, op: Any, index: int) -> list[int]:
    """The graph LSTM's 13 inputs among TFLite's 24 (LSTM_SLOTS). ModelError naming what the graph's LSTM does
    not compute: CIFG (no input gate), peepholes, a projection, layer norms, a cell activation other than tanh,
    a state that is not a variable tensor (which starts at zero)."""
    from rillet.graph.ops.recurrent import LSTM_SLOTS

    real = list(op.inputs or []) + [-1] * (24 - len(op.inputs or []))
    what = f"operator {index} (UNIDIRECTIONAL_SEQUENCE_LSTM)"
    for position, slot in enumerate(LSTM_SLOTS):
        if isinstance(slot, int) and real[position] < 0:
            raise ModelError(f"{what}: input {position} is omitted (a CIFG LSTM, coupled input and forget gates), "
                             "which cannot be imported")
        if slot is None and real[position] >= 0:
            raise ModelError(f"{what}: input {position} (a peephole, projection or layer norm) cannot be imported")
        if slot in ("h", "c") and (real[position] < 0 or not sg.tensors[real[position]].is_variable):
            raise ModelError(f"{what}: input {position}, its {slot} state, must be a variable tensor")
    if ACTIVATIONS.get(getattr(op.builtin_options, "fused_activation_function", 4)) != "TANH":
        raise ModelError(f"{what}: only tanh cells can be imported")
    return [real[p] for p, slot in enumerate(LSTM_SLOTS) if isinstance(slot, int)]


def _deconv_bias(ops: Any, op: Any, inputs: list, name: str) -> Any:
    """MediaPipe's Convolution2DTransposeBias: a TRANSPOSE_CONV, then its bias. Its options are the raw struct
    {padding (1 SAME, 2 VALID), stride_width, stride_height} (int32s); the output is the input times the
    stride (SAME) or (input - 1) * stride + kernel (VALID), and TRANSPOSE_CONV's padding of that output size
    is the custom op's (max(kernel - stride, 0) / 2 before)."""
    x, f, bias = inputs
    raw = np.asarray(op.custom_options, np.uint8).tobytes()
    if len(raw) < 12:
        raise ModelError(f'Convolution2DTransposeBias "{name}": {len(raw)} bytes of options, expected 12')
    padding, stride_w, stride_h = (int(v) for v in np.frombuffer(raw[:12], "<i4"))
    if padding not in (1, 2):
        raise ModelError(f'Convolution2DTransposeBias "{name}": padding {padding} is neither SAME (1) nor VALID (2)')
    n, h, w, _ = x.shape
    kh, kw = f.shape[1], f.shape[2]
    same = padding == 1
    out_h = h * stride_h if same else (h - 1) * stride_h + kh
    out_w = w * stride_w if same else (w - 1) * stride_w + kw
    y = ops.transpose_conv2d(x, f, (n if n is not None else 1, out_h, out_w, f.shape[0]), (stride_h, stride_w),
                             "SAME" if same else "VALID", name=name + "/deconv")
    return y if bias is None else ops.add(y, bias, name=name)


CUSTOM_IMPORTS = {"Convolution2DTransposeBias": _deconv_bias}


def _is_quantized(t: Any) -> bool:
    """An integer tensor with a scale: its values stand for floats (TFLite's quantization)."""
    q = t.quantization
    return (t.type in TENSOR_TYPE_DTYPES and np.dtype(TENSOR_TYPE_DTYPES[t.type]).kind in "iu"
            and q is not None and q.scale is not None and len(q.scale) > 0)


def _signature(model: ModelFile, key: str | None) -> tuple[int, dict[str, int], dict[str, int]]:
    sigs = model.signature_defs or []
    if key is not None:
        sig = next((s for s in sigs if s.signature_key == key), None)
        if sig is None:
            raise ModelError(f"no signature {key!r}; the file has {[s.signature_key for s in sigs]}")
    elif sigs:
        sig = sigs[0]
    else:
        sg = model.subgraphs[0]
        return 0, {sg.tensors[i].name: i for i in sg.inputs}, {sg.tensors[i].name: i for i in sg.outputs}
    return (sig.subgraph_index, {t.name: t.tensor_index for t in sig.inputs},
            {t.name: t.tensor_index for t in sig.outputs})


def _attrs_from_options(spec: dict, options: Any) -> dict[str, Any]:
    attrs = {}
    for attr, field_ in spec["option_map"].items():
        if options is None or not hasattr(options, field_):
            continue
        value = getattr(options, field_)
        if field_ == "padding":
            value = PADDING[value]
        elif field_ in ("out_type", "output_type"):  # a TensorType code; the graph speaks numpy dtypes
            value = TENSOR_TYPE_DTYPES[value]
        attrs[attr] = tuple(value) if isinstance(value, list) else value
    return attrs


_SCALAR_ATTRS = {"axis", "depth"}


def _attr_from_tensor(model: ModelFile, sg_index: int, index: int, op: Any, attr: str) -> Any:
    data = model.tensor_data(sg_index, index)
    if data is None:
        if attr == "new_shape":  # Keras' Flatten computes the shape; the output's signature says it
            out = model.subgraphs[sg_index].tensors[op.outputs[0]]
            shape = out.shape_signature or out.shape
            return tuple(-1 if d < 0 else int(d) for d in shape)
        raise ModelError(f"{model.op_name(op)}: input {attr!r} must be a constant to import")
    values = data.tolist()
    if isinstance(values, list) and attr in _SCALAR_ATTRS and len(values) == 1:
        return values[0]  # ARG_MAX's axis: a 1-element vector
    if isinstance(values, list):
        return tuple(values)
    # A 0-d tensor: one value. Every attribute written as an input but EXPAND_DIMS' axis is a sequence (a
    # MEAN's axes, a TRANSPOSE's perm), and TensorFlow writes a single reduction axis as a scalar.
    return values if attr in _SCALAR_ATTRS else (values,)


def _activation(ops: Any, activation: str, x: Any, builtin: str, index: int) -> Any:
    if activation == "RELU":
        return ops.relu(x)
    if activation == "RELU6":
        return ops.relu6(x)
    if activation == "TANH":
        return ops.tanh(x)
    raise ModelError(f"operator {index} ({builtin}): fused activation {activation} cannot be imported")
