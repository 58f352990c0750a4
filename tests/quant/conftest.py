"""tests/quant: the single-op model builder (tests/runtime/single_op.py) and the helpers beside these tests."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
