"""tests/fuzz: the mutator and the exercise loop sit beside these tests; put them on the import path."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
