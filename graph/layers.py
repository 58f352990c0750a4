"""Keras-like layers that add nodes to a graph, and Model: named inputs and outputs over those layers,
rebuildable in training or inference mode."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np

from . import ops
from .core import Graph, Tensor, Variable

_init_rng = [np.random.default_rng(0)]


def set_seed(seed: int) -> None:
    """Seed the generator that initialises layer weights."""
    _init_rng[0] = np.random.default_rng(seed)


def glorot_uniform(shape: Sequence[int], fan_in: int, fan_out: int) -> np.ndarray:
    """Glorot (Xavier) uniform initial weights of `shape`: U(-l, l), l = sqrt(6 / (fan_in + fan_out)), from
    the layers' seeded generator."""
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    return _init_rng[0].uniform(-limit, limit, size=shape)


def Input(shape: Sequence[int | None], name: str = "input", dtype: Any = "float32",
          batch_size: int | None = None, graph: Graph | None = None) -> Tensor:
    """A named model input; `shape` excludes the batch dimension, which is dynamic unless batch_size is given."""
    return ops.placeholder((batch_size, *shape), dtype, name=name, graph=graph)


ACTIVATIONS: dict[str, Callable[[Tensor], Tensor]] = {
    "linear": lambda x: x,
    "relu": ops.relu,
    "relu6": ops.relu6,
    "sigmoid": ops.sigmoid,
    "tanh": ops.tanh,
    "hard_swish": ops.hard_swish,
    "softmax": ops.softmax,
    "log_softmax": ops.log_softmax,
    "leaky_relu": ops.leaky_relu,
}
"""The activations an `activation=` argument may name, each a function of a tensor."""


def activation_fn(activation: str | Callable | None) -> Callable[[Tensor], Tensor]:
    """The function an `activation=` argument names: None -> linear, a callable as it is, or a name in
    ACTIVATIONS. ValueError listing the known names for any other."""
    if activation is None:
        return ACTIVATIONS["linear"]
    if callable(activation):
        return activation
    if activation not in ACTIVATIONS:
        raise ValueError(f'unknown activation "{activation}" (known: {sorted(ACTIVATIONS)})')
    return ACTIVATIONS[activation]


def _pair(v: int | Sequence[int]) -> tuple[int, int]:
    return (v, v) if isinstance(v, int) else (int(v[0]), int(v[1]))


class Layer:
    """A callable that adds nodes; its weights are Variables made on the first call."""

    _name_counts: ClassVar[dict[str, int]] = {}

    def __init__(self, name: str | None = None, dtype: Any = "float32"):
        if name is None:
            base = re.sub(r"(?<=[a-z])(?=[A-Z])", "_", type(self).__name__).lower()
            count = Layer._name_counts.get(base, 0)
            Layer._name_counts[base] = count + 1
            name = base if count == 0 else f"{base}_{count}"
        self.name = name
        self.dtype = np.dtype(dtype).name
        self.built = False
        self.weights: list[Variable] = []
        self.updates: list = []  # assignments made in training mode (batch-norm statistics)

    @property
    def variables(self) -> list[Variable]:
        """The layer's Variables (empty before its first call)."""
        return list(self.weights)

    @property
    def trainable_variables(self) -> list[Variable]:
        """The layer's Variables that training updates."""
        return [v for v in self.weights if v.trainable]

    def add_weight(self, graph: Graph, name: str, value: np.ndarray, trainable: bool = True) -> Variable:
        """Makes a Variable `layer_name/name` holding `value` (in the layer's dtype) in `graph`, outside any
        name scope, and records it in `weights`."""
        with graph.name_scope(None):
            var = Variable(np.asarray(value, dtype=self.dtype), name=f"{self.name}/{name}", trainable=trainable,
                           graph=graph)
        self.weights.append(var)
        return var

    def build(self, graph: Graph, *input_shapes: tuple) -> None:
        """Makes the layer's weights for inputs of `input_shapes`, once, on the first call (the base class
        makes none). ValueError when the shapes do not suit the layer (e.g. Dense on a 4-D input)."""

    def call(self, *inputs: Tensor, training: bool = False) -> Tensor:
        """Adds the layer's nodes for `inputs` to their graph and returns the output tensor; `training`
        selects training-mode behaviour (Dropout, BatchNormalization). Subclasses define it."""
        raise NotImplementedError

    def __call__(self, inputs: Any, training: bool = False) -> Tensor:
        many = isinstance(inputs, (list, tuple))
        xs = [ops.as_tensor(x) for x in (inputs if many else [inputs])]
        graph = xs[0].graph
        if not self.built:
            self.build(graph, *[x.shape for x in xs])
            self.built = True
        with graph.name_scope(graph.unique_name(self.name)):
            out = self.call(*xs, training=training)
            if any(out is x for x in xs) or out.layer_call is not None:
                out = ops.identity(out)  # a pass-through (Dropout at inference) still needs its own tensor
        out.layer_call = (self, xs, many)
        return out

    def __repr__(self) -> str:
        return f'<{type(self).__name__} "{self.name}">'


