"""One training step on the CPU: rillet's runtime against LiteRT on the same .tflite file (its `train`
signature through each one's signature runner) and against JAX (rillet.targets.xla, the same graph step
jitted), in one process, interleaved; medians and ratios.

    python bench/bench_train_step.py [--runs 200] [--batch 32]
    python bench/bench_train_step.py --trainable-only [--model M.tflite --train-last N --optimizer adam]

Then files `rillet trainable` makes of shipped models (tests/data/models: cnn_small_int8 with its last two
layers trained, MobileNetV2-0.35 int8 with its head trained: an int8 body copied as it is in front of a
float tail; or --model): rillet against LiteRT on the same training file, interleaved. The issue's target,
a MobileNetV3-small int8 (Keras, TensorFlow's converter, random weights), is made by
bench/make_mobilenet_v3_int8.py (/work/txenv's TensorFlow) and timed with --model.

Models: the bundled digits CNN made a training file with every layer trainable (Adam), and TensorFlow's
own train_mlp.tflite (tests/data/models; batch 8, its converter's SGD step). train_mlp has no rillet graph,
so its JAX column is the same network and step written in rillet's graph (two dense layers, softmax
cross-entropy on one-hot labels, SGD), not the same file. Each runtime keeps its own variables; every step
feeds the same batch. The JAX step includes its Python dispatch (a jitted call), as a training loop sees it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

import rillet as rl
from rillet.bundled import bundled_model_path
from rillet.commands.bench import _time_interleaved
from rillet.converter.format import save
from rillet.converter.training import build_training, training_file
from rillet.graph import Graph, losses, optimizers
from rillet.graph import layers as L
from rillet.runtime import Interpreter

SHARED_MODELS = Path(__file__).resolve().parents[1] / "tests" / "data" / "models"


def digits_cnn(batch: int):
    """(training file bytes, the training graph, one batch of feeds) for the digits CNN."""
    model = rl.to_graph(str(bundled_model_path()))
    logits = model.outputs["probs"].node.inputs[0]
    tg = build_training(model, rl.TrainSpec(lambda y, _p: losses.softmax_cross_entropy(y, logits),
                                            optimizers.Adam(1e-3), label_dtype="int32"))
    rs = np.random.default_rng(0)
    feeds = {"image": rs.uniform(0, 16, (batch, 8, 8, 1)).astype(np.float32),
             "y": rs.integers(0, 10, batch).astype(np.int32)}
    return save(training_file(tg)), tg, feeds


def train_mlp_like():
    """train_mlp.tflite's network and step as a rillet graph, for the JAX column."""
    g = Graph()
    with g.as_default():
        x = L.Input([64], name="x")
        logits = L.Dense(10)(L.Dense(32, activation="relu")(x))
        model = L.Model(x, logits)
    return build_training(model, rl.TrainSpec(losses.softmax_cross_entropy, optimizers.SGD(0.01)))


def jax_step(tg, feeds: dict):
    from rillet.targets.xla import XlaRunner

    runner = XlaRunner({"loss": tg.loss, "step": tg.step}, feeds=[*tg.inputs.values(), tg.labels])
    arrays = [feeds[name] for name in [*tg.inputs, tg.label_name]]
    return lambda: runner.run(arrays)


def signature_step(interpreter, feeds: dict):
    train = interpreter.get_signature_runner("train")
    return lambda: train(**feeds)


TRAINABLE = [("cnn_small_int8", 2, "momentum"), ("mobilenet_v2_035_96_int8", 1, "momentum"),
             ("mobilenet_v2_035_96_int8", 2, "adam")]


def trainable_feeds(interpreter, batch: int) -> dict:
    """One batch for the train signature: uniform inputs of each input's type, class indices for y (the
    file's batch where it fixes one)."""
    rs = np.random.default_rng(2)
    runner = interpreter.get_signature_runner("train")
    feeds = {}
    for name, d in runner.get_input_details().items():
        shape = [batch if d["shape_signature"][0] < 0 else d["shape"][0], *d["shape"][1:]]
        if name == "y":
            feeds[name] = rs.integers(0, 10, shape).astype(d["dtype"])
        elif np.issubdtype(d["dtype"], np.integer):
            feeds[name] = rs.integers(-128, 128, shape).astype(d["dtype"])
        else:
            feeds[name] = rs.uniform(-1, 1, shape).astype(d["dtype"])
    return feeds


def step_memory_reported(data: bytes, batch: int) -> int:
    """step_bytes of `rillet inspect`'s training report, made from the file alone before any step."""
    import tempfile

    from rillet.commands.inspect import training_memory

    with tempfile.NamedTemporaryFile(suffix=".tflite") as f:
        f.write(data)
        f.flush()
        return int(training_memory(f.name, batch)["step_bytes"])


def resident_bytes() -> int:
    """The process's resident set (Linux /proc; 0 elsewhere): pages actually touched, a measure apart from
    the plan's own accounting."""
    try:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmRSS"))
    except (OSError, StopIteration):
        return 0


