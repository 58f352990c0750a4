"""Puts this folder's helper modules (xla_nets, fit_nets) on the path: pytest runs in importlib mode.

It also asks XLA for deterministic GPU ops (below) and gives JAX a compilation cache for the session (and the worker processes the tests start): the fit
tests build the same small model many times over, and XLA's compile, not the training, is what takes
their time (4 s a run without the cache, 0.3 s with it). The compiled code is the same either way.
"""

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

# On a GPU, XLA may pick convolution algorithms that add in a different order from run to run; the tests
# that compare bytes (same seed, resumed runs) need the deterministic ones. No effect on the CPU.
if "xla_gpu_deterministic_ops" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_gpu_deterministic_ops=true").strip()

if "JAX_COMPILATION_CACHE_DIR" not in os.environ:
    _cache = tempfile.mkdtemp(prefix="rillet-jax-cache-")
    atexit.register(shutil.rmtree, _cache, ignore_errors=True)
    os.environ.update(JAX_COMPILATION_CACHE_DIR=_cache, JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="0",
                      JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES="0")
    if "jax" in sys.modules:  # already imported by another folder's tests: it has read its environment
        import jax

        jax.config.update("jax_compilation_cache_dir", _cache)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
