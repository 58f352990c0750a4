"""docs/ops.md is the op registry's own table (tools/op_table.py writes it): a kernel added without
regenerating it fails here."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load_tool():
    spec = importlib.util.spec_from_file_location("op_table", ROOT / "tools" / "op_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_table_is_the_registry():
    tool = load_tool()
    assert (ROOT / "docs" / "ops.md").read_text() == tool.table(), "run python tools/op_table.py"


def test_the_table_lists_what_the_library_knows():
    from rillet.native import lib

    entries = load_tool().registry()
    assert all(lib.rl_op_is_known(code) for _, code, _ in entries)
    names = {name for name, _, _ in entries}
    assert {"CONV_2D", "DENSIFY", "IF", "WHILE", "UNPACK", "GELU"} <= names
    assert len(names) == len(entries)  # one row per op


def test_the_dtypes_are_those_of_the_data_an_op_computes_on():
    """TRANSPOSE_CONV's first input is its int32 output_shape, FILL's its dims, ONE_HOT's its indices: the table
    gives the dtypes of the input, the value and the on/off values (the registry's data_input)."""
    rows = {name: dtypes for name, _, dtypes in load_tool().registry()}
    assert rows["TRANSPOSE_CONV"] == ["float32", "int16", "int8"]
    assert "float32" in rows["FILL"] and "int8" in rows["ONE_HOT"]
    assert rows["CONV_2D"] == ["float32", "int16", "int8"]


def test_the_support_check_reads_the_data_input():
    """An int32 TRANSPOSE_CONV is named unsupported before prepare (its int32 output_shape used to pass for it)."""
    import sys

    import numpy as np

    sys.path.insert(0, str(ROOT / "tests" / "runtime"))
    from single_op import OPTIONS_TYPES, Input, op_model

    from rillet.runtime import Interpreter, UnsupportedOpsError

    OPTIONS_TYPES.setdefault("TRANSPOSE_CONV", "TransposeConvOptions")
    model = op_model("TRANSPOSE_CONV", [np.array([1, 4, 4, 2], np.int32), np.zeros((2, 3, 3, 3), np.float32),
                                        Input((1, 4, 4, 3), np.int32)], [((1, 4, 4, 2), np.int32)],
                     {"padding": 0, "stride_w": 1, "stride_h": 1})
    with pytest.raises(UnsupportedOpsError, match="TRANSPOSE_CONV op 0 on INT32"):
        Interpreter(model_content=model)