class Dense(Layer):
    """y = activation(x @ kernel^T + bias), kernel [units, in] as TFLite's FULLY_CONNECTED wants it."""

    def __init__(self, units: int, activation=None, use_bias: bool = True, **kw):
        super().__init__(**kw)
        self.units, self.activation, self.use_bias = units, activation_fn(activation), use_bias

    def build(self, graph, shape):
        if len(shape) != 2 or shape[1] is None:
            raise ValueError(f'Dense "{self.name}": input must be [batch, features], got {shape}; use Flatten')
        self.kernel = self.add_weight(graph, "kernel", glorot_uniform((self.units, shape[1]), shape[1], self.units))
        self.bias = self.add_weight(graph, "bias", np.zeros(self.units)) if self.use_bias else None

    def call(self, x, training=False):
        return self.activation(ops.fully_connected(x, self.kernel, self.bias))


class Conv2D(Layer):
    """NHWC convolution; kernel [filters, kh, kw, in] (OHWI)."""

    def __init__(self, filters: int, kernel_size, strides=1, padding: str = "valid", dilation_rate=1,
                 activation=None, use_bias: bool = True, **kw):
        super().__init__(**kw)
        self.filters, self.kernel_size = filters, _pair(kernel_size)
        self.strides, self.padding, self.dilation = _pair(strides), padding.upper(), _pair(dilation_rate)
        self.activation, self.use_bias = activation_fn(activation), use_bias

    def build(self, graph, shape):
        if len(shape) != 4 or shape[3] is None:
            raise ValueError(f'Conv2D "{self.name}": input must be NHWC with known channels, got {shape}')
        kh, kw = self.kernel_size
        self.kernel = self.add_weight(graph, "kernel", glorot_uniform(
            (self.filters, kh, kw, shape[3]), kh * kw * shape[3], kh * kw * self.filters))
        self.bias = self.add_weight(graph, "bias", np.zeros(self.filters)) if self.use_bias else None

    def call(self, x, training=False):
        return self.activation(ops.conv2d(x, self.kernel, self.bias, self.strides, self.padding, self.dilation))


class DepthwiseConv2D(Layer):
    """Per-channel convolution; kernel [1, kh, kw, channels * depth_multiplier]."""

    def __init__(self, kernel_size, strides=1, padding: str = "valid", depth_multiplier: int = 1,
                 dilation_rate=1, activation=None, use_bias: bool = True, **kw):
        super().__init__(**kw)
        self.kernel_size, self.strides, self.padding = _pair(kernel_size), _pair(strides), padding.upper()
        self.depth_multiplier, self.dilation = depth_multiplier, _pair(dilation_rate)
        self.activation, self.use_bias = activation_fn(activation), use_bias

    def build(self, graph, shape):
        if len(shape) != 4 or shape[3] is None:
            raise ValueError(f'DepthwiseConv2D "{self.name}": input must be NHWC with known channels, got {shape}')
        kh, kw = self.kernel_size
        out = shape[3] * self.depth_multiplier
        self.kernel = self.add_weight(graph, "depthwise_kernel",
                                      glorot_uniform((1, kh, kw, out), kh * kw, kh * kw * self.depth_multiplier))
        self.bias = self.add_weight(graph, "bias", np.zeros(out)) if self.use_bias else None

    def call(self, x, training=False):
        y = ops.depthwise_conv2d(x, self.kernel, self.bias, self.strides, self.padding, self.dilation,
                                 self.depth_multiplier)
        return self.activation(y)


