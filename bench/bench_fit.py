"""fit against a hand-written plain-JAX training loop of the same CNN, in one run, and 2 processes against 1.

    python bench/bench_fit.py                    # on whatever JAX finds (a GPU if there is one)
    python bench/bench_fit.py --batch-size 128 --epochs 8 --rounds 3

The model is examples/train_desktop.py's digits CNN (two conv-relu-maxpool blocks, a dense layer, Adam on
softmax cross-entropy); the plain-JAX loop is the same math written by hand (lax convolutions, the
optimizer's update as rillet's Adam writes it), jitted, fed the same batches in the same order from host
arrays as fit feeds them, starting from the same weights. Each round trains both for --epochs epochs,
interleaved; a step's time is an epoch's wall time over its steps, the first (compiling) epoch left out,
and the ratio is of medians over every round (target <= 1.05). Then it runs fit as 1 and as 2 local
processes on the CPU (jax.distributed, the same global batch) and prints the 2-process overhead.

Needs numpy and JAX only (tqdm and tensorboardX are not used); from a checkout that is not installed it
imports rillet's folders directly. No data is downloaded: the images are random 0..16 pixels.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def import_rillet() -> None:
    """The installed rillet, else the checkout's folders as the `rillet` namespace (pyproject maps
    rillet.<folder> to ./<folder>), so a bare GPU box with JAX runs this without installing anything."""
    try:
        import rillet.graph
        import rillet.targets.xla  # noqa: F401
    except ImportError:
        for name in [m for m in sys.modules if m == "rillet" or m.startswith("rillet.")]:
            del sys.modules[name]
        package = types.ModuleType("rillet")
        package.__path__ = [str(ROOT / "rillet"), str(ROOT)]
        sys.modules["rillet"] = package


def example():
    spec = importlib.util.spec_from_file_location("train_desktop", ROOT / "examples" / "train_desktop.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_data(examples: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (rng.integers(0, 17, (examples, 8, 8, 1)).astype(np.float32),
            rng.integers(0, 10, examples).astype(np.int32))


# ---- the hand-written loop ----

def plain_jax_trainer(weights: dict[str, np.ndarray], learning_rate: float):
    """init() -> state, step(state, x, y) -> (state, loss): the CNN and Adam, written directly in JAX."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    b1, b2, eps = 0.9, 0.999, 1e-7

    def conv(x, kernel, bias):  # NHWC input, OHWI kernel, SAME padding: as the graph's CONV_2D
        y = lax.conv_general_dilated(x, kernel, (1, 1), "SAME", dimension_numbers=("NHWC", "OHWI", "NHWC"),
                                     precision=lax.Precision.HIGHEST)
        return jax.nn.relu(y + bias)

    def pool(x):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

    def loss_fn(p, x, y):
        h = x * np.float32(1 / 8) - np.float32(1.0)
        h = pool(conv(h, p["conv1/kernel"], p["conv1/bias"]))
        h = pool(conv(h, p["conv2/kernel"], p["conv2/bias"]))
        h = h.reshape(h.shape[0], -1)
        logits = jnp.dot(h, p["logits/kernel"].T, precision=lax.Precision.HIGHEST) + p["logits/bias"]
        return -jnp.mean(jnp.sum(jax.nn.one_hot(y, 10) * jax.nn.log_softmax(logits), -1))

    def step(state, x, y):
        params, m, v, p1, p2 = state
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        p1, p2 = p1 * b1, p2 * b2
        scale = learning_rate * jnp.sqrt(1 - p2) / (1 - p1)
        m = jax.tree_util.tree_map(lambda m, g: m * b1 + g * (1 - b1), m, grads)
        v = jax.tree_util.tree_map(lambda v, g: v * b2 + g * g * (1 - b2), v, grads)
        params = jax.tree_util.tree_map(lambda w, m, v: w - scale * m / (jnp.sqrt(v) + eps), params, m, v)
        return (params, m, v, p1, p2), loss

    def init():
        params = {k: jnp.asarray(w) for k, w in weights.items()}
        def zeros():
            return jax.tree_util.tree_map(jnp.zeros_like, params)
        return params, zeros(), zeros(), jnp.float32(1), jnp.float32(1)  # distinct buffers: all are donated

    return init, jax.jit(step, donate_argnums=0)


def plain_jax_epochs(weights, x, y, epochs: int, batch_size: int, seed: int, learning_rate: float):
    """Seconds a step of each epoch, and the final parameters; fit's batches in fit's order."""
    import jax

    init, step = plain_jax_trainer(weights, learning_rate)
    state = init()
    rng = np.random.default_rng(seed)
    steps = len(y) // batch_size
    times = []
    with jax.default_matmul_precision("highest"):
        for _ in range(epochs):
            start = time.perf_counter()
            order = rng.permutation(len(y))
            for i in range(steps):
                rows = order[i * batch_size:(i + 1) * batch_size]
                state, loss = step(state, jax.device_put(x[rows]), jax.device_put(y[rows]))
            float(loss)  # the epoch ends when its last step has run
            times.append((time.perf_counter() - start) / steps)
    return times, {k: np.asarray(w) for k, w in state[0].items()}


