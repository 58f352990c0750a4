"""Puts this folder's helper module (xla_nets) on the path: pytest runs in importlib mode."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
