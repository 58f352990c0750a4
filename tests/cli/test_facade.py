"""`import rillet as rl`: every facade name resolves, and importing rillet loads neither graph nor JAX."""

from __future__ import annotations

import subprocess
import sys

import rillet as rl


def test_every_facade_name_resolves():
    for name in rl._EXPORTS:
        assert getattr(rl, name) is not None, name


def test_import_rillet_is_light(tmp_path):
    code = "import sys, rillet; rillet.load; print('rillet.graph' in sys.modules, 'jax' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert out.stdout.split() == ["False", "False"]
