"""The graph's ops, one module per family (as native/ops/ is): each op's shape rule, numpy reference, JAX
lowering and TFLite mapping (its `register` record), its builder, and its gradient rule, side by side.

OP_TABLE below is the whole op set at a glance (kept equal to the registry and the gradient rules by
tests/graph/test_graph_registry.py): op, family, and how its gradient flows (`rule`: a rule in the family's
GRADIENTS; `none`: no gradient flows through it: integer or boolean results, state, structure).
"""

from __future__ import annotations

from ..registry import REGISTRY
from . import (
    _grad,  # noqa: F401  (the helpers the rules share, before the families use them)
    activation,
    compare,
    composite,
    conv,
    core,
    elementwise,
    indexing,
    matmul,
    movement,
    padding,
    pool,
    random,
    reduce,
    resize,
)
from .activation import *
from .compare import *
from .composite import *
from .conv import *
from .core import *
from .elementwise import *
from .indexing import *
from .matmul import *
from .movement import *
from .padding import *
from .pool import *
from .random import *
from .reduce import *
from .resize import *

FAMILIES = {
    "core": core,
    "elementwise": elementwise,
    "compare": compare,
    "activation": activation,
    "reduce": reduce,
    "matmul": matmul,
    "conv": conv,
    "pool": pool,
    "movement": movement,
    "padding": padding,
    "indexing": indexing,
    "resize": resize,
    "random": random,
    "composite": composite,
}
"""The op families by name, each a module of this package holding its ops' builders, rules and gradients."""

GRADIENTS: dict = {}
"""The gradient rules, by op name: `rule(node, output_grads) -> input_grads` (None for an input with no
gradient), merged from each family's GRADIENTS. `gradients` looks an op up here; an op in neither this
table nor NO_GRADIENT cannot be differentiated (NotImplementedError naming it)."""
for _family in FAMILIES.values():
    GRADIENTS.update(getattr(_family, "GRADIENTS", {}))

# Ops through which no gradient flows (integer or boolean results, state, structure).
NO_GRADIENT = {"SHAPE", "GREATER", "RANDOM_UNIFORM", "CONST", "PLACEHOLDER", "VAR_HANDLE", "READ_VARIABLE",
               "ASSIGN_VARIABLE", "NO_OP", "LESS", "GREATER_EQUAL", "EQUAL"}
"""Ops through which no gradient flows (integer or boolean results, state, structure)."""


# op                     family       gradient
OP_TABLE = """
ASSIGN_VARIABLE          core         none
CONST                    core         none
IDENTITY                 core         rule
NO_OP                    core         none
PLACEHOLDER              core         none
READ_VARIABLE            core         none
VAR_HANDLE               core         none
ADD                      elementwise  rule
CAST                     elementwise  rule
COS                      elementwise  rule
DIV                      elementwise  rule
EXP                      elementwise  rule
GREATER                  elementwise  none
HARD_SWISH               elementwise  rule
LEAKY_RELU               elementwise  rule
LOG                      elementwise  rule
LOGISTIC                 elementwise  rule
LOG_SOFTMAX              elementwise  rule
MUL                      elementwise  rule
NEG                      elementwise  rule
RELU                     elementwise  rule
RELU6                    elementwise  rule
RSQRT                    elementwise  rule
SIN                      elementwise  rule
SOFTMAX                  elementwise  rule
SQRT                     elementwise  rule
SQUARE                   elementwise  rule
SQUARED_DIFFERENCE       elementwise  rule
SUB                      elementwise  rule
TANH                     elementwise  rule
EQUAL                    compare      none
GREATER_EQUAL            compare      none
LESS                     compare      none
MAXIMUM                  compare      rule
MINIMUM                  compare      rule
SELECT_V2                compare      rule
GELU                     activation   rule
PRELU                    activation   rule
MEAN                     reduce       rule
REDUCE_MAX               reduce       rule
REDUCE_MIN               reduce       rule
SUM                      reduce       rule
BATCH_MATMUL             matmul       rule
FULLY_CONNECTED          matmul       rule
CONV_2D                  conv         rule
DEPTHWISE_CONV_2D        conv         rule
TRANSPOSE_CONV           conv         rule
AVERAGE_POOL_2D          pool         rule
MAX_POOL_2D              pool         rule
CONCATENATION            movement     rule
DEPTH_TO_SPACE           movement     rule
EXPAND_DIMS              movement     rule
PACK                     movement     rule
RESHAPE                  movement     rule
SHAPE                    movement     none
SLICE                    movement     rule
SPACE_TO_DEPTH           movement     rule
SQUEEZE                  movement     rule
STRIDED_SLICE            movement     rule
TRANSPOSE                movement     rule
MIRROR_PAD               padding      rule
PAD                      padding      rule
EMBEDDING_LOOKUP         indexing     rule
GATHER                   indexing     rule
RESIZE_BILINEAR          resize       rule
RESIZE_NEAREST_NEIGHBOR  resize       rule
RANDOM_UNIFORM           random       none
"""
"""Every op with its family and whether a gradient rule, none, or no gradient applies (a test checks it
against the registry)."""


def op_table() -> str:
    """OP_TABLE, computed from the registry: each op's family (the module that registers it) and gradient."""
    rows = []
    for name, opdef in REGISTRY.items():
        family = opdef.numpy.__module__.rsplit(".", 1)[-1]
        flow = "rule" if name in GRADIENTS else "none" if name in NO_GRADIENT else "MISSING"
        rows.append(f"{name:<24} {family:<12} {flow}")
    return "\n".join(sorted(rows, key=lambda r: (list(FAMILIES).index(r.split()[1]), r)))