class SeparableConv2D(Layer):
    """A depthwise convolution followed by a 1x1 convolution (which carries the bias)."""

    def __init__(self, filters: int, kernel_size, strides=1, padding: str = "valid", depth_multiplier: int = 1,
                 dilation_rate=1, activation=None, use_bias: bool = True, **kw):
        super().__init__(**kw)
        self.filters, self.kernel_size, self.strides = filters, _pair(kernel_size), _pair(strides)
        self.padding, self.depth_multiplier, self.dilation = padding.upper(), depth_multiplier, _pair(dilation_rate)
        self.activation, self.use_bias = activation_fn(activation), use_bias

    def build(self, graph, shape):
        if len(shape) != 4 or shape[3] is None:
            raise ValueError(f'SeparableConv2D "{self.name}": input must be NHWC with known channels, got {shape}')
        kh, kw = self.kernel_size
        mid = shape[3] * self.depth_multiplier
        self.depthwise_kernel = self.add_weight(
            graph, "depthwise_kernel", glorot_uniform((1, kh, kw, mid), kh * kw, kh * kw * self.depth_multiplier))
        self.pointwise_kernel = self.add_weight(
            graph, "pointwise_kernel", glorot_uniform((self.filters, 1, 1, mid), mid, self.filters))
        self.bias = self.add_weight(graph, "bias", np.zeros(self.filters)) if self.use_bias else None

    def call(self, x, training=False):
        mid = ops.depthwise_conv2d(x, self.depthwise_kernel, None, self.strides, self.padding, self.dilation,
                                   self.depth_multiplier)
        return self.activation(ops.conv2d(mid, self.pointwise_kernel, self.bias))


class BatchNormalization(Layer):
    """Normalise the last axis. Training: batch statistics, and assignments that move the moving statistics
    (variables) toward them; inference: the moving statistics."""

    def __init__(self, momentum: float = 0.99, epsilon: float = 1e-3, center: bool = True, scale: bool = True,
                 **kw):
        super().__init__(**kw)
        self.momentum, self.epsilon, self.center, self.scale = momentum, epsilon, center, scale

    def build(self, graph, shape):
        c = shape[-1]
        if c is None:
            raise ValueError(f'BatchNormalization "{self.name}": the last dimension must be known')
        self.gamma = self.add_weight(graph, "gamma", np.ones(c)) if self.scale else None
        self.beta = self.add_weight(graph, "beta", np.zeros(c)) if self.center else None
        self.moving_mean = self.add_weight(graph, "moving_mean", np.zeros(c), trainable=False)
        self.moving_variance = self.add_weight(graph, "moving_variance", np.ones(c), trainable=False)

    def call(self, x, training=False):
        if training:
            axes = list(range(x.rank - 1))
            mean = ops.reduce_mean(x, axes)
            variance = ops.reduce_mean(ops.squared_difference(x, mean), axes)
            inv = ops.rsqrt(ops.add(variance, self.epsilon))
        else:
            mean, inv = self.moving_mean.value, ops.rsqrt(ops.add(self.moving_variance, self.epsilon))
        if self.gamma is not None:
            inv = ops.mul(inv, self.gamma)
        y = ops.mul(ops.sub(x, mean), inv)
        if self.beta is not None:
            y = ops.add(y, self.beta)
        if training:
            keep = 1.0 - self.momentum
            for var, batch in ((self.moving_mean, mean), (self.moving_variance, variance)):
                update = var.assign(ops.add(ops.mul(var, self.momentum), ops.mul(batch, keep)))
                self.updates.append(update)
                x.graph.update_ops.append((update, y))
        return y


class MaxPool2D(Layer):
    """Max pooling over NHWC windows of `pool_size`, moved by `strides` (default: pool_size), `padding`
    "valid" or "same"."""
    def __init__(self, pool_size=2, strides=None, padding: str = "valid", **kw):
        super().__init__(**kw)
        self.pool_size, self.strides, self.padding = pool_size, strides, padding

    def call(self, x, training=False):
        return ops.max_pool2d(x, self.pool_size, self.strides, self.padding)


class AveragePool2D(MaxPool2D):
    """Average pooling over NHWC windows of `pool_size`, moved by `strides` (default: pool_size), `padding`
    "valid" or "same"."""
    def call(self, x, training=False):
        return ops.avg_pool2d(x, self.pool_size, self.strides, self.padding)


class GlobalAveragePool2D(Layer):
    """The mean over height and width of an NHWC input: [N, C], or [N, 1, 1, C] with `keepdims`."""
    def __init__(self, keepdims: bool = False, **kw):
        super().__init__(**kw)
        self.keepdims = keepdims

    def call(self, x, training=False):
        return ops.reduce_mean(x, [1, 2], keepdims=self.keepdims)


