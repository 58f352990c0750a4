"""`trainable`: a float or quantized .tflite -> a training file of it (`infer`, `train`, `save`, `restore`),
its last layers trainable, the rest of the model copied as it is.

The model is cut in two. The **tail** is every op that depends on a trained weight: it is imported as a graph
(`to_graph`), given a loss, gradients and an optimizer (`TrainSpec`, `training_file`), and written with
resource variables. The **frozen part** is everything else: its ops, tensors and constants are copied
unchanged in front of the tail in `infer` and `train` (only what each signature needs), so any op the
runtime runs may sit there (custom ops, float16 weights, ops the graph API has no gradient for). The
tensors where the two meet are the tail's inputs. The model's metadata is kept.

A quantized tail trains in float: its int8 weights (and int32 biases) become float variables, dequantized with
their scales, behind a DEQUANTIZE of the int8 boundary. `infer` is then the original's own ops, each trained
weight quantized from its variable with the original's scales (frozen_copy.original_infer): the deployed
model's arithmetic, bit for bit the original's before any step.
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from .format import (
    Buffer,
    Metadata,
    ModelError,
    ModelFile,
    SignatureDef,
    SubGraph,
    TensorMap,
    load,
    save,
)
from .format.prune import drop_unused_buffers, drop_unused_tensors
from .float_copy import float_copy
from .frozen_copy import (
    _called_subgraphs,
    ancestors,
    boundary_name,
    code_index,
    is_constant,
    is_quantized,
    keep_metadata,
    original_infer,
    score_signature,
    splice_frozen,
)
from .new_classes import with_classes

# Ops whose constant inputs are a layer's weights (what --train-last counts).
WEIGHTED = {"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "TRANSPOSE_CONV", "BATCH_MATMUL", "PRELU",
            "EMBEDDING_LOOKUP", "Convolution2DTransposeBias"}
# Ops that read a weight through them: a float16 or sparse constant widened at run time.
WEIGHT_VIEWS = {"DEQUANTIZE", "DENSIFY"}
# Variable names the runtimes take (librillet reads up to 255 bytes), less room for an optimizer slot's prefix.
MAX_VARIABLE_NAME = 200
LOSSES = ("softmax_cross_entropy", "sigmoid_cross_entropy", "mse", "output")
OPTIMIZERS = ("sgd", "momentum", "adam")
# What the training file is trained for, as JSON metadata: `rillet train` reads the loss to know whether an
# accuracy means anything, and which `infer` output the loss reads; `rillet inspect` names the trained layers.
TASK_METADATA = "rillet_trainable"


@dataclass
class Layer:
    """A weighted op of the model: its index, its name (its output tensor's) and its weight tensors. A layer
    inside a subgraph that an IF or a WHILE calls (a branch, a loop's body) has the index of that op in the
    signature's subgraph, and `inside` holds its weights that are constants of the called subgraph, as
    (subgraph, tensor); `weights` the signature subgraph's constants it reads through the op's operands."""

    op: int
    name: str
    kind: str
    weights: list[int]
    inside: list[tuple[int, int]] = dataclasses.field(default_factory=list)


def trainable(model: ModelFile | str | os.PathLike | bytes, *, train_last: int | None = None,
              train: list[str] | None = None, loss: str = "softmax_cross_entropy", optimizer: str = "sgd",
              learning_rate: float = 0.01, output: str | None = None, classes: int | None = None,
              carry_state: bool = False) -> bytes:
    """The training file of a float or quantized model (a path, bytes or a ModelFile). train_last: the last N
    weighted layers on the way to the loss's output train (default 1); train: layers by name (a layer's
    output tensor's name, as `rillet trainable --list` shows) instead. loss: softmax_cross_entropy (y: class indices; a SOFTMAX output's logits
    are taken), sigmoid_cross_entropy (y: 0/1 per output element; a LOGISTIC output's logits are taken), mse
    (y: the output's shape), or output (the output is the loss already, averaged; y is ignored). optimizer:
    sgd, momentum (0.9) or adam. output: which output the loss reads (when the model has several), or
    the name of a tensor inside the model: the loss then reads it, the ops after it that are not on its way
    stay as they are in `infer` (openWakeWord's hey_jarvis: an IF after the last dense layer that swaps the
    score for a second network's when it passes 0.5) and take no gradient. classes: widen the classifier's head
    (the last FULLY_CONNECTED or CONV_2D before the output) to this many classes, the new ones starting from
    zero weights, so that training teaches the model classes it was shipped without (new_classes.py); the
    head must be among the trained layers. carry_state: the trained tail's LSTMs carry their state from one step
    to the next, and `infer` from one invoke to the next, as the model's own do (a streaming model fine-tuned on
    its stream, chunks in order; the state in resource variables both share); default: each step and each invoke
    from zero (independent samples)."""
    if loss not in LOSSES:
        raise ValueError(f"loss {loss!r}: one of {', '.join(LOSSES)}")
    if optimizer not in OPTIMIZERS:
        raise ValueError(f"optimizer {optimizer!r}: one of {', '.join(OPTIMIZERS)}")
    if train_last is not None and train:
        raise ValueError("give train_last or train, not both")
    if classes is not None and loss not in ("softmax_cross_entropy", "sigmoid_cross_entropy"):
        raise ValueError(f"classes {classes}: new classes need a classification loss, not {loss!r}")
    m = model if isinstance(model, ModelFile) else load(model)
    sg_index, inputs, outputs = _signature(m)
    sg = m.subgraphs[sg_index]
    if output is None:
        if len(outputs) != 1:
            raise ValueError(f"the model has outputs {sorted(outputs)}: name the one the loss reads (output=)")
        output = next(iter(outputs))
    internal = output not in outputs
    target = _internal_tensor(m, sg_index, output, outputs) if internal else outputs[output]
    head = None
    if classes is not None:
        m, head = with_classes(m, sg_index, target, int(classes))
    layers = weighted_layers(m, sg_index, target)
    chosen = _choose(layers, train_last, train)
    if head is not None and head not in {layer.op for layer in chosen}:
        head_name = m.subgraphs[sg_index].tensors[m.subgraphs[sg_index].operators[head].outputs[0]].name
        raise ValueError(f"classes {classes}: the widened head ({head_name!r}) must be among the trained layers")
    m = _unshared(m, sg_index, chosen)
    inside = [layer for layer in chosen if layer.inside]
    m, inside_names = _named_inside(m, inside)
    sg = m.subgraphs[sg_index]
    trained = sorted({w for layer in chosen for w in layer.weights})
    tail = _tail_ops(sg, trained, {layer.op for layer in inside})
    # A loss on an internal tensor: the ops after the trained layers that are not on its way (an IF that
    # picks between it and another network's score, a threshold) stay out of the trained tail; `infer` runs
    # them in the original's ops, reading the trained weights from their variables.
    after = [j for j in tail if j not in ancestors(sg, [target])] if internal else []
    tail = [j for j in tail if j not in set(after)]
    frozen = [j for j in range(len(sg.operators)) if j not in set(tail) | set(after)]
    boundary = _boundary(m, sg_index, tail)
    tail_outputs = {name: i for name, i in outputs.items() if i in _made_by(sg, tail)}
    if internal:
        tail_outputs[output] = target
    elif outputs[output] not in tail_outputs.values():
        raise ModelError(f'output "{output}" does not depend on the trained layers')
    flow = sorted({m.op_name(sg.operators[j]) for j in tail} & {"CALL_ONCE"})
    if flow:
        raise ModelError(f"the trained tail (every op after the first trained layer) holds {', '.join(flow)}, "
                         "through which no gradient flows (an IF's and a WHILE's do): train layers after it, or "
                         "give the loss a tensor before it (output=NAME)")
    tail_model = float_copy(_extract(m, sg_index, tail, boundary, tail_outputs), keep_fake_quant=True)
    training, variables = _training_file(tail_model, [sg.tensors[w].name for w in trained] + inside_names, loss,
                                         optimizer, learning_rate, output, carry_state)
    made_after = _made_by(sg, after)
    splice_frozen(training, m, sg_index, frozen, boundary, inputs,
                  {n: i for n, i in outputs.items() if i not in made_after}, tail_outputs)
    if internal or any(is_quantized(sg.tensors[w]) for w in trained) or \
            any(is_quantized(m.subgraphs[k].tensors[i]) for layer in inside for k, i in layer.inside):
        # a quantized model's `infer` is the original's ops, its trained weights quantized from the variables
        original_infer(training, m, sg_index, inputs, outputs,
                       {w: sg.tensors[w].name for w in trained if sg.tensors[w].name in variables},
                       {(k, i): m.subgraphs[k].tensors[i].name for layer in inside for k, i in layer.inside
                        if m.subgraphs[k].tensors[i].name in variables})
    if internal:
        score_signature(training, output)
    keep_metadata(training, m)
    task = {"loss": loss, "output": output, "optimizer": optimizer, "learning_rate": learning_rate,
            "layers": [layer.name for layer in chosen]}
    if classes is not None:
        task["classes"] = int(classes)
    if carry_state:
        task["carry_state"] = True
    _record_task(training, task)
    return save(drop_unused_buffers(drop_unused_tensors(training)))


def _internal_tensor(m: ModelFile, sg_index: int, name: str, outputs: dict[str, int]) -> int:
    """The tensor an op of the signature's subgraph makes under `name` (a loss read before the model's own
    outputs, e.g. before an IF that post-processes the score)."""
    sg = m.subgraphs[sg_index]
    found = [o for op in sg.operators for o in op.outputs or [] if o >= 0 and sg.tensors[o].name == name]
    if len(found) != 1:
        many = f", and {len(found)} tensors of that name inside (name an output or a unique tensor)"
        raise ValueError(f"no output {name!r}; the model has {sorted(outputs)}" + (many if found else ""))
    return found[0]


def _record_task(t: ModelFile, task: dict[str, Any]) -> None:
    t.buffers.append(Buffer(data=np.frombuffer(json.dumps(task).encode(), np.uint8)))
    t.metadata = [*(e for e in t.metadata or [] if e.name != TASK_METADATA),
                  Metadata(name=TASK_METADATA, buffer=len(t.buffers) - 1)]


def task_of(model: Any) -> dict[str, Any] | None:
    """The task `trainable` recorded in a training file (a ModelFile or ModelView): loss, output, optimizer,
    learning_rate, layers; None for a file without one (TensorFlow's, the graph API's) or an unreadable one."""
    for entry in model.metadata or []:
        if entry.name != TASK_METADATA:
            continue
        data = model.buffer_data(entry.buffer) if hasattr(model, "buffer_data") else model.buffers[entry.buffer].data
        try:
            task = json.loads(bytes(data if data is not None else b"").decode())
        except (UnicodeDecodeError, ValueError):
            return None
        return task if isinstance(task, dict) else None
    return None


def weighted_layers(m: ModelFile, sg_index: int, toward: int | None = None) -> list[Layer]:
    """The model's weighted ops in order (those on the way to tensor `toward`, when given); an IF's or a WHILE's
    stand where the op does (its branches' in order, then-branch first; nested ones too)."""
    sg = m.subgraphs[sg_index]
    needed = ancestors(sg, [toward]) if toward is not None else set(range(len(sg.operators)))
    producer = {o: j for j, op in enumerate(sg.operators) for o in op.outputs or []}
    layers = []
    for j, op in enumerate(sg.operators):
        kind = m.op_name(op)
        if kind in CONTROL_FLOW and j in needed:
            layers += [dataclasses.replace(layer, op=j, weights=[i for k, i in layer.inside if k == sg_index],
                                           inside=[(k, i) for k, i in layer.inside if k != sg_index])
                       for layer in _called_layers(m, sg_index, op, {}, set())]
        if kind not in WEIGHTED or j not in needed:
            continue
        weights = []
        for i in op.inputs or []:
            if i < 0:
                continue
            source = producer.get(i)
            if _is_weight_constant(m, sg_index, i) or (
                    source is not None and m.op_name(sg.operators[source]) in WEIGHT_VIEWS
                    and all(is_constant(m, sg.tensors[k]) for k in sg.operators[source].inputs or [])):
                weights.append(i)
        if weights:
            layers.append(Layer(j, sg.tensors[op.outputs[0]].name or f"op_{j}", kind, weights))
    return layers


CONTROL_FLOW = {"IF": ("then_subgraph_index", "else_subgraph_index"),
                "WHILE": ("cond_subgraph_index", "body_subgraph_index")}
"""The ops whose called subgraphs' layers train (their gradients flow through them), and the fields naming them."""


def _called_layers(m: ModelFile, caller: int, op: Any, given: dict[int, tuple[int, int]], seen: set[int]
                   ) -> list[Layer]:
    """The weighted layers inside the subgraphs control-flow op `op` of subgraph `caller` calls. `given`: the
    caller's inputs that stand for a weight (tensor -> (subgraph, tensor) of the constant), for nested calls.
    A layer's weight is a float constant of its subgraph, or an operand the op hands in that is one of a caller
    (a WHILE's only where its body gives it back unchanged: a loop value that never changes)."""
    layers = []
    csg = m.subgraphs[caller]

    def source(i: int) -> tuple[int, int] | None:
        if i < 0:
            return None
        if i in given:
            return given[i]
        return (caller, i) if _is_weight_constant(m, caller, i) and csg.tensors[i].dtype == np.float32 else None

    kind = m.op_name(op)
    operands = list(op.inputs or [])[1:] if kind == "IF" else list(op.inputs or [])
    for field_ in CONTROL_FLOW[kind]:
        k = getattr(op.builtin_options, field_, None)
        if k is None or k in seen or not 0 <= k < len(m.subgraphs):
            continue
        sub = m.subgraphs[k]
        passed = {i: source(operands[p]) for p, i in enumerate(sub.inputs or []) if p < len(operands)
                  and (kind != "WHILE" or (p < len(sub.outputs) and sub.outputs[p] == i))}
        passed = {i: w for i, w in passed.items() if w is not None}
        for inner in sub.operators:
            inner_kind = m.op_name(inner)
            if inner_kind in CONTROL_FLOW:
                layers += _called_layers(m, k, inner, passed, seen | {k})
                continue
            if inner_kind not in WEIGHTED:
                continue
            found = [passed[i] if i in passed else (k, i) for i in inner.inputs or []
                     if i >= 0 and (i in passed or _is_weight_constant(m, k, i))]
            if found:
                name = sub.tensors[inner.outputs[0]].name or f"subgraph_{k}/op_{sub.operators.index(inner)}"
                layers.append(Layer(-1, name, inner_kind, [], found))  # split by weighted_layers
    return layers


def _signature(m: ModelFile) -> tuple[int, dict[str, int], dict[str, int]]:
    if m.signature_defs:
        sd = m.signature_defs[0]
        return (sd.subgraph_index, {t.name: t.tensor_index for t in sd.inputs},
                {t.name: t.tensor_index for t in sd.outputs})
    sg = m.subgraphs[0]
    return 0, {sg.tensors[i].name: i for i in sg.inputs}, {sg.tensors[i].name: i for i in sg.outputs}


def _is_weight_constant(m: ModelFile, sg_index: int, i: int) -> bool:
    """A constant of more than one value that is a float32 or a quantized integer (an int8 filter, its int32 bias)."""
    t = m.subgraphs[sg_index].tensors[i]
    return (is_constant(m, t) and (t.dtype == np.float32 or is_quantized(t))
            and int(np.prod(t.shape or [1])) > 1)


def _choose(layers: list[Layer], train_last: int | None, train: list[str] | None) -> list[Layer]:
    if not layers:
        raise ModelError("the model has no weighted layer (a float CONV_2D, FULLY_CONNECTED, ...) to train")
    if train:
        chosen = []
        for name in train:
            found = [layer for layer in layers if layer.name == name]
            if not found:
                raise ValueError(f"--train {name!r}: no weighted layer of that name; the last ones are "
                                 + ", ".join(repr(layer.name) for layer in layers[-5:]))
            chosen += found
        return chosen
    n = 1 if train_last is None else int(train_last)
    if not 1 <= n <= len(layers):
        raise ValueError(f"train_last {n}: the model has {len(layers)} weighted layers on the way to its output")
    return layers[-n:]


def _unshared(m: ModelFile, sg_index: int, chosen: list[Layer]) -> ModelFile:
    """A copy of `m` where each trained layer reads its own weight tensors: converters share equal constants
    (a zero bias) between layers, which would otherwise train together. The copies keep the buffer; the
    layers' `weights` are updated."""
    m = dataclasses.replace(m, subgraphs=list(m.subgraphs))
    sg = m.subgraphs[sg_index]
    sg = m.subgraphs[sg_index] = dataclasses.replace(sg, tensors=list(sg.tensors), operators=list(sg.operators))
    for layer in chosen:
        op = sg.operators[layer.op]
        inputs = list(op.inputs)
        for k, w in enumerate(layer.weights):
            name = sg.tensors[w].name or f"tensor_{w}"
            if len(name) > MAX_VARIABLE_NAME:  # a resource variable's name, with an optimizer's "Adam/.../m"
                sg.tensors[w] = dataclasses.replace(sg.tensors[w], name=f"{name[:MAX_VARIABLE_NAME - 12]}~{w}")
            readers = [j for j, other in enumerate(sg.operators) if w in (other.inputs or [])]
            if readers == [layer.op]:
                continue
            shared = f"{layer.name}/{sg.tensors[w].name}"
            if len(shared) > MAX_VARIABLE_NAME:
                shared = f"{shared[:MAX_VARIABLE_NAME - 12]}~{len(sg.tensors)}"
            sg.tensors.append(dataclasses.replace(sg.tensors[w], name=shared))
            inputs = [len(sg.tensors) - 1 if i == w else i for i in inputs]
            layer.weights[k] = len(sg.tensors) - 1
        sg.operators[layer.op] = dataclasses.replace(op, inputs=inputs)
    return m


def _named_inside(m: ModelFile, layers: list[Layer]) -> tuple[ModelFile, list[str]]:
    """A copy of `m` where each weight of `layers` inside a called subgraph has a name no other tensor of the
    model has (the variable to_graph makes of it takes that name: converters reuse names across subgraphs), and
    those names."""
    taken = {t.name for g in m.subgraphs for t in g.tensors}
    m = dataclasses.replace(m, subgraphs=list(m.subgraphs))
    names = []
    for layer in layers:
        for k, i in layer.inside:
            sub = m.subgraphs[k] = dataclasses.replace(m.subgraphs[k], tensors=list(m.subgraphs[k].tensors))
            t = sub.tensors[i]
            if t.name in names:  # two layers of one weight
                continue
            name = t.name if t.name and sum(t.name == u.name for g in m.subgraphs for u in g.tensors) == 1 else \
                f"{layer.name}/{t.name or f'tensor_{i}'}"[:MAX_VARIABLE_NAME]
            base, n = name, 1
            while name != t.name and name in taken:
                name, n = f"{base[:MAX_VARIABLE_NAME - 8]}~{n}", n + 1
            taken.add(name)
            sub.tensors[i] = dataclasses.replace(t, name=name)
            names.append(name)
    return m, names


def _tail_ops(sg: SubGraph, trained: list[int], calling: set[int] = frozenset()) -> list[int]:
    """The ops that depend on a trained weight (or, `calling`, call a subgraph holding one), in order, and those
    that widen a trained float16 or sparse weight (the tail's import turns them into the float32 variable)."""
    tainted = set(trained)
    tail = []
    for j, op in enumerate(sg.operators):
        if j in calling or any(i in tainted for i in op.inputs or []) or any(o in trained for o in op.outputs or []):
            tail.append(j)
            tainted.update(op.outputs or [])
    return tail


def _made_by(sg: SubGraph, ops: list[int]) -> set[int]:
    return {o for j in ops for o in sg.operators[j].outputs or []}


def _boundary(m: ModelFile, sg_index: int, tail: list[int]) -> list[int]:
    """The computed tensors the tail reads and does not make itself: the frozen part's results (or inputs)."""
    sg = m.subgraphs[sg_index]
    made = _made_by(sg, tail)
    read = [i for j in tail for i in sg.operators[j].inputs or [] if i >= 0]
    return list(dict.fromkeys(i for i in read if i not in made and not is_constant(m, sg.tensors[i])))


def _extract(m: ModelFile, sg_index: int, ops: list[int], inputs: list[int], outputs: dict[str, int]) -> ModelFile:
    """`ops` as a single-subgraph model: `inputs` in (named boundary_<tensor>), `outputs` out by name."""
    sg = m.subgraphs[sg_index]
    order = list(dict.fromkeys([*inputs, *(i for j in ops for i in [*sg.operators[j].inputs, *sg.operators[j].outputs]
                                           if i >= 0)]))
    index = {old: new for new, old in enumerate(order)}
    buffers, tensors = [Buffer()], []
    for old in order:
        t = sg.tensors[old]
        buffer = 0
        if is_constant(m, t):
            buffers.append(Buffer(data=m.buffers[t.buffer].data))
            buffer = len(buffers) - 1
        tensors.append(dataclasses.replace(t, buffer=buffer))
    codes: list = []
    operators = [dataclasses.replace(sg.operators[j],
                                     opcode_index=code_index(codes, m.operator_codes[sg.operators[j].opcode_index]),
                                     inputs=[index[i] if i >= 0 else i for i in sg.operators[j].inputs],
                                     outputs=[index[o] for o in sg.operators[j].outputs]) for j in ops]
    signature = SignatureDef(inputs=[TensorMap(name=boundary_name(i), tensor_index=index[i]) for i in inputs],
                             outputs=[TensorMap(name=n, tensor_index=index[i]) for n, i in outputs.items()],
                             signature_key="tail", subgraph_index=0)
    sub = SubGraph(tensors, [index[i] for i in inputs], [index[i] for i in outputs.values()], operators, "tail")
    tail = ModelFile(operator_codes=codes, subgraphs=[sub], buffers=buffers, signature_defs=[signature],
                     description="rillet trainable tail")
    called: dict[int, int] = {}
    for op in operators:  # the subgraphs an IF of the tail calls, copied after it
        op.builtin_options = _called_subgraphs(tail, m, op.builtin_options, called)
    return tail




def _training_file(tail: ModelFile, trained: list[str], loss: str, optimizer: str, learning_rate: float,
                   output: str, carry_state: bool = False) -> tuple[ModelFile, list[str]]:
    from rillet.graph import losses, ops, optimizers

    from .to_graph import to_graph
    from .training import TrainSpec, convert_for_training

    try:
        imported = to_graph(tail, carry_lstm_state=carry_state)  # else each step's samples start from zero
    except ModelError as e:
        raise ModelError(f"the trained tail (every op after the first trained layer) cannot be imported: {e}; "
                         "train fewer layers") from None
    names = {v.name for v in imported.variables}
    # a one-value weight (a single channel's bias) imports as a constant and stays as it is
    trained = [n for n in trained if n in names]
    if not trained:
        raise ModelError("the chosen layers' weights are single values: nothing to train there")
    prediction = imported.outputs[output]
    node = prediction.node
    label_dtype = None
    if loss == "softmax_cross_entropy":
        logits = node.inputs[0] if node.op == "SOFTMAX" and node.attrs["beta"] == 1.0 else prediction
        label_dtype = "int32"

        def loss_fn(labels: Any, _prediction: Any) -> Any:
            return losses.softmax_cross_entropy(labels, logits)
    elif loss == "sigmoid_cross_entropy":
        logits = node.inputs[0] if node.op == "LOGISTIC" else prediction

        def loss_fn(labels: Any, _prediction: Any) -> Any:
            return losses.sigmoid_cross_entropy(labels, logits)
    elif loss == "mse":
        loss_fn = losses.mean_squared_error
    else:
        def loss_fn(_labels: Any, value: Any) -> Any:
            return ops.reduce_mean(value)
    make = {"sgd": lambda: optimizers.SGD(learning_rate), "momentum": lambda: optimizers.Momentum(learning_rate, 0.9),
            "adam": lambda: optimizers.Adam(learning_rate)}[optimizer]
    spec = TrainSpec(loss=loss_fn, optimizer=make(), trainable=trained, label_dtype=label_dtype, output=output)
    converted = convert_for_training(imported, spec)
    if spec.optimizer.without_gradient:
        names = [v.name for v in spec.optimizer.without_gradient]
        raise ModelError(f"the loss gives no gradient to {', '.join(repr(n) for n in names)}: every way from them "
                         f"to {output!r} passes through ops through which none flows (integer or boolean results, "
                         "steps): train other layers, or give the loss another tensor (output=NAME)")
    return converted, trained


def signature_subgraph(m: ModelFile) -> int:
    """The subgraph `trainable` works on: the first signature's (subgraph 0 without signatures)."""
    return _signature(m)[0]
