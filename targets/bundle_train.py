"""Trains a deploy bundle's model on the device through its `train` signature: `python3 train.py data.npz`.

`rillet deploy --train` copies this file into the bundle as train.py. data.npz holds one array per input of
the train signature (e.g. `x` and `y`), examples along the first axis; each epoch shuffles them (seeded) and
runs the signature on batches of its batch size, printing the mean loss. The variables are saved to
checkpoint.npz after every epoch (atomically) and restored from it on the next run, so training goes on
where it stopped; run.py restores them too. `--export trained.tflite` writes the inference model with the
trained values baked in, for any TFLite runtime.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

try:
    import numpy as np

    from rillet.runtime import Interpreter
except ImportError:
    ENV_PYTHON = HERE / "env" / "bin" / "python3"
    if ENV_PYTHON.exists() and Path(sys.prefix).resolve() != ENV_PYTHON.parent.parent.resolve():
        os.execv(ENV_PYTHON, [str(ENV_PYTHON), *sys.argv])
    sys.exit(f"{Path(sys.argv[0]).name}: rillet is not installed: run ./install.sh in {HERE} first")


def batches(data: dict[str, np.ndarray], batch: int, rng: np.random.Generator):
    count = len(next(iter(data.values())))
    order = rng.permutation(count)
    for start in range(0, count - batch + 1, batch):
        rows = order[start:start + batch]
        yield {name: values[rows] for name, values in data.items()}


def main(argv: list[str] | None = None) -> int:
    import json

    config = json.loads((HERE / "bundle.json").read_text())
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", type=Path, help=".npz with one array per train-signature input")
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--checkpoint", type=Path, default=HERE / "checkpoint.npz")
    parser.add_argument("--export", type=Path, help="write the trained inference model here")
    parser.add_argument("--threads", type=int, help="default: every core")
    args = parser.parse_args(argv)

    interpreter = Interpreter(model_path=str(HERE / config["model"]), num_threads=args.threads or os.cpu_count())
    if args.checkpoint.exists():
        interpreter.restore_checkpoint(args.checkpoint)
        print(f"restored {args.checkpoint.name}")
    train = interpreter.get_signature_runner("train")
    inputs = train.get_input_details()
    with np.load(args.data, allow_pickle=False) as f:
        missing = sorted(set(inputs) - set(f.files))
        if missing:
            print(f"train.py: {args.data} lacks {', '.join(missing)} (the train signature takes "
                  f"{', '.join(inputs)})", file=sys.stderr)
            return 2
        data = {name: f[name].astype(details["dtype"]) for name, details in inputs.items()}
    batch = int(next(iter(inputs.values()))["shape"][0])
    count = len(next(iter(data.values())))
    if count < batch:
        print(f"train.py: {count} examples, fewer than one batch of {batch}", file=sys.stderr)
        return 2
    rng = np.random.default_rng(args.seed)
    for epoch in range(1, args.epochs + 1):
        losses = [float(np.mean(next(iter(train(**b).values())))) for b in batches(data, batch, rng)]
        interpreter.save_checkpoint(args.checkpoint)
        print(f"epoch {epoch}: mean loss {np.mean(losses):.5f} over {len(losses)} batches of {batch}", flush=True)
    if args.export:
        interpreter.export_model(args.export)
        print(f"wrote {args.export}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