def resident_growth_in_a_fresh_process(data: bytes, batch: int) -> int:
    """How much the resident set of a new Python process grows over making the interpreter and running one step:
    the pages the step really touches. A new process, because in this one pages that earlier work freed (making
    the training file, LiteRT's interpreter) are reused without growing the resident set (it read 0.74x of the
    plan's own sum here for MobileNetV3-small, 0.99x in a new process)."""
    import subprocess
    import tempfile

    child = (
        "import gc, sys; sys.path.insert(0, sys.argv[2]); import bench_train_step as b; "
        "from rillet.runtime import Interpreter; data = open(sys.argv[1], 'rb').read(); "
        "feeds = b.trainable_feeds(Interpreter(model_content=data), int(sys.argv[3])); gc.collect(); "
        "before = b.resident_bytes(); ours = Interpreter(model_content=data); b.signature_step(ours, feeds)(); "
        "print(b.resident_bytes() - before)"
    )
    with tempfile.NamedTemporaryFile(suffix=".tflite") as f:
        f.write(data)
        f.flush()
        out = subprocess.run([sys.executable, "-c", child, f.name, str(Path(__file__).parent), str(batch)],
                             check=True, capture_output=True, text=True)
    return int(out.stdout.split()[-1])


def step_memory_used(interpreter) -> int:
    """What the train signature holds after its steps: its plan's arena, op state, packed weights and dynamic
    blocks, and every variable's value."""
    from rillet.commands.inspect import STEP_PARTS

    plan = interpreter._plans[interpreter._signature_subgraphs()["train"]].memory()
    return sum(plan[k] for k in STEP_PARTS) + interpreter._program.variable_bytes()


def trainable_rows(models: list[tuple], batch: int, runs: int) -> None:
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    for model, last, optimizer in models:
        path = Path(model) if str(model).endswith(".tflite") else SHARED_MODELS / f"{model}.tflite"
        data = rl.trainable(path, train_last=last, optimizer=optimizer, learning_rate=1e-3)
        feeds = trainable_feeds(Interpreter(model_content=data), batch)
        size = len(next(iter(feeds.values())))
        ours = Interpreter(model_content=data)
        signature_step(ours, feeds)()
        touched = resident_growth_in_a_fresh_process(data, size)
        reported = step_memory_reported(data, size)
        steps = {"rillet": signature_step(ours, feeds), "LiteRT": signature_step(LiteRT(model_content=data), feeds)}
        times = _time_interleaved(steps, runs)
        used = step_memory_used(ours)
        print(f"rillet trainable {path.stem}, last {last} trained, {optimizer}, batch {size}:")
        print(f"  memory: `rillet inspect` before any step {reported:,} B, the step's plan and variables after "
              f"{runs} steps {used:,} B; reported / used {reported / used:.3f}; a new process's resident memory "
              f"grew {touched:,} B over the interpreter and its first step (reported / that "
              f"{reported / max(touched, 1):.2f})")
        for stat in ("median_ms", "p10_ms"):
            ms = {k: v[stat] for k, v in times.items()}
            print(f"  {stat[:-3]:>6}: rillet {ms['rillet']:.3f} ms, LiteRT {ms['LiteRT']:.3f} ms; "
                  f"rillet / LiteRT {ms['rillet'] / ms['LiteRT']:.2f}")


def report(name: str, times: dict) -> None:
    """Medians, and the 10th percentiles beside them: on a shared machine a step that a time slice cuts
    lands in the median's upper half, and the 10th percentile shows what an undisturbed step costs."""
    print(f"{name}:")
    for stat in ("median_ms", "p10_ms"):
        ms = {k: v[stat] for k, v in times.items()}
        print(f"  {stat[:-3]:>6}: " + ", ".join(f"{k} {v:.3f} ms" for k, v in ms.items()) +
              f"; rillet / LiteRT {ms['rillet'] / ms['LiteRT']:.2f}, rillet / JAX {ms['rillet'] / ms['JAX']:.2f}")
    print("  (a ratio below 1: rillet is faster)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--trainable-only", action="store_true", help="only the files `rillet trainable` makes")
    parser.add_argument("--model", help="a .tflite to make trainable and time instead of the shipped ones")
    parser.add_argument("--train-last", type=int, default=1)
    parser.add_argument("--optimizer", default="momentum", choices=["sgd", "momentum", "adam"])
    args = parser.parse_args()
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    trainable_rows([(args.model, args.train_last, args.optimizer)] if args.model else TRAINABLE, args.batch,
                   args.runs)
    if args.trainable_only:
        return

    data, tg, feeds = digits_cnn(args.batch)
    steps = {"rillet": signature_step(Interpreter(model_content=data), feeds),
             "LiteRT": signature_step(LiteRT(model_content=data), feeds), "JAX": jax_step(tg, feeds)}
    report(f"digits CNN, batch {args.batch}, Adam, every layer trained", _time_interleaved(steps, args.runs))

    path = SHARED_MODELS / "train_mlp.tflite"
    rs = np.random.default_rng(1)
    feeds = {"x": rs.normal(size=(8, 64)).astype(np.float32),
             "y": np.eye(10, dtype=np.float32)[rs.integers(0, 10, 8)]}
    steps = {"rillet": signature_step(Interpreter(model_path=str(path)), feeds),
             "LiteRT": signature_step(LiteRT(model_path=str(path)), feeds),
             "JAX": jax_step(train_mlp_like(), feeds)}
    report("train_mlp.tflite, batch 8, SGD", _time_interleaved(steps, args.runs))


if __name__ == "__main__":
    main()
