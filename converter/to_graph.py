"""`to_graph`: a float .tflite file (rillet's or TensorFlow's) -> a rillet graph, to run or fine-tune.

Each builtin maps back to the graph op whose TFLite lowering it is (the registry's `tflite` records);
float weights of more than one element become Variables, so `rl.gradients` and the optimizers can train
them; float16 and sparse weights (a DEQUANTIZE of a float16 constant, a DENSIFY of a sparse one) become
dense float32 ones. The subgraphs that IF, WHILE and CALL_ONCE call become graph Functions (each once). The
weights inside an IF's branches and a WHILE's condition and body (nested ones too) become Variables of the
signature's graph as well, handed to the op as inputs after the file's (a WHILE's body gives them back
unchanged), as TensorFlow hands a function the variables it captures: their gradients flow through the control
flow like any argument's. A CALL_ONCE initialiser's constants stay constants (what it assigns), and a model's
resource variables (its state, set by a CALL_ONCE initialiser) stay resources: `effects` lists the
nodes run for what they do, to pass to `convert(run=...)`. A quantized model (int8 activations or weights: full-integer or dynamic-range) is
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
from .lowering import CALLED_FUNCTIONS


@dataclass
class ImportedModel:
    """A graph built from a .tflite signature, with its named inputs and outputs."""

    graph: Any
    inputs: dict[str, Any]
    outputs: dict[str, Any]
    variables: list[Any] = field(default_factory=list)
    effects: list[Any] = field(default_factory=list)  # nodes run for what they do: CALL_ONCE, ASSIGN_VARIABLE

    def run(self, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        return self.graph.run([self.outputs, self.effects], {self.inputs[k]: v for k, v in feeds.items()})[0]


def to_graph(model: ModelFile | str | os.PathLike | bytes, signature: str | None = None,
             graph: Any = None, carry_lstm_state: bool = True) -> ImportedModel:
    """Import one signature of a float model (a ModelFile, a path, or the file's bytes) into `graph` (default:
    a new Graph): `signature` names it (default: the first, or subgraph 0 when the file has none). Inputs
    and outputs are keyed by the signature's names (the tensors' names without one). ModelError names what
    cannot be imported: an op rillet.graph has no op for, a quantized tensor, an unknown signature. An LSTM
    carries its state from one run to the next as the file's does (`carry_lstm_state=False`: from zero at every
    run, as training over independent samples needs)."""
    from rillet.graph import Graph, ops

    if not isinstance(model, ModelFile):
        model = load(model)
    model = expand_weights(model)
    sg_index, input_names, output_names = _signature(model, signature)
    sg = model.subgraphs[sg_index]
    importer = _Importer(model, sg_index, carry_lstm_state)
    graph = graph or Graph()
    with graph.as_default():
        inputs = {name: _placeholder(ops, sg.tensors[index], name) for name, index in input_names.items()}
        tensors, variables, effects = importer.subgraph(sg_index, dict(zip(input_names.values(), inputs.values())),
                                                        lambda key: importer.variable(key).value)
        outputs = {k: tensors(v) for k, v in output_names.items()}
    return ImportedModel(graph, inputs, outputs, variables, effects)


def _placeholder(ops: Any, t: Any, name: str) -> Any:
    shape = t.shape_signature if t.shape_signature else t.shape
    return ops.placeholder([None if d < 0 else d for d in shape], t.dtype.name, name=name)


class _Importer:
    """Imports subgraphs of one model: a signature's into the caller's graph, those its IF, WHILE and CALL_ONCE
    ops call into graph Functions (each once)."""

    def __init__(self, model: ModelFile, signature: int, carry_lstm_state: bool = True):
        from rillet.graph import REGISTRY

        self.model, self.signature, self.carry_lstm_state = model, signature, carry_lstm_state
        self.by_builtin = {d.tflite["builtin"]: d for d in REGISTRY.values() if d.tflite}
        self.functions: dict[tuple[int, bool], Any] = {}  # (subgraph, captures) -> (Function, captured inputs)
        self.variables: dict[tuple[int, int], Any] = {}  # (subgraph, tensor) -> the Variable its weight became
        self.resources = _resource_specs(model)

    def function(self, k: int, captures: bool = False) -> Any:
        """Subgraph k as a graph Function of its own graph. With `captures` (an IF's branch, a WHILE's condition or
        body) its float weights, and those of the subgraphs it calls, are not constants of it but inputs after its
        own (`captured`: the (subgraph, tensor) each stands for), so that the caller hands them in and a gradient
        reaches them; without (a CALL_ONCE initialiser: what it assigns) they stay constants."""
        from rillet.graph import Graph, ops

        if (k, captures) not in self.functions:
            sg = self.model.subgraphs[k]
            graph = Graph()
            captured: dict[tuple[int, int], Any] = {}

            def capture(key: tuple[int, int]) -> Any:
                if key not in captured:
                    captured[key] = ops.placeholder(self.model.subgraphs[key[0]].tensors[key[1]].shape, "float32",
                                                    name=f"weight_{key[0]}_{key[1]}", graph=graph)
                return captured[key]

            with graph.as_default():
                inputs = [_placeholder(ops, sg.tensors[i], f"arg{n}") for n, i in enumerate(sg.inputs)]
                tensors, _variables, effects = self.subgraph(k, dict(zip(sg.inputs, inputs)),
                                                             capture if captures else None)
                outputs = [tensors(i) for i in sg.outputs]
            function = ops.Function(graph, inputs, outputs, effects, name=sg.name or f"subgraph_{k}")
            self.functions[(k, captures)] = (function, captured)
        return self.functions[(k, captures)]

    def calls(self, builtin: str, op: Any, weight: Any) -> tuple[dict[str, Any], list[Any]]:
        """The attrs of a control-flow op (its Functions) and the tensors it takes after the file's inputs: the
        weights its functions capture, each `weight((subgraph, tensor))` in the calling graph. IF's two branches
        and WHILE's condition and body take the same inputs, so each takes every weight either captures (one it
        does not read is an input it ignores), and a WHILE's body gives its weights back unchanged (loop values
        that never change, whose gradient the WHILE's rule sums over the iterations)."""
        from rillet.graph import ops

        fields = CALLED_FUNCTIONS[builtin]
        if builtin == "CALL_ONCE":
            return {attr: self.function(getattr(op.builtin_options, f))[0] for f, attr in fields.items()}, []
        called = {attr: self.function(getattr(op.builtin_options, f), captures=True) for f, attr in fields.items()}
        keys = list(dict.fromkeys(key for _, captured in called.values() for key in captured))
        attrs = {}
        for attr, (f, captured) in called.items():
            if not keys:
                attrs[attr] = f
                continue
            extra = [captured[key] if key in captured else self._unread(f, key) for key in keys]
            attrs[attr] = ops.Function(f.graph, [*f.inputs, *extra], [*f.outputs, *extra] if attr == "body"
                                       else f.outputs, f.effects, name=f.name)
        return attrs, [weight(key) for key in keys]

    def _unread(self, f: Any, key: tuple[int, int]) -> Any:
        """An input of `f` standing for a weight the other function of its op reads and it does not."""
        from rillet.graph import ops

        name = f"unread_{key[0]}_{key[1]}"
        held = f.graph.placeholders.get(name)
        return held if held is not None else ops.placeholder(self.model.subgraphs[key[0]].tensors[key[1]].shape,
                                                             "float32", name=name, graph=f.graph)

    def variable(self, key: tuple[int, int]) -> Any:
        """The Variable of the signature's graph that a float weight becomes, one per (subgraph, tensor): the
        signature's own weights and those of the subgraphs its IF and WHILE ops call."""
        from rillet.graph import Variable

        if key not in self.variables:
            t = self.model.subgraphs[key[0]].tensors[key[1]]
            self.variables[key] = Variable(np.array(self.model.tensor_data(*key)),
                                           name=t.name or (f"tensor_{key[1]}" if key[0] == self.signature
                                                           else f"subgraph_{key[0]}/tensor_{key[1]}"))
        return self.variables[key]

    def _lstm_state(self, sg_index: int, op: Any, name: str) -> None:
        """A carried LSTM's h and c as two untrained Variables of the signature's graph, named as ops.lstm names
        them (made before the op, so their reads see the state a run starts from), from the file's variable
        tensors: its gradient then starts from the state a run starts from, and a training file keeps the state
        as resource variables that `infer` and `train` share (a streaming model trains on its stream)."""
        from rillet.graph import Variable
        from rillet.graph.ops.recurrent import LSTM_SLOTS, state_keys

        sg = self.model.subgraphs[sg_index]
        real = list(op.inputs or []) + [-1] * (24 - len(op.inputs or []))
        held = {slot: real[p] for p, slot in enumerate(LSTM_SLOTS) if slot in ("h", "c")}
        for key, slot in zip(state_keys(name), ("h", "c")):
            t = sg.tensors[held[slot]]
            data = self.model.tensor_data(sg_index, held[slot])
            Variable(np.zeros(t.shape, np.float32) if data is None else np.array(data, np.float32), name=key,
                     trainable=False)

    def subgraph(self, sg_index: int, given: dict[int, Any], weight: Any = None) -> tuple[Any, list, list]:
        """Subgraph `sg_index`'s ops into the default graph, `given` its inputs (tensor index -> graph tensor),
        `weight((subgraph, tensor))` the graph tensor a float weight of more than one value becomes (None: a
        constant): a function giving the graph tensor of a file's tensor, the Variables made (for the signature's
        subgraph: its weights and its called subgraphs'), and the nodes run for their effect (CALL_ONCE,
        ASSIGN_VARIABLE)."""
        from rillet.graph import get_default_graph, ops

        model, graph = self.model, get_default_graph()
        sg = model.subgraphs[sg_index]
        at_edges = {i for op in sg.operators if model.op_name(op) in QUANTIZATION_OPS
                    for i in (op.inputs or []) + (op.outputs or [])}
        inside = {i for op in sg.operators if model.op_name(op) not in QUANTIZATION_OPS
                  for i in (op.inputs or []) + (op.outputs or [])}
        quantized = next((i for i, t in enumerate(sg.tensors)
                          if _is_quantized(t) and (i in inside or i not in at_edges)), None)
        if quantized is not None:
            t = sg.tensors[quantized]
            raise ModelError(f"tensor {quantized} {t.name!r} is quantized ({t.dtype.name}, scale "
                             f"{t.quantization.scale[0]:g}): to_graph imports float models; import the float model "
                             "this one was quantized from")
        unsupported = sorted({model.op_name(op) for op in sg.operators
                              if model.op_name(op) not in self.by_builtin and model.op_name(op) not in CUSTOM_IMPORTS})
        if unsupported:
            raise ModelError("cannot import operators rillet.graph has no op for: " + ", ".join(unsupported))
        tensors: dict[int, Any] = dict(given)
        effects: list = []
        made = len(self.variables)

        def constant(key: tuple[int, int]) -> Any:
            return ops.constant(np.array(model.tensor_data(*key)), name=model.subgraphs[key[0]].tensors[key[1]].name
                                or "const")

        def value_of(index: int) -> Any:
            if index not in tensors:
                data = model.tensor_data(sg_index, index)
                if data is None:
                    raise ModelError(f"tensor {index} {sg.tensors[index].name!r} is used before it is computed")
                if weight is not None and data.dtype == np.float32 and data.size > 1:
                    tensors[index] = weight((sg_index, index))
                else:
                    tensors[index] = ops.constant(np.array(data), name=sg.tensors[index].name or "const")
            return tensors[index]

        for j, op in enumerate(sg.operators):
            builtin = model.op_name(op)
            name = sg.tensors[op.outputs[0]].name if op.outputs else ""
            name = name or f"op_{j}"
            if builtin in CUSTOM_IMPORTS:
                inputs = [value_of(i) if i >= 0 else None for i in op.inputs or []]
                tensors[op.outputs[0]] = CUSTOM_IMPORTS[builtin](ops, op, inputs, name)
                continue
            if builtin in CALLED_FUNCTIONS:
                attrs, captured = self.calls(builtin, op, weight or constant)
                node = graph.add_node(builtin, [*(value_of(i) for i in op.inputs or []), *captured], attrs,
                                      name=name if op.outputs else builtin.lower())
                if not op.outputs:
                    effects.append(node)
                tensors.update(zip(op.outputs or [], node.outputs))  # a WHILE's captured weights come out unread
                continue
            opdef = self.by_builtin[builtin]
            spec = opdef.tflite
            real_inputs = [i for i in (op.inputs or [])]
            attrs = _attrs_from_options(spec, op.builtin_options)
            if builtin == "UNIDIRECTIONAL_SEQUENCE_LSTM":
                node_inputs, attr_slots = _lstm_node_inputs(model, sg, op, j), []
                attrs.update(carry_state=self.carry_lstm_state, state_name=name)
                if self.carry_lstm_state and sg_index == self.signature:
                    self._lstm_state(sg_index, op, name)
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
            if builtin == "VAR_HANDLE":  # TFLite's handle has no shape: its reads' and assignments' say it
                attrs["shape"], attrs["dtype"] = self.resources.get(attrs["shared_name"], ((), "float32"))
            if builtin in CUSTOM_OPS:  # MediaPipe's pooling: TfLitePoolParams in the custom options
                from rillet.graph.ops.mediapipe import pool_attrs

                try:
                    attrs = pool_attrs(np.asarray(op.custom_options, np.uint8).tobytes(), f'{builtin} "{name}"')
                except ValueError as e:
                    raise ModelError(str(e)) from None
            if builtin in QUANTIZATION_OPS:
                attrs.update(_quantization_attrs(sg, op, builtin, name))
            if builtin == "READ_VARIABLE":
                out = sg.tensors[op.outputs[0]]
                attrs["shape"], attrs["dtype"] = tuple(out.shape_signature or out.shape), out.dtype.name
            attrs = {k: v for k, v in attrs.items() if k in opdef.attrs}
            inputs = [value_of(i) for i in node_inputs if i >= 0]
            kept_dims = None
            if builtin == "FULLY_CONNECTED" and len(inputs[0].shape) != 2:
                # TFLite flattens the input to [-1, in_features]; with keep_num_dims the output keeps the
                # input's leading dimensions (a transformer's [1, tokens, features] head)
                if getattr(op.builtin_options, "keep_num_dims", False):
                    out = sg.tensors[op.outputs[0]]
                    kept_dims = tuple(None if n < 0 else int(n) for n in (out.shape_signature or out.shape))
                inputs[0] = ops.reshape(inputs[0], (None, inputs[1].shape[1]))
            node = graph.add_node(opdef.name, inputs, attrs, name=name)
            if not op.outputs:
                effects.append(node)
            outputs = list(node.outputs)
            if kept_dims is not None:
                outputs[0] = ops.reshape(outputs[0], kept_dims)
            activation = ACTIVATIONS.get(getattr(op.builtin_options, "fused_activation_function", 0), "NONE")
            if activation != "NONE" and builtin != "UNIDIRECTIONAL_SEQUENCE_LSTM":  # its cells', not after it
                outputs[0] = _activation(ops, activation, outputs[0], builtin, j)
            for index, t in zip(op.outputs or [], outputs):
                tensors[index] = t
        return value_of, list(self.variables.values())[made:], effects


