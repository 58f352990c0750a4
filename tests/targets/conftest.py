"""Puts this folder's helper modules (xla_nets, fit_nets) on the path: pytest runs in importlib mode.

It also asks XLA for deterministic GPU ops (below) and gives this process's JAX a compilation cache for
the session: the fit tests build the same small model many times over, and XLA's compile, not the
training, is what takes their time (4 s a run without the cache, 0.3 s with it). The compiled code is the
same either way.
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

# This process only (jax.config, not the environment): JAX writes a cache entry in place, so processes
# compiling the same program at once (a multi-process run's workers) could read each other's half-written
# entries.
try:
    import jax
except ImportError:
    jax = None
if jax is not None and not jax.config.jax_compilation_cache_dir:
    _cache = tempfile.mkdtemp(prefix="rillet-jax-cache-")
    atexit.register(shutil.rmtree, _cache, ignore_errors=True)
    jax.config.update("jax_compilation_cache_dir", _cache)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
