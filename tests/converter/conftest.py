"""tests/converter: the single-op model builder (tests/runtime/single_op.py) on the import path."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