CUSTOM_OPS = ("MaxPoolingWithArgmax2D", "MaxUnpooling2D")  # graph ops read from a custom op's options

QUANTIZATION_OPS = ("QUANTIZE", "DEQUANTIZE")
"""The ops a quantized tensor may meet in an imported model: its levels' scale and zero point become their attrs
(a float model's edges: an int8 input or output, a QAT model's QUANTIZE -> DEQUANTIZE pairs)."""


def _quantization_attrs(sg: Any, op: Any, builtin: str, name: str) -> dict[str, Any]:
    """QUANTIZE's attrs from its output tensor, DEQUANTIZE's from its input (float16: none)."""
    levels = sg.tensors[op.outputs[0] if builtin == "QUANTIZE" else op.inputs[0]]
    if builtin == "QUANTIZE" and sg.tensors[op.inputs[0]].dtype != np.float32:
        raise ModelError(f'QUANTIZE "{name}": requantizes {sg.tensors[op.inputs[0]].dtype.name} levels, which '
                         "the graph cannot (it quantizes float32)")
    if not _is_quantized(levels):
        return {"scale": None, "zero_point": 0} if builtin == "DEQUANTIZE" else {}
    q = levels.quantization
    zero_points = [int(v) for v in (q.zero_point if q.zero_point is not None and len(q.zero_point) else [0])]
    if len(q.scale) == 1:
        attrs = {"scale": float(q.scale[0]), "zero_point": zero_points[0], "axis": None}
    else:  # per channel along quantized_dimension
        attrs = {"scale": tuple(float(v) for v in q.scale), "axis": int(q.quantized_dimension or 0),
                 "zero_point": tuple(zero_points * len(q.scale) if len(zero_points) == 1 else zero_points)}
    if builtin == "QUANTIZE":
        attrs["dtype"] = levels.dtype.name
    return attrs


def _resource_specs(model: ModelFile) -> dict[str, tuple[tuple, str]]:
    """Each resource variable's (shape, dtype), by shared name, from what its READ_VARIABLEs give or its
    ASSIGN_VARIABLEs store, in any subgraph (a CALL_ONCE initialiser assigns what a signature reads)."""
    specs = {}
    for sg in model.subgraphs:
        handles = {op.outputs[0]: op.builtin_options.shared_name for op in sg.operators
                   if model.op_name(op) == "VAR_HANDLE" and op.builtin_options is not None}
        for op in sg.operators:
            kind = model.op_name(op)
            if kind in ("READ_VARIABLE", "ASSIGN_VARIABLE") and op.inputs and op.inputs[0] in handles:
                t = sg.tensors[op.outputs[0] if kind == "READ_VARIABLE" else op.inputs[1]]
                specs.setdefault(handles[op.inputs[0]], (tuple(t.shape_signature or t.shape), t.dtype.name))
    return specs


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
