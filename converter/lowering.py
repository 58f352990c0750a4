"""Graph -> the converter's IR: TFLite-shaped ops over tensors, before the passes and the writer.

The IR is TFLite's own model, one level up: each op is a builtin with decoded options and tensor
indices, each tensor a shape (-1 where dynamic), a dtype and, for constants, a value. Variables are
frozen to their current values: an `infer` signature reads weights, it does not own them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .format import ModelError
from .format.schema import TENSOR_TYPES

PADDINGS = {"SAME": 0, "VALID": 1}


@dataclass
class IRTensor:
    name: str
    shape: list[int]  # -1 for a dimension known only at run time
    dtype: str
    value: np.ndarray | None = None
    is_variable: bool = False  # TFLite's variable tensor: state an op keeps across invokes (an LSTM's h and c)
    # (scale, zero point, axis) of integer levels, QUANTIZE's output: floats and ints, or per channel (axis not
    # None) tuples of them
    quantization: tuple[Any, Any, int | None] | None = None
    sparse: bool = False  # a constant written in TFLite's sparsity format (DENSIFY's input)


@dataclass
class IROp:
    builtin: str
    inputs: list[int]  # -1 for an omitted optional input
    outputs: list[int]
    options_table: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    node: Any = None  # the graph node this op came from, for folding it on the numpy reference
    node_inputs: list[int] = field(default_factory=list)
    calls: dict[str, IR] = field(default_factory=dict)  # an options field -> the subgraph it names (IF's branches)
    custom_options: bytes | None = None  # a custom op's (MediaPipe's pooling: TfLitePoolParams)


@dataclass
class IR:
    tensors: list[IRTensor] = field(default_factory=list)
    ops: list[IROp] = field(default_factory=list)
    inputs: dict[str, int] = field(default_factory=dict)  # signature name -> tensor
    outputs: dict[str, int] = field(default_factory=dict)

    def add_tensor(self, name: str, shape, dtype: str, value: np.ndarray | None = None) -> int:
        dims = [-1 if d is None else int(d) for d in shape]
        self.tensors.append(IRTensor(name, dims, dtype, value))
        return len(self.tensors) - 1

    def add_constant(self, name: str, value: Any, dtype: str = "int32") -> int:
        value = np.asarray(value, dtype=dtype)
        return self.add_tensor(name, value.shape, value.dtype.name, value)

    def consumers(self, tensor: int) -> list[IROp]:
        return [op for op in self.ops if tensor in op.inputs]


def lower_graph(inputs: dict[str, Any], outputs: dict[str, Any], resources: frozenset[str] = frozenset(),
                run: tuple = ()) -> IR:
    """The IR of the subgraph that computes `outputs` from `inputs` (signature name -> graph Tensor).

    `resources` names the variables kept as resource variables (read and assigned where the graph does), as is
    every resource no Variable made (an imported model's state); every other Variable is frozen to its current
    value. `run` adds nodes reached for their effect (a
    train op: the assignments it groups), followed through control edges as well as data edges.
    """
    ir = IR()
    of_tensor: dict[Any, int] = {}  # graph Tensor -> IR tensor
    for name, t in inputs.items():
        if t.node.op != "PLACEHOLDER":
            raise ModelError(f'input "{name}": {t.name} is not a placeholder')
        of_tensor[t] = ir.inputs[name] = ir.add_tensor(t.node.attrs["name"], t.shape, t.dtype)
    problems: list[str] = []
    for node in _needed_nodes(list(outputs.values()), set(inputs.values()), list(run)):
        try:
            if node.op in VARIABLE_OPS and (_variable_name(node) in resources
                                            or _variable_name(node) not in node.graph.variables):
                _lower_variable_op(ir, node, of_tensor)
                continue
            if node.op == "UNIDIRECTIONAL_SEQUENCE_LSTM" and node.attrs["carry_state"] and _state_kept(node, resources):
                _lower_unrolled_lstm(ir, node, of_tensor, carried=True)
                continue
            _lower_node(ir, node, of_tensor)
        except _Unconvertible as e:
            problems.append(f'{node.op} "{node.name}": {e}')
            for t in node.outputs:  # stand-ins, so the nodes after it are checked too
                of_tensor[t] = ir.add_tensor(t.name, t.shape, t.dtype)
    if problems:
        raise ModelError("cannot convert " + str(len(problems)) + " node(s):\n  " + "\n  ".join(problems))
    for name, t in outputs.items():
        ir.outputs[name] = of_tensor[t]
    return ir


class _Unconvertible(Exception):
    pass


def _needed_nodes(fetches: list, stop: set, run: list) -> list:
    """The nodes `fetches` depend on through data edges and those `run` depends on through any edge, in
    graph (topological) order."""
    graph = (fetches or run)[0].graph
    needed = graph.ancestors([t for t in fetches if t not in stop], stop=stop, control=False)
    if run:
        needed |= graph.ancestors(run, stop=stop, control=True)
    return [n for n in graph.nodes if n in needed and n.op != "NO_OP"]


VARIABLE_OPS = ("VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE")


def _variable_name(node) -> str:
    handle = node if node.op == "VAR_HANDLE" else node.inputs[0].node
    return handle.attrs["shared_name"]


def _lower_variable_op(ir: IR, node, of_tensor: dict) -> None:
    """A resource variable's op as itself. TFLite's READ_VARIABLE copies the value into its output, so a
    read that comes before an assignment keeps the old value, as every read of a graph run does."""
    if node.op == "VAR_HANDLE":
        of_tensor[node.outputs[0]] = handle = ir.add_tensor(node.name, (), "resource")
        ir.ops.append(IROp("VAR_HANDLE", [], [handle], "VarHandleOptions",
                           {"container": "", "shared_name": node.attrs["shared_name"]}))
        return
    inputs = [of_tensor[t] for t in node.inputs]
    if node.op == "READ_VARIABLE":
        out = node.outputs[0]
        of_tensor[out] = index = ir.add_tensor(node.name, out.shape, out.dtype)
        ir.ops.append(IROp("READ_VARIABLE", inputs, [index]))
        return
    ir.ops.append(IROp("ASSIGN_VARIABLE", inputs, []))


def _lower_node(ir: IR, node, of_tensor: dict) -> None:
    out = node.outputs
    if node.op == "PLACEHOLDER":
        raise _Unconvertible(f'placeholder "{node.attrs["name"]}" is not among the model inputs')
    if node.op == "CONST":
        of_tensor[out[0]] = ir.add_tensor(node.name, out[0].shape, out[0].dtype, np.asarray(node.attrs["value"]))
        return
    if node.op == "READ_VARIABLE":
        graph = node.graph
        name = node.inputs[0].node.attrs["shared_name"]
        if any(n.op == "UNIDIRECTIONAL_SEQUENCE_LSTM" and n.attrs["carry_state"]
               and name in (f"{n.attrs['state_name']}/h_state", f"{n.attrs['state_name']}/c_state") for n in graph.nodes):
            raise _Unconvertible(f'reads the state of a carried LSTM ("{name}", its gradient\'s start), which the fused '
                                 "op keeps to itself here: a training file (convert(train=...)) keeps it as resource "
                                 "variables")
        of_tensor[out[0]] = ir.add_tensor(name, out[0].shape, out[0].dtype, np.array(graph.store[name]))
        return
    if node.op == "VAR_HANDLE":
        return  # reached only through READ_VARIABLE, which freezes the value
    if node.op == "ASSIGN_VARIABLE":
        raise _Unconvertible(f'assigns variable "{_variable_name(node)}", which this signature freezes')
    if node.op == "IDENTITY":  # no builtin needed: the output is the input
        of_tensor[out[0]] = of_tensor[node.inputs[0]]
        return
    spec = node.opdef.tflite
    if spec is None:
        raise _Unconvertible("has no TFLite lowering")
    if node.op in CALLED_FUNCTIONS:
        _lower_call(ir, node, of_tensor)
        return
    if node.op == "UNIDIRECTIONAL_SEQUENCE_LSTM" and not node.attrs["carry_state"]:
        _lower_unrolled_lstm(ir, node, of_tensor)
        return
    node_inputs = [of_tensor[t] for t in node.inputs]
    attrs = node.attrs
    if node.op == "DENSIFY":  # its own copy of the constant, written sparse (another reader may need it dense)
        weight = ir.tensors[node_inputs[0]]
        if weight.value is None:
            raise _Unconvertible(f'input "{node.inputs[0].name}" must be a constant (a weight) to store it sparse')
        node_inputs = [ir.add_tensor(f"{node.name}/sparse", weight.shape, weight.dtype, weight.value)]
        ir.tensors[node_inputs[0]].sparse = True
    attr_tensors = {attr: ir.add_constant(f"{node.name}/{attr}", _attr_input(node, attr))
                    for attr in spec["attr_inputs"]}
    if spec["builtin"] == "UNIDIRECTIONAL_SEQUENCE_LSTM":
        inputs = _lstm_inputs(ir, node, node_inputs)
    elif spec.get("order"):
        inputs = [node_inputs[i] if isinstance(i, int) else attr_tensors[i] for i in spec["order"]]
    else:
        inputs = node_inputs + list(attr_tensors.values())
    options = {field_: _option_value(field_, attrs[attr]) for attr, field_ in spec["option_map"].items()}
    builtin = spec["builtin"]
    if builtin in ("CONV_2D", "DEPTHWISE_CONV_2D") and len(inputs) == 2:
        # TFLite's kernels take the bias as a third input; a zero one keeps every runtime happy.
        channels = node.inputs[1].shape[0 if builtin == "CONV_2D" else 3]
        inputs.append(ir.add_constant(f"{node.name}/bias", np.zeros(channels, np.float32), "float32"))
    if builtin == "FULLY_CONNECTED" and len(inputs) == 2:
        inputs.append(-1)
    if builtin == "CAST":
        options = {"in_data_type": TENSOR_TYPES[node.inputs[0].dtype.upper()],
                   "out_data_type": TENSOR_TYPES[out[0].dtype.upper()]}
    if builtin == "UNIDIRECTIONAL_SEQUENCE_LSTM":
        options["fused_activation_function"] = 4  # TANH: the cell's activation, not one applied after the op
    if builtin == "PACK":
        options["values_count"] = len(node.inputs)
    if builtin == "DEPTHWISE_CONV_2D":
        options.setdefault("depth_multiplier", out[0].shape[3] // max(node.inputs[0].shape[3] or 1, 1))
    outputs = [ir.add_tensor(node.name if i == 0 else f"{node.name}:{i}", t.shape, t.dtype)
               for i, t in enumerate(out)]
    for t, index in zip(out, outputs):
        of_tensor[t] = index
    if builtin in ("QUANTIZE", "DEQUANTIZE") and attrs["scale"] is not None:
        _set_quantization(ir, outputs[0] if builtin == "QUANTIZE" else inputs[0], attrs)
    ir.ops.append(IROp(builtin, inputs, outputs, spec["options"], options, node, node_inputs))
    if node.op in ("MaxPoolingWithArgmax2D", "MaxUnpooling2D"):
        from rillet.graph.ops.mediapipe import pool_options

        ir.ops[-1].custom_options = pool_options(attrs)


def _set_quantization(ir: IR, index: int, attrs: dict) -> None:
    """The scale and zero point of the levels QUANTIZE makes or DEQUANTIZE reads, on their tensor: a graph
    tensor has none, a file's integer tensor needs them. _Unconvertible when two ops give one tensor two."""
    params = (attrs["scale"], attrs["zero_point"], attrs["axis"])
    t = ir.tensors[index]
    if t.quantization is not None and t.quantization != params:
        raise _Unconvertible(f'tensor "{t.name}" has scale and zero point {t.quantization}, this op reads it as '
                             f"{params}")
    t.quantization = params


CALLED_FUNCTIONS = {"IF": {"then_subgraph_index": "then_branch", "else_subgraph_index": "else_branch"},
                    "WHILE": {"cond_subgraph_index": "cond", "body_subgraph_index": "body"},
                    "CALL_ONCE": {"init_subgraph_index": "init"}}
"""The control-flow ops: each options field that names a subgraph, and the attr holding its graph Function."""


def lower_function(function: Any) -> IR:
    """The IR of a graph Function (graph/ops/control.py), optimized: its placeholders in, its outputs out (in
    order), its effects run. The writer gives it a subgraph of its own."""
    from .passes import optimize

    ir = IR()
    if function.outputs or function.effects:
        ir = lower_graph({t.node.attrs["name"]: t for t in function.inputs},
                         {f"output_{k}": t for k, t in enumerate(function.outputs)}, run=tuple(function.effects))
        if len(set(ir.outputs.values())) != len(function.outputs):
            raise _Unconvertible(f'function "{function.name}" gives one tensor twice, which a subgraph cannot')
    return optimize(ir)


def _lower_call(ir: IR, node, of_tensor: dict) -> None:
    """IF, WHILE or CALL_ONCE: the op over the node's tensors, each function it calls lowered to its own IR."""
    try:
        calls = {field_: lower_function(node.attrs[attr]) for field_, attr in CALLED_FUNCTIONS[node.op].items()}
    except ModelError as e:
        raise _Unconvertible(str(e)) from None
    node_inputs = [of_tensor[t] for t in node.inputs]
    outputs = [ir.add_tensor(node.name if i == 0 else f"{node.name}:{i}", t.shape, t.dtype)
               for i, t in enumerate(node.outputs)]
    of_tensor.update(zip(node.outputs, outputs))
    spec = node.opdef.tflite
    ir.ops.append(IROp(spec["builtin"], list(node_inputs), outputs, spec["options"], {}, node, node_inputs, calls))


def _state_kept(node, resources: frozenset) -> bool:
    """Whether a carried LSTM's state Variables are resource variables of the signature (a training file's)."""
    from rillet.graph.ops.recurrent import state_variables

    held = state_variables(node)
    return held is not None and all(v.name in resources for v in held)


def _lower_unrolled_lstm(ir: IR, node, of_tensor: dict, carried: bool = False) -> None:
    """An LSTM as the builtins of its steps (recurrent.unrolled_lstm, built in a graph of its own over stand-ins
    for the node's inputs, lowered, and spliced in over their tensors): one that starts from zero at every run,
    or (`carried`) one whose state its resource variables hold: read before the steps, assigned after them."""
    from rillet.graph import Graph, ops
    from rillet.graph.ops.recurrent import state_variables, unrolled_lstm

    graph = Graph()
    with graph.as_default():
        stand_ins = {f"input_{k}": ops.placeholder(t.shape, t.dtype, name=f"input_{k}")
                     for k, t in enumerate(node.inputs)}
        held = state_variables(node) if carried else ()
        start = tuple(ops.placeholder(v.shape, v.dtype, name=f"start_{k}") for k, v in enumerate(held)) or None
        try:
            y, h, c = unrolled_lstm(node, list(stand_ins.values()), start, final=True)
        except ValueError as e:
            raise _Unconvertible(f"{e} (or carry_state=True: the fused op, its state carried between invokes)")
    steps = lower_graph({**stand_ins, **{f"start_{k}": t for k, t in enumerate(start or ())}},
                        {"y": y, "h": h, "c": c} if carried else {"y": y})
    index = {steps.inputs[k]: of_tensor[t] for k, t in zip(stand_ins, node.inputs)}
    handles = []
    for k, v in enumerate(held):
        handles.append(ir.add_tensor(f"{v.name}/handle", (), "resource"))
        ir.ops.append(IROp("VAR_HANDLE", [], [handles[-1]], "VarHandleOptions", {"container": "", "shared_name": v.name}))
        index[steps.inputs[f"start_{k}"]] = ir.add_tensor(f"{v.name}/start", v.shape, v.dtype)
        ir.ops.append(IROp("READ_VARIABLE", [handles[-1]], [index[steps.inputs[f"start_{k}"]]]))
    for k, t in enumerate(steps.tensors):
        if k not in index:
            t.name = f"{node.name}/{t.name}"
            ir.tensors.append(t)
            index[k] = len(ir.tensors) - 1
    for op in steps.ops:
        op.inputs = [index[i] if i >= 0 else i for i in op.inputs]
        op.outputs = [index[o] for o in op.outputs]
        op.node_inputs = [index[i] for i in op.node_inputs]
        ir.ops.append(op)
    of_tensor[node.outputs[0]] = index[steps.outputs["y"]]
    for handle, last in zip(handles, ("h", "c")):
        ir.ops.append(IROp("ASSIGN_VARIABLE", [handle, index[steps.outputs[last]]], []))


def _lstm_inputs(ir: IR, node, node_inputs: list[int]) -> list[int]:
    """TFLite's 24 LSTM inputs: the node's where LSTM_SLOTS puts them, -1 for the omitted ones, and zeroed
    variable tensors for the output and cell state (batch-sized: the batch must be static)."""
    from rillet.graph.ops.recurrent import LSTM_SLOTS

    x = node.inputs[0]
    batch = x.shape[1 if node.attrs["time_major"] else 0]
    if batch is None:
        raise _Unconvertible("an LSTM's state has the batch's size, which must be static")
    cells = node.inputs[5].shape[0]
    inputs = []
    for slot in LSTM_SLOTS:
        if slot in ("h", "c"):
            inputs.append(ir.add_tensor(f"{node.name}/{slot}_state", (batch, cells), "float32"))
            ir.tensors[inputs[-1]].is_variable = True
        else:
            inputs.append(-1 if slot is None else node_inputs[slot])
    return inputs


def _attr_input(node, attr: str) -> np.ndarray:
    value = node.attrs[attr]
    if attr == "axes" and value is None:  # a reduction over every axis
        value = list(range(len(node.inputs[0].shape)))
    if attr == "new_shape":
        value = [-1 if d is None else d for d in value]
    return np.asarray(value, dtype=np.int32)


def _option_value(field_: str, value: Any) -> Any:
    if field_ == "padding" and isinstance(value, str):
        return PADDINGS[value.upper()]
    if field_ in ("out_type", "output_type", "idx_out_type"):
        return TENSOR_TYPES[np.dtype(value).name.upper()]
    if isinstance(value, (list, tuple)):
        return [int(v) for v in value]
    return value
