"""The dataflow graph: tensors, variables, the op registry, autodiff, layers, losses, optimizers."""

from . import layers, losses, ops, optimizers
from .autodiff import GRADIENTS, NO_GRADIENT, gradients
from .core import Graph, Node, Tensor, Variable, get_default_graph, reset_default_graph, run
from .layers import Input, Model
from .ops import constant, group, placeholder
from .registry import REGISTRY, OpDef

__all__ = [
    "GRADIENTS", "NO_GRADIENT", "REGISTRY", "Graph", "Input", "Model", "Node", "OpDef", "Tensor", "Variable",
    "constant", "get_default_graph", "gradients", "group", "layers", "losses", "ops", "optimizers", "placeholder",
    "reset_default_graph", "run",
]
