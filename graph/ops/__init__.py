"""The graph's ops, one module per family (as native/ops/ is): each op's shape rule, numpy reference, JAX
lowering and TFLite mapping (its `register` record), its builder, and its gradient rule, side by side.

OP_TABLE below is the whole op set at a glance (kept equal to the registry and the gradient rules by
tests/graph/test_graph_registry.py): op, family, and how its gradient flows (`rule`: a rule in the family's
GRADIENTS; `none`: no gradient flows through it: integer or boolean results, state, structure).
"""

from __future__ import annotations

from . import (
    _grad,  # noqa: F401  (the helpers the rules share, imported before the families use them)
    composite,
    conv,
    core,
    elementwise,
    matmul,
    movement,
    pool,
    random,
    reduce,
    resize,
)
from .composite import *
from .conv import *
from .core import *
from .elementwise import *
from .matmul import *
from .movement import *
from .pool import *
from .random import *
from .reduce import *
from .resize import *

FAMILIES = {"core": core, "elementwise": elementwise, "reduce": reduce, "matmul": matmul, "conv": conv,
            "pool": pool, "movement": movement, "resize": resize, "random": random, "composite": composite}

GRADIENTS: dict = {}
for _family in FAMILIES.values():
    GRADIENTS.update(getattr(_family, "GRADIENTS", {}))

# Ops through which no gradient flows (integer or boolean results, state, structure).
NO_GRADIENT = {"SHAPE", "GREATER", "RANDOM_UNIFORM", "CONST", "PLACEHOLDER", "VAR_HANDLE", "READ_VARIABLE",
               "ASSIGN_VARIABLE", "NO_OP"}