# ---- fit ----

def fit_epochs(x, y, epochs: int, batch_size: int, seed: int, learning_rate: float):
    from rillet.graph import optimizers
    from rillet.targets.xla import fit

    model = example().build_model(seed)
    initial = dict(model.graph.store)
    history = fit(model, (x, y), loss="softmax_cross_entropy", optimizer=optimizers.Adam(learning_rate),
                  epochs=epochs, batch_size=batch_size, seed=seed, progress=False)
    trained = {k: model.graph.store[k] for k in initial}
    return history.epoch_step_times, initial, trained


def worker(args: argparse.Namespace) -> None:
    """One process of the multi-process comparison: fit, then process 0 prints its step times."""
    from rillet.targets import distributed

    distributed.initialize()
    import jax

    x, y = make_data(args.examples)
    times, _, _ = fit_epochs(x, y, args.epochs, args.batch_size, 0, 3e-3)
    if jax.process_index() == 0:
        print(json.dumps({"processes": jax.process_count(), "step_times": times}))


def processes_step_time(processes: int, args: argparse.Namespace) -> float:
    from rillet.targets import distributed

    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "result.json"
        command = [sys.executable, str(Path(__file__).resolve()), "--worker", "--examples", str(args.examples),
                   "--epochs", str(args.epochs), "--batch-size", str(args.batch_size)]
        env = dict(os.environ, JAX_PLATFORMS="cpu")
        with open(out, "w") as f:
            if processes == 1:
                code = subprocess.run(command, check=False, env=env, stdout=f, timeout=600).returncode
            else:
                code = _launch_capturing(distributed, command, processes, env, f)
        if code:
            raise SystemExit(f"the {processes}-process run failed (exit {code})")
        result = json.loads(out.read_text().strip().splitlines()[-1])
    return statistics.median(result["step_times"][1:])


def _launch_capturing(distributed, command, processes, env, f) -> int:
    """launch_local with process 0's stdout in f (the others print nothing)."""
    saved = os.dup(1)
    os.dup2(f.fileno(), 1)
    try:
        return distributed.launch_local(command, processes, timeout=600, env=env)
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batch-size", type=int, default=32, help="global batch (default 32, the example's)")
    parser.add_argument("--examples", type=int, default=4096, help="training examples (default 4096)")
    parser.add_argument("--epochs", type=int, default=6, help="epochs a round, the first one not timed")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds of fit and plain JAX")
    parser.add_argument("--processes", type=int, default=2, help="the multi-process run (0: skip it)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    import_rillet()
    if args.worker:
        return worker(args)

    import jax

    device = jax.devices()[0]
    x, y = make_data(args.examples)
    steps = args.examples // args.batch_size
    print(f"device: {jax.default_backend()} {device.device_kind} ({len(jax.devices())} device(s)), JAX "
          f"{jax.__version__}; batch {args.batch_size}, {steps} steps an epoch, {args.rounds} rounds of "
          f"{args.epochs} epochs")

    fit_times, plain_times = [], []
    for r in range(args.rounds):
        if r == 0:  # a few steps first: Adam on random labels drifts apart with float rounding over hundreds
            _, initial, trained = fit_epochs(x[:5 * args.batch_size], y[:5 * args.batch_size], 1, args.batch_size,
                                             0, 3e-3)
            _, plain = plain_jax_epochs(initial, x[:5 * args.batch_size], y[:5 * args.batch_size], 1,
                                        args.batch_size, 0, 3e-3)
            worst = max(float(np.max(np.abs(trained[k] - plain[k])) / np.max(np.abs(plain[k]))) for k in plain)
            print(f"same math: after 5 steps fit's and plain JAX's weights differ by {worst:.1e} at most "
                  "(relative to each variable's largest value)")
        times, initial, _ = fit_epochs(x, y, args.epochs, args.batch_size, 0, 3e-3)
        fit_times += times[1:]
        times, _ = plain_jax_epochs(initial, x, y, args.epochs, args.batch_size, 0, 3e-3)
        plain_times += times[1:]
    fit_step, plain_step = statistics.median(fit_times), statistics.median(plain_times)
    print(f"plain JAX loop : {plain_step * 1e3:8.3f} ms a step ({1 / plain_step:8.0f} steps/s)")
    print(f"fit            : {fit_step * 1e3:8.3f} ms a step ({1 / fit_step:8.0f} steps/s)")
    ratio = fit_step / plain_step
    print(f"fit / plain JAX: {ratio:.3f} (median step times; target <= 1.05: {'met' if ratio <= 1.05 else 'MISSED'})")

    if args.processes > 1:
        one = processes_step_time(1, args)
        many = processes_step_time(args.processes, args)
        print(f"processes on the CPU, global batch {args.batch_size}: 1 process {one * 1e3:.3f} ms a step, "
              f"{args.processes} processes {many * 1e3:.3f} ms a step: overhead {many / one:.2f}x")


if __name__ == "__main__":
    main()
