"""The dataflow graph: tensors, variables, the op registry, autodiff, layers, losses, optimizers."""

from . import ops
from .autodiff import GRADIENTS, NO_GRADIENT, gradients
from .core import Graph, Node, Tensor, Variable, get_default_graph, reset_default_graph, run
from .ops import constant, group, placeholder
from .registry import REGISTRY, OpDef

__all__ = [
    "GRADIENTS", "NO_GRADIENT", "REGISTRY", "Graph", "Node", "OpDef", "Tensor", "Variable", "constant",
    "get_default_graph", "gradients", "group", "ops", "placeholder", "reset_default_graph", "run",
]
