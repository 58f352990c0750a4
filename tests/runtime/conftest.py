"""tests/runtime: the single-op model builder sits beside these tests; put it on the import path."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
