"""The op registry is complete for the runtime's float op set, and rillet.graph stands alone."""

import subprocess
import sys
from pathlib import Path

from graphcheck import RUNTIME_FLOAT_OPS

import rillet.graph as rg

GRAPH_STRUCTURE = {"PLACEHOLDER", "CONST", "NO_OP", "IDENTITY"}  # not operators in a .tflite
STATE = {"PLACEHOLDER", "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE"}  # the JAX backend threads these


def test_every_runtime_float_op_is_registered():
    assert set(RUNTIME_FLOAT_OPS) <= set(rg.REGISTRY)


def test_every_op_has_a_reference_a_jax_lowering_and_a_tflite_mapping():
    for name, opdef in rg.REGISTRY.items():
        assert callable(opdef.numpy), name
        assert (opdef.jax is None) == (name in STATE), name
        if name in GRAPH_STRUCTURE:
            assert opdef.tflite is None, name
        else:
            assert opdef.tflite["builtin"] == name
            assert set(opdef.tflite["option_map"]) | set(opdef.tflite["attr_inputs"]) <= set(opdef.attrs), name


def test_every_op_has_a_gradient_rule_or_is_declared_without_one():
    for name in rg.REGISTRY:
        assert (name in rg.GRADIENTS) != (name in rg.NO_GRADIENT), name


def test_graph_imports_nothing_of_rillet_but_itself_and_not_jax_at_import(tmp_path):
    root = Path(rg.__file__).parent
    for source in root.rglob("*.py"):
        text = source.read_text()
        outside = "from " + "." * (len(source.relative_to(root).parts) + 1)  # a relative import above graph/
        assert "import rillet" not in text and "from rillet" not in text and outside not in text, source
    code = "import sys, rillet.graph; print('jax' in sys.modules)"
    # From tmp_path: `python -c` puts the working directory on sys.path, where the checkout's ./rillet
    # would shadow the installed package.
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=tmp_path).stdout.strip() == "False"


def test_the_op_table_lists_every_op_with_its_family_and_gradient():
    from rillet.graph.ops import OP_TABLE, op_table

    assert OP_TABLE.strip() == op_table(), "graph/ops/__init__.py's OP_TABLE is stale: paste op_table()'s output"
    assert "MISSING" not in OP_TABLE


def test_every_family_is_a_module_not_a_builder_of_its_name():
    import types

    from rillet.graph.ops import FAMILIES

    # `from .family import *` binds the family's builders in rillet.graph.ops: a family named like one of them
    # (pad, gather) would be replaced by the function, and its gradient rules lost
    assert all(isinstance(module, types.ModuleType) for module in FAMILIES.values())
