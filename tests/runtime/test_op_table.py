"""docs/ops.md is the op registry's own table (tools/op_table.py writes it): a kernel added without
regenerating it fails here."""

from __future__ import annotations

import importlib.util
from pathlib import Path

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