class Flatten(Layer):
    """Reshapes [N, ...] to [N, features]; only the batch dimension may be dynamic (ValueError otherwise)."""
    def call(self, x, training=False):
        if None in x.shape[1:]:
            raise ValueError(f'Flatten "{self.name}": only the batch dimension may be dynamic, got {x.shape}')
        return ops.reshape(x, [x.shape[0], int(np.prod(x.shape[1:]))])


class Dropout(Layer):
    """Zero a `rate` fraction of inputs and scale the rest by 1/(1-rate), in training mode only."""

    def __init__(self, rate: float, seed: int = 0, **kw):
        super().__init__(**kw)
        if not 0 <= rate < 1:
            raise ValueError(f'Dropout "{self.name}": rate must be in [0, 1), got {rate}')
        self.rate, self.seed = rate, seed

    def call(self, x, training=False):
        if not training or self.rate == 0:
            return x
        keep = ops.cast(ops.greater(ops.random_uniform_like(x, seed=self.seed), self.rate), x.dtype)
        return ops.mul(x, ops.mul(keep, 1.0 / (1.0 - self.rate)))


class ZeroPadding2D(Layer):
    """Zero padding of an NHWC input's height and width: `padding` an int, (h, w), or ((top, bottom),
    (left, right))."""
    def __init__(self, padding=1, **kw):
        super().__init__(**kw)
        if isinstance(padding, int):
            padding = ((padding, padding), (padding, padding))
        elif isinstance(padding[0], int):
            padding = ((padding[0], padding[0]), (padding[1], padding[1]))
        self.padding = tuple(tuple(p) for p in padding)

    def call(self, x, training=False):
        return ops.pad(x, [(0, 0), *self.padding, (0, 0)])


class Add(Layer):
    """The element-wise sum of its inputs (a list of tensors of one shape, or broadcastable ones)."""
    def call(self, *xs, training=False):
        out = xs[0]
        for x in xs[1:]:
            out = ops.add(out, x)
        return out


class Concatenate(Layer):
    """Its inputs (a list of tensors) joined along `axis` (default: the last)."""
    def __init__(self, axis: int = -1, **kw):
        super().__init__(**kw)
        self.axis = axis

    def call(self, *xs, training=False):
        return ops.concat(xs, self.axis)


class Activation(Layer):
    """Applies an activation by name ("relu", "softmax", ... ACTIVATIONS) or a callable."""
    def __init__(self, activation, **kw):
        super().__init__(**kw)
        self.activation = activation_fn(activation)

    def call(self, x, training=False):
        return self.activation(x)


class ReLU(Activation):
    """max(x, 0), as Activation("relu")."""
    def __init__(self, **kw):
        super().__init__("relu", **kw)


_STRUCTURAL = {"PLACEHOLDER", "CONST", "VAR_HANDLE", "READ_VARIABLE"}


