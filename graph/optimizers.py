"""Optimizers as graph ops: each step is ASSIGN_VARIABLE nodes computed from the gradients; their state
(momenta, moments, beta powers) are Variables, so a converted `train` signature carries it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import ops
from .autodiff import gradients
from .core import Node, Tensor, Variable


class Optimizer:
    """The base of the optimizers: `minimize(loss)` (or `apply_gradients`) adds the update step to the
    graph. `learning_rate` is a float, or a Variable or Tensor to change it between steps."""
    def __init__(self, learning_rate, name: str):
        self.learning_rate = learning_rate  # a float, or a Variable/Tensor to change it between steps
        self.name = name
        self.slots: dict[tuple[str, str], Variable] = {}
        # the variables of the last minimize that the loss gave no gradient (not updated): a caller that chose
        # them (rillet.trainable's layers) says so rather than train nothing there
        self.without_gradient: list[Variable] = []

    def minimize(self, loss: Tensor, var_list: Sequence[Variable] | None = None,
                 include_updates: bool = True) -> Node:
        """The train op: gradient-driven assignments to var_list (default: every trainable variable of the
        graph), grouped with the layers' training-mode updates (batch-norm statistics) that feed the loss."""
        graph = loss.graph
        var_list = list(var_list) if var_list is not None else graph.trainable_variables
        grads = gradients(loss, var_list)
        pairs = [(g, v) for g, v in zip(grads, var_list) if g is not None]
        self.without_gradient = [v for g, v in zip(grads, var_list) if g is None]
        if not pairs:
            raise ValueError(f"{self.name}: the loss depends on none of the variables {[v.name for v in var_list]}")
        step = self.apply_gradients(pairs)
        if not include_updates or not graph.update_ops:
            return step
        feeding = graph.ancestors(loss)
        updates = [u for u, anchor in graph.update_ops if anchor.node in feeding]
        return ops.group(step, *updates, name=f"{self.name}/train") if updates else step

    def apply_gradients(self, grads_and_vars: Sequence[tuple[Tensor, Variable]]) -> Node:
        """One update step as a graph node (a NO_OP grouping the variables' assignments) for (gradient,
        variable) pairs; fetch it to train. Slot variables (momentum, Adam's moments) are made on first
        use."""
        pairs = list(grads_and_vars)
        graph = pairs[0][1].graph
        with graph.name_scope(graph.unique_name(self.name)):
            assigns = self._begin_step(pairs)
            for g, v in pairs:
                assigns.extend(self._update(g, v))
            return ops.group(*assigns, name="step")

    def slot(self, var: Variable, name: str, initial: float = 0.0) -> Variable:
        """The optimizer's slot variable `name` for `var`: made once, filled with `initial`, not trainable."""
        key = (var.name, name)
        if key not in self.slots:
            with var.graph.name_scope(None):
                self.slots[key] = Variable(np.full(var.shape, initial, dtype=var.dtype),
                                           name=f"{self.name}/{var.name}/{name}", trainable=False, graph=var.graph)
        return self.slots[key]

    def _lr(self, var: Variable) -> Tensor:
        lr = self.learning_rate
        if isinstance(lr, (Tensor, Variable)):
            return ops.cast(lr, var.dtype)
        return ops.constant(np.asarray(lr, dtype=var.dtype), graph=var.graph)

    def _begin_step(self, pairs) -> list:
        return []

    def _update(self, grad: Tensor, var: Variable) -> list:
        raise NotImplementedError


class SGD(Optimizer):
    """w -= lr * g; with momentum (Keras's form): v = momentum * v - lr * g, w += v
    (nesterov: w += momentum * v - lr * g)."""

    def __init__(self, learning_rate=0.01, momentum: float = 0.0, nesterov: bool = False, name: str = "SGD"):
        super().__init__(learning_rate, name)
        self.momentum, self.nesterov = momentum, nesterov

    def _update(self, grad, var):
        step = ops.mul(self._lr(var), grad)
        if self.momentum == 0:
            return [var.assign(ops.sub(var, step))]
        velocity = self.slot(var, "momentum")
        new_velocity = ops.sub(ops.mul(velocity, self.momentum), step)
        delta = ops.sub(ops.mul(new_velocity, self.momentum), step) if self.nesterov else new_velocity
        return [velocity.assign(new_velocity), var.assign(ops.add(var, delta))]


def Momentum(learning_rate=0.01, momentum: float = 0.9, nesterov: bool = False,
             name: str = "Momentum") -> SGD:
    """SGD with momentum (0.9 by default), under the name TensorFlow's MomentumOptimizer had."""
    return SGD(learning_rate, momentum, nesterov, name)


class Adam(Optimizer):
    """Adam (Keras's form, epsilon outside the square root):
    m = b1 m + (1-b1) g;  v = b2 v + (1-b2) g^2;  w -= lr sqrt(1-b2^t)/(1-b1^t) * m / (sqrt(v) + eps).
    b1^t and b2^t are Variables multiplied by b1, b2 each step (the step count, in the form the update needs)."""

    def __init__(self, learning_rate=0.001, beta_1: float = 0.9, beta_2: float = 0.999, epsilon: float = 1e-7,
                 name: str = "Adam"):
        super().__init__(learning_rate, name)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon
        self.beta_powers: dict[str, tuple[Variable, Variable]] = {}

    def _begin_step(self, pairs):
        self._scales: dict[str, Tensor] = {}
        assigns = []
        for dtype in sorted({v.dtype for _, v in pairs}):
            var = next(v for _, v in pairs if v.dtype == dtype)
            if dtype not in self.beta_powers:
                with var.graph.name_scope(None):
                    self.beta_powers[dtype] = (
                        Variable(np.ones((), dtype), name=f"{self.name}/beta_1_power", trainable=False, graph=var.graph),
                        Variable(np.ones((), dtype), name=f"{self.name}/beta_2_power", trainable=False, graph=var.graph))
            p1, p2 = self.beta_powers[dtype]
            new_p1, new_p2 = ops.mul(p1, self.beta_1), ops.mul(p2, self.beta_2)
            assigns += [p1.assign(new_p1), p2.assign(new_p2)]
            self._scales[dtype] = ops.div(ops.mul(self._lr(var), ops.sqrt(ops.sub(1.0, new_p2))),
                                          ops.sub(1.0, new_p1))
        return assigns

    def _update(self, grad, var):
        m, v = self.slot(var, "m"), self.slot(var, "v")
        new_m = ops.add(ops.mul(m, self.beta_1), ops.mul(grad, 1.0 - self.beta_1))
        new_v = ops.add(ops.mul(v, self.beta_2), ops.mul(ops.mul(grad, grad), 1.0 - self.beta_2))
        step = ops.div(ops.mul(self._scales[var.dtype], new_m), ops.add(ops.sqrt(new_v), self.epsilon))
        return [m.assign(new_m), v.assign(new_v), var.assign(ops.sub(var, step))]
