"""Training files: `convert(model, train=TrainSpec(...))` writes `infer`, `train`, `save` and `restore`
signatures over resource variables, initialised by a CALL_ONCE subgraph, as TensorFlow's converter writes
its own training models, with builtins only, so that LiteRT runs the same file.

- `train(inputs..., labels) -> loss`: the forward pass in training mode, the backward pass (the graph's
  gradient rules, which lower to builtins) and the optimizer's assignments, in one invoke.
- `infer(inputs...) -> outputs`: the inference-mode forward pass reading the current variables.
- `save() -> {variable: value}` reads every variable; `restore(**values)` assigns them. The runtime's
  `Interpreter.save_checkpoint`/`restore_checkpoint` write and read the same values to and from an .npz; a
  signature runner (rillet's or LiteRT's) moves them with plain builtins, no Flex `Save` op.

Variables that the step neither trains nor assigns (a frozen feature extractor's weights, a frozen batch
norm's statistics) are written as constants: they cost no gradient work, no storage as variables, and the
runtime packs them once at prepare rather than at every step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .format import Buffer, Metadata, ModelError, ModelFile, load, save
from .format.variable_roles import METADATA_NAME as ROLES_METADATA
from .format.variable_roles import encode_roles
from .lowering import IR, IROp, lower_graph
from .passes import optimize

SIGNATURES = ("infer", "train", "save", "restore")


@dataclass
class TrainSpec:
    """What a `train` signature does.

    loss:      `loss(labels, prediction) -> scalar tensor` (rillet.graph.losses' order), or the name of one
               of rillet.graph.losses ("softmax_cross_entropy", "mean_squared_error").
    optimizer: a rillet.graph.optimizers optimizer (SGD, Momentum, Adam).
    trainable: what the step updates: Layers, Variables, or names (a variable's name, or a layer's name
               that prefixes its variables' names as "name/"). Default: every trainable variable of the
               model. Everything else is frozen: its layers run in inference mode and its weights are
               constants of the file.
    labels:    the name of the train signature's label input.
    label_dtype: None: labels have the prediction's shape and dtype (one-hot rows, regression targets);
               an integer dtype: class indices, the prediction's shape without its last axis.
    output:    which model output the loss takes (default: the only one).
    frozen_int8: calibration inputs (as rillet.quant.quantize takes them). Given, the frozen feature
               extractor (the ops computing from the inputs and frozen weights alone) runs int8 in `infer`
               and `train`, between a QUANTIZE and the DEQUANTIZEs into the float head, which trains as
               before: the head of a quantized deployed model, fine-tuned (rillet.quant.frozen).
    """

    loss: Callable | str
    optimizer: Any
    trainable: Sequence[Any] | None = None
    labels: str = "y"
    label_dtype: Any = None
    output: str | None = None
    frozen_int8: Any = None


@dataclass
class TrainingGraph:
    """The graph side of a training file: what each signature computes, in the model's graph. The same
    tensors run on the numpy reference and on JAX (rillet.targets.xla), which is how parity is tested."""

    graph: Any
    inputs: dict[str, Any]       # the model's inputs (placeholders), by signature name
    outputs: dict[str, Any]      # the model's inference-mode outputs, by signature name
    labels: Any                  # the label placeholder
    label_name: str
    loss: Any                    # the training-mode loss (a scalar tensor)
    step: Any                    # the train op: the optimizer's and the layers' assignments
    state: list                  # the resource variables: trained, slots, moving statistics, settings
    frozen: list                 # the model's variables written as constants
    roles: dict[str, list[str]]  # role -> names of the state's variables (format/variable_roles.py)


def build_training(model: Any, spec: TrainSpec) -> TrainingGraph:
    """Add the training step of `model` (a rillet Model, a to_graph ImportedModel, or (inputs, outputs)
    dicts) to its graph: the training-mode forward pass, the loss, the gradients and the updates."""
    from rillet.graph import Model, losses, ops

    from .from_graph import endpoints

    inputs, outputs = endpoints(model)
    graph = next(iter(outputs.values())).graph
    all_variables = _model_variables(model, graph, inputs, outputs)
    trained = _trainable(spec.trainable, model, all_variables)
    if not trained:
        raise ValueError("TrainSpec: nothing to train (trainable selects no trainable variable)")
    output_name = spec.output or _only(outputs)
    with graph.as_default():
        if isinstance(model, Model):
            trained_layers = {layer for layer in model.layers if any(v in trained for v in layer.variables)}
            rebuilt = model(training=lambda layer: layer in trained_layers or not layer.variables)
            training = dict(zip(outputs, rebuilt if isinstance(rebuilt, list) else
                                rebuilt.values() if isinstance(rebuilt, dict) else [rebuilt]))
        else:
            training = dict(outputs)
        prediction = training[output_name]
        labels = _label_input(graph, spec, prediction)
        loss_fn = getattr(losses, spec.loss) if isinstance(spec.loss, str) else spec.loss
        loss = ops.as_tensor(loss_fn(labels, prediction))
        if loss.shape != ():
            raise ValueError(f"TrainSpec: the loss must be a scalar, has shape {loss.shape}")
        step = spec.optimizer.minimize(loss, list(trained))
    run = graph.ancestors(step)
    assigned = [graph.variables[n.inputs[0].node.attrs["shared_name"]]
                for n in graph.nodes if n in run and n.op == "ASSIGN_VARIABLE"]
    # variables the step reads that are not the model's (a learning rate given as a Variable) stay variables,
    # so that the device can change them (restore) between steps
    settings = [v for v in graph.variables.values() if v.value.node in run and v not in all_variables]
    state = list(dict.fromkeys([*trained, *assigned, *settings]))  # in a stable order
    frozen = [v for v in all_variables if v not in state]
    # what the step assigns that is not the model's is the optimizer's: its slots and step counters
    slots = [v for v in assigned if v not in all_variables and v not in trained]
    statistics = [v for v in assigned if v in all_variables and v not in trained]
    roles = {"trained": trained, "optimizer_slots": slots, "statistics": statistics,
             "settings": [v for v in state if v not in trained and v not in slots and v not in statistics]}
    return TrainingGraph(graph, inputs, outputs, labels, spec.labels, loss, step, state, frozen,
                         {role: [v.name for v in variables] for role, variables in roles.items()})


def training_file(t: TrainingGraph) -> ModelFile:
    """The .tflite model of a training graph: infer, train, save, restore and the CALL_ONCE initialiser."""
    from .from_graph import write_subgraphs

    names = frozenset(v.name for v in t.state)
    irs = [
        optimize(lower_graph(t.inputs, t.outputs, names)),
        optimize(lower_graph({**t.inputs, t.label_name: t.labels}, {"loss": t.loss}, names, run=(t.step,))),
        _save_ir(t.state),
        _restore_ir(t.state),
    ]
    init = len(irs)
    for ir in irs:
        ir.ops.insert(0, IROp("CALL_ONCE", [], [], "CallOnceOptions", {"init_subgraph_index": init}))
    model = write_subgraphs([*zip(SIGNATURES, irs), ("init", _init_ir(t.graph, t.state))], signed=len(SIGNATURES))
    return with_variable_roles(model, t.roles)


def with_variable_roles(model: ModelFile, roles: dict[str, list[str]]) -> ModelFile:
    """`model` with its variables' roles as metadata, for the runtime's memory report."""
    model.buffers.append(Buffer(data=np.frombuffer(encode_roles(roles), np.uint8)))
    model.metadata = [entry for entry in model.metadata or [] if entry.name != ROLES_METADATA]
    model.metadata.append(Metadata(name=ROLES_METADATA, buffer=len(model.buffers) - 1))
    return model


def convert_for_training(model: Any, spec: TrainSpec) -> ModelFile:
    """The training file of `model`: build_training, then training_file (then its frozen part in int8,
    when the spec asks)."""
    model_file = training_file(build_training(model, spec))
    if spec.frozen_int8 is None:
        return model_file
    from rillet.quant.frozen import quantize_frozen  # quant sits above the converter: imported when asked

    return load(quantize_frozen(save(model_file), spec.frozen_int8))


def _only(outputs: dict) -> str:
    if len(outputs) != 1:
        raise ValueError(f"TrainSpec: the model has outputs {sorted(outputs)}; name the loss's with output=")
    return next(iter(outputs))


def _model_variables(model: Any, graph: Any, inputs: dict, outputs: dict) -> list:
    if hasattr(model, "variables") and model.variables:
        return list(model.variables)
    reads = graph.ancestors(list(outputs.values()), stop=set(inputs.values()), control=False)
    return [v for v in graph.variables.values() if v.value.node in reads]


def _trainable(selection: Sequence[Any] | None, model: Any, variables: list) -> list:
    from rillet.graph import Variable
    from rillet.graph.layers import Layer

    if selection is None:
        return [v for v in variables if v.trainable]
    chosen: list = []
    for item in selection:
        if isinstance(item, Variable):
            found = [item]
        elif isinstance(item, Layer):
            found = item.trainable_variables
        elif isinstance(item, str):
            found = [v for v in variables if v.trainable and (v.name == item or v.name.startswith(item + "/"))]
        else:
            raise TypeError(f"TrainSpec.trainable: {item!r} is not a Layer, Variable or name")
        if not found:
            raise ValueError(f"TrainSpec.trainable: {item!r} selects no trainable variable of the model")
        chosen.extend(v for v in found if v not in chosen)
    return chosen


def _label_input(graph: Any, spec: TrainSpec, prediction: Any) -> Any:
    from rillet.graph import ops
    from rillet.graph.core import canonical_dtype

    if spec.label_dtype is None:
        shape, dtype = prediction.shape, prediction.dtype
    else:
        dtype = canonical_dtype(spec.label_dtype)
        shape = prediction.shape[:-1] if np.issubdtype(np.dtype(dtype), np.integer) else prediction.shape
    existing = graph.placeholders.get(spec.labels)
    if existing is not None:  # converting the same model again
        if existing.shape != tuple(shape) or existing.dtype != dtype:
            raise ModelError(f'TrainSpec: the graph already has an input "{spec.labels}" of another shape or '
                             "dtype; name the labels with labels=")
        return existing
    return ops.placeholder(shape, dtype, name=spec.labels, graph=graph)


def _handle(ir: IR, name: str) -> int:
    handle = ir.add_tensor(name, (), "resource")
    ir.ops.append(IROp("VAR_HANDLE", [], [handle], "VarHandleOptions", {"container": "", "shared_name": name}))
    return handle


def _save_ir(state: list) -> IR:
    ir = IR()
    for var in state:
        value = ir.add_tensor(var.name + "/read", var.shape, var.dtype)
        ir.ops.append(IROp("READ_VARIABLE", [_handle(ir, var.name)], [value]))
        ir.outputs[var.name] = value
    return ir


def _restore_ir(state: list) -> IR:
    ir = IR()
    for var in state:
        ir.inputs[var.name] = value = ir.add_tensor(var.name, var.shape, var.dtype)
        ir.ops.append(IROp("ASSIGN_VARIABLE", [_handle(ir, var.name), value], []))
    return ir


def _init_ir(graph: Any, state: list) -> IR:
    """CALL_ONCE's subgraph: every variable assigned its value in the graph's store at conversion."""
    ir = IR()
    for var in state:
        value = ir.add_constant(var.name + "/initial", graph.store[var.name], var.dtype)
        ir.ops.append(IROp("ASSIGN_VARIABLE", [_handle(ir, var.name), value], []))
    return ir