class Model:
    """Named inputs and outputs over the layers between them.

    `inputs` and `outputs` are a tensor, a list of tensors, or a dict name -> tensor; inputs are named by
    their placeholder names unless a dict names them. `model(training=True)` rebuilds the same layers (same
    variables) in training mode and returns the outputs in the structure they were given.
    """

    def __init__(self, inputs: Any, outputs: Any, name: str = "model"):
        self.name = name
        self.input_structure, self.inputs = self._named(inputs, is_input=True)
        self.output_structure, self.outputs = self._named(outputs, is_input=False)
        self.graph = next(iter(self.outputs.values())).graph
        for key, t in self.inputs.items():
            if t.node.op != "PLACEHOLDER":
                raise ValueError(f'model input "{key}" is not an Input/placeholder ({t!r})')
        self.layers = self._trace_layers()

    @staticmethod
    def _named(tensors: Any, is_input: bool) -> tuple[str, dict[str, Tensor]]:
        def default_name(t: Tensor, i: int) -> str:
            if is_input:
                return t.node.attrs["name"]
            return t.layer_call[0].name if t.layer_call else f"output_{i}"
        if isinstance(tensors, dict):
            return "dict", {k: ops.as_tensor(v) for k, v in tensors.items()}
        if isinstance(tensors, (list, tuple)):
            named = {default_name(ops.as_tensor(t), i): ops.as_tensor(t) for i, t in enumerate(tensors)}
            if len(named) != len(tensors):
                raise ValueError(f"{'inputs' if is_input else 'outputs'} need distinct names; pass a dict")
            return "list", named
        t = ops.as_tensor(tensors)
        return "single", {default_name(t, 0): t}

    def _trace_layers(self) -> list[Layer]:
        layers: list[Layer] = []
        seen: set = set()
        stack = list(self.outputs.values())
        stops = set(self.inputs.values())
        while stack:
            t = stack.pop()
            if t in seen or t in stops:
                continue
            seen.add(t)
            if t.layer_call is not None:
                layer, xs, _ = t.layer_call
                if layer not in layers:
                    layers.append(layer)
                stack.extend(xs)
            else:
                stack.extend(t.node.inputs)
        return layers[::-1]

    @property
    def input_names(self) -> list[str]:
        """The model's input names, in order."""
        return list(self.inputs)

    @property
    def output_names(self) -> list[str]:
        """The model's output names, in order."""
        return list(self.outputs)

    @property
    def variables(self) -> list[Variable]:
        """Every Variable of the model's layers, each once."""
        seen: list[Variable] = []
        for layer in self.layers:
            seen.extend(v for v in layer.variables if v not in seen)
        return seen

    @property
    def trainable_variables(self) -> list[Variable]:
        """The model's Variables that training updates."""
        return [v for v in self.variables if v.trainable]

    @property
    def updates(self) -> list:
        """The layers' training-mode assignments (batch-norm moving statistics)."""
        return [u for layer in self.layers for u in layer.updates]

    def _structured(self, outputs: dict[str, Tensor]) -> Any:
        if self.output_structure == "dict":
            return outputs
        if self.output_structure == "list":
            return list(outputs.values())
        return next(iter(outputs.values()))

    def __call__(self, inputs: Any = None, training: bool | Callable[[Layer], bool] = False) -> Any:
        """The model's outputs, rebuilt over `inputs` (default: its own placeholders) in the given mode;
        `training` may be a function of the layer (a frozen layer runs in inference mode)."""
        if inputs is None and training is False:
            return self._structured(dict(self.outputs))
        originals = list(self.inputs.values())
        if inputs is None:
            new = originals
        elif isinstance(inputs, dict):
            new = [ops.as_tensor(inputs[k]) for k in self.inputs]
        elif isinstance(inputs, (list, tuple)):
            new = [ops.as_tensor(x) for x in inputs]
        else:
            new = [ops.as_tensor(inputs)]
        if len(new) != len(originals):
            raise ValueError(f"model {self.name}: expected {len(originals)} inputs, got {len(new)}")
        memo: dict[Tensor, Tensor] = dict(zip(originals, new))
        outputs = {k: self._rebuild(t, memo, training) for k, t in self.outputs.items()}
        return self._structured(outputs)

    def _rebuild(self, t: Tensor, memo: dict, training: bool) -> Tensor:
        if t in memo:
            return memo[t]
        if t.layer_call is not None:
            layer, xs, many = t.layer_call
            new_xs = [self._rebuild(x, memo, training) for x in xs]
            mode = training(layer) if callable(training) else training
            out = layer(new_xs if many else new_xs[0], training=bool(mode))
        elif t.node.op in _STRUCTURAL:
            out = t
        else:
            node = t.node
            new_inputs = [self._rebuild(x, memo, training) for x in node.inputs]
            if all(a is b for a, b in zip(new_inputs, node.inputs)):
                out = t
            else:
                clone = t.graph.add_node(node.op, new_inputs, dict(node.attrs), name=node.name.split("/")[-1])
                for old, fresh in zip(node.outputs, clone.outputs):
                    memo[old] = fresh
                out = clone.outputs[t.index]
        memo[t] = out
        return out

    def predict(self, feeds: dict) -> Any:
        """Run the inference outputs on the numpy reference; feeds are keyed by input name."""
        resolved = {self.inputs.get(k, k): v for k, v in feeds.items()}
        return self.graph.run(self._structured(dict(self.outputs)), resolved)

    def summary(self) -> str:
        """A text table of the model: its inputs and outputs, and each layer's name, type and parameters."""
        lines = [f"Model {self.name}: inputs {self.input_names}, outputs {self.output_names}"]
        for layer in self.layers:
            params = sum(int(np.prod(v.shape)) for v in layer.variables)
            lines.append(f"  {layer.name:<28} {type(layer).__name__:<22} {params:>8} parameters")
        return "\n".join(lines)

