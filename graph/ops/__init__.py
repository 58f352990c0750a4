"""The graph's ops, one module per family (as native/ops/ is): each op's shape rule, numpy reference, JAX
lowering and TFLite mapping (its `register` record), its builder, and its gradient rule, side by side.

OP_TABLE below is the whole op set at a glance (kept equal to the registry and the gradient rules by
tests/graph/test_graph_registry.py): op, family, and how its gradient flows (`rule`: a rule in the family's
GRADIENTS; `none`: no gradient flows through it: integer or boolean results, steps (FLOOR, ROUND), complex
results, values that do not depend on a float input's, state, structure; NO_GRADIENT groups them by reason).
The runtime ops that are not graph ops, and why, are pinned in tests/graph/test_runtime_ops.py.
"""

from __future__ import annotations

from ..registry import REGISTRY
from . import (
    _grad,  # noqa: F401  (the helpers the rules share, before the families use them)
    activation,
    arith,
    broadcast,
    compare,
    composite,
    control,
    conv,
    core,
    elementwise,
    indexing,
    matmul,
    mediapipe,
    movement,
    normalization,
    padding,
    pool,
    quantization,
    random,
    rearrange,
    recurrent,
    reduce,
    resize,
    scan,
    sparse,
    spectral,
    splits,
)
from .activation import *
from .arith import *
from .broadcast import *
from .compare import *
from .composite import *
from .control import *
from .conv import *
from .core import *
from .elementwise import *
from .indexing import *
from .matmul import *
from .mediapipe import *
from .movement import *
from .normalization import *
from .padding import *
from .pool import *
from .quantization import *
from .random import *
from .rearrange import *
from .recurrent import *
from .reduce import *
from .resize import *
from .scan import *
from .sparse import *
from .spectral import *
from .splits import *

FAMILIES = {
    "core": core,
    "elementwise": elementwise,
    "arith": arith,
    "compare": compare,
    "activation": activation,
    "normalization": normalization,
    "reduce": reduce,
    "scan": scan,
    "matmul": matmul,
    "conv": conv,
    "recurrent": recurrent,
    "pool": pool,
    "movement": movement,
    "splits": splits,
    "rearrange": rearrange,
    "broadcast": broadcast,
    "padding": padding,
    "indexing": indexing,
    "resize": resize,
    "spectral": spectral,
    "random": random,
    "composite": composite,
    "control": control,
    "quantization": quantization,
    "mediapipe": mediapipe,
    "sparse": sparse,
}
"""The op families by name, each a module of this package holding its ops' builders, rules and gradients."""

GRADIENTS: dict = {}
"""The gradient rules, by op name: `rule(node, output_grads) -> input_grads` (None for an input with no
gradient), merged from each family's GRADIENTS. `gradients` looks an op up here; an op in neither this
table nor NO_GRADIENT cannot be differentiated (NotImplementedError naming it)."""
for _family in FAMILIES.values():
    GRADIENTS.update(getattr(_family, "GRADIENTS", {}))

NO_GRADIENT = {
    # integer or boolean results
    "SHAPE", "GREATER", "LESS", "GREATER_EQUAL", "EQUAL", "LESS_EQUAL", "NOT_EQUAL", "LOGICAL_AND", "LOGICAL_OR",
    "LOGICAL_NOT", "REDUCE_ALL", "REDUCE_ANY", "ARG_MAX", "ARG_MIN", "ONE_HOT",
    # steps: zero derivative almost everywhere (TensorFlow gives none either)
    "CEIL", "FLOOR", "ROUND", "FLOOR_DIV",
    # values that do not depend on a float input's values, or complex ones
    "ZEROS_LIKE", "RANGE", "RFFT2D", "RANDOM_UNIFORM",
    # state and structure
    "CONST", "PLACEHOLDER", "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE", "NO_OP",
    # an initialiser run for its effect: it gives no values
    "CALL_ONCE",
    # a weight's storage (a trained weight is a dense variable)
    "DENSIFY",
}
"""Ops through which no gradient flows: integer or boolean results, steps, values independent of a float
input's, complex results, state and structure."""


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
ABS                      arith        rule
CEIL                     arith        none
ELU                      arith        rule
FLOOR                    arith        none
FLOOR_DIV                arith        none
FLOOR_MOD                arith        rule
POW                      arith        rule
RELU_N1_TO_1             arith        rule
ROUND                    arith        none
EQUAL                    compare      none
GREATER_EQUAL            compare      none
LESS                     compare      none
LESS_EQUAL               compare      none
LOGICAL_AND              compare      none
LOGICAL_NOT              compare      none
LOGICAL_OR               compare      none
MAXIMUM                  compare      rule
MINIMUM                  compare      rule
NOT_EQUAL                compare      none
SELECT                   compare      rule
SELECT_V2                compare      rule
GELU                     activation   rule
PRELU                    activation   rule
L2_NORMALIZATION         normalization rule
LOCAL_RESPONSE_NORMALIZATION normalization rule
MEAN                     reduce       rule
REDUCE_ALL               reduce       none
REDUCE_ANY               reduce       none
REDUCE_MAX               reduce       rule
REDUCE_MIN               reduce       rule
REDUCE_PROD              reduce       rule
SUM                      reduce       rule
ARG_MAX                  scan         none
ARG_MIN                  scan         none
CUMSUM                   scan         rule
BATCH_MATMUL             matmul       rule
FULLY_CONNECTED          matmul       rule
CONV_2D                  conv         rule
DEPTHWISE_CONV_2D        conv         rule
TRANSPOSE_CONV           conv         rule
UNIDIRECTIONAL_SEQUENCE_LSTM recurrent    rule
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
SPLIT                    splits       rule
SPLIT_V                  splits       rule
UNPACK                   splits       rule
BATCH_TO_SPACE_ND        rearrange    rule
REVERSE_V2               rearrange    rule
SPACE_TO_BATCH_ND        rearrange    rule
BROADCAST_TO             broadcast    rule
FILL                     broadcast    rule
RANGE                    broadcast    none
TILE                     broadcast    rule
ZEROS_LIKE               broadcast    none
MIRROR_PAD               padding      rule
PAD                      padding      rule
PADV2                    padding      rule
DYNAMIC_UPDATE_SLICE     indexing     rule
EMBEDDING_LOOKUP         indexing     rule
GATHER                   indexing     rule
GATHER_ND                indexing     rule
ONE_HOT                  indexing     none
RESIZE_BILINEAR          resize       rule
RESIZE_NEAREST_NEIGHBOR  resize       rule
RFFT2D                   spectral     none
RANDOM_UNIFORM           random       none
CALL_ONCE                control      none
IF                       control      rule
WHILE                    control      rule
DEQUANTIZE               quantization rule
QUANTIZE                 quantization rule
MaxPoolingWithArgmax2D   mediapipe    rule
MaxUnpooling2D           mediapipe    rule
DENSIFY                  sparse       none
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
