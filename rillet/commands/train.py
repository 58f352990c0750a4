"""`rillet train`: train a model, on the desktop (XLA, one process or several) or on the device runtime.

    rillet train builder.py:make_model --data train.npz [--validation val.npz] -o model.tflite   # XLA
    rillet train builder.py:make_model --data train.npz --processes 2                            # 2 local processes
    rillet train builder.py:make_model --data train.npz --coordinator host0:1234 --num-processes 4 --process-id K
    rillet train model.tflite --data train.npz --epochs 5 --checkpoint-dir ckpt -o trained.tflite    # device

The XLA backend trains the rillet Model a Python function returns (as `rillet convert` takes it) with
`rillet.targets.xla.fit`; the device backend (the default for a .tflite) runs the file's `train` signature
on rillet's C runtime. Both checkpoint every N steps and when stopped, and resume from checkpoint-dir.
Errors are one line: exit 2 for bad usage (arguments, files), 1 when the training itself fails.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from .common import ParagraphFormatter, UsageError, WorkError, npz_names, output_file

OPTIMIZERS = ("sgd", "momentum", "adam")
RECALIBRATION_SAMPLES = 256  # --recalibrate's calibration set: enough for the ranges, quick to run
ARGS_VARIABLE = "RILLET_TRAIN_ARGS"  # a local launch hands its processes the parsed arguments here
# XLA's defaults, applied after the check that the device backend was not given these flags (its train
# signature has its loss and optimizer built in)
XLA_DEFAULTS = {"loss": "softmax_cross_entropy", "optimizer": "adam", "learning_rate": 1e-3}


# The module's docstring without its first line's command name: what `rillet train --help` shows.
DESCRIPTION = "Train a model" + __doc__.split(": train a model", 1)[1]


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("train", help="train a model: a graph on XLA, or a .tflite's train signature",
        description=DESCRIPTION, formatter_class=ParagraphFormatter)
    p.add_argument("target", help="FILE.py:FUNCTION returning a rillet Model (XLA), or a .tflite with a "
                                  "train signature (device)")
    p.add_argument("--backend", choices=["xla", "device"], help="default: device for a .tflite, else xla")
    p.add_argument("--data", required=True, help="training data: .npz with an array per model input and the "
                                                 "labels (named as the inputs and `labels`, or x and y)")
    p.add_argument("--validation", "--val", dest="validation",
                   help="validation data (.npz, as --data), evaluated each epoch (XLA; device: a file `rillet "
                        "trainable` wrote, scored by its infer signature)")
    p.add_argument("--epochs", type=int, default=1, help="passes over the data (default 1)")
    p.add_argument("--batch-size", type=int, help="global batch (default 32, or the .tflite's own)")
    p.add_argument("--seed", type=int, default=0, help="seeds the shuffling (and XLA's random ops)")
    p.add_argument("--no-shuffle", dest="shuffle", action="store_false", help="read the data in order")
    p.add_argument("--checkpoint-dir", help="write checkpoints here; a run resumes from the newest")
    p.add_argument("--every", type=int, help="steps between checkpoints (default: only at the end)")
    p.add_argument("--no-resume", dest="resume", action="store_false", help="start over, ignoring checkpoints")
    p.add_argument("-o", "--output", help="write the trained model (.tflite, its infer signature)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    xla = p.add_argument_group("XLA backend")
    xla.add_argument("--loss", help="softmax_cross_entropy (default) or mean_squared_error")
    xla.add_argument("--optimizer", choices=OPTIMIZERS, help="default adam")
    xla.add_argument("--learning-rate", type=float, help="default 1e-3")
    xla.add_argument("--metrics", nargs="*", default=[], help="e.g. accuracy")
    xla.add_argument("--log-dir", help="TensorBoard scalars here (tensorboardX)")
    xla.add_argument("--precision", choices=["float32", "bfloat16"], default="float32")
    xla.add_argument("--processes", type=int, default=1,
                     help="start N local processes (jax.distributed); not with --coordinator")
    xla.add_argument("--coordinator", help="host:port of process 0, for a run over several hosts (one process "
                                           "per command; not with --processes)")
    xla.add_argument("--num-processes", type=int, help="processes in the run (with --coordinator)")
    xla.add_argument("--process-id", type=int, help="this process's id, 0..N-1 (with --coordinator)")
    device = p.add_argument_group("device backend (the file's train signature has its loss and optimizer "
                                  "built in)")
    device.add_argument("--threads", type=int, help="the interpreter's threads (default 1)")
    device.add_argument("--validation-split", type=float, default=0.0, metavar="F",
                        help="hold out this fraction of --data (its last examples) as validation data")
    device.add_argument("--recalibrate", action="store_true",
                        help="with -o and an int8 model: quantize the trained model again over --data's inputs "
                             "(its first 256 examples) instead of keeping the original's scales")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rillet.targets.fit_data import FitError

    try:
        backend = args.backend or ("device" if args.target.endswith(".tflite") else "xla")
        _check_usage(args, backend)
        return _train_on_device(args) if backend == "device" else _train_on_xla(args)
    except UsageError as e:
        print(f"rillet train: {_one_line(e)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        where = f"; rerun to resume from {args.checkpoint_dir}" if args.checkpoint_dir else ""
        print(f"rillet train: {e or 'stopped'}{where}", file=sys.stderr)
        return 130
    except (FitError, WorkError, ValueError, RuntimeError, OSError) as e:
        print(f"rillet train: {_one_line(e)}", file=sys.stderr)
        return 1


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__


def _check_usage(args: argparse.Namespace, backend: str) -> None:
    """Every refusal that needs no training: the files, the flags of the other backend, the two forms of a
    run over several processes, the output's folder. Fills in the XLA defaults afterwards."""
    if Path(args.target).is_dir():
        raise UsageError(f"{args.target} is a folder: give FILE.py:FUNCTION returning a rillet Model (XLA) or a "
                         ".tflite with a train signature (device)")
    if args.epochs < 0 or (args.batch_size is not None and args.batch_size < 1) or \
            (args.every is not None and args.every < 1):
        raise UsageError("--epochs must be >= 0, --batch-size and --every >= 1")
    if backend == "device":
        if not Path(args.target).is_file():
            raise UsageError(f"{args.target} does not exist")
        xla_only = [flag for flag, on in (("--log-dir", args.log_dir),
                                          ("--processes", args.processes != 1), ("--coordinator", args.coordinator),
                                          ("--num-processes", args.num_processes is not None),
                                          ("--process-id", args.process_id is not None),
                                          ("--metrics", args.metrics), ("--precision", args.precision != "float32"))
                    if on]
        if xla_only:
            raise UsageError(f"{', '.join(xla_only)}: XLA backend only (this trains {args.target} on the device runtime)")
        baked = [flag for flag, value in (("--loss", args.loss), ("--optimizer", args.optimizer),
                                          ("--learning-rate", args.learning_rate)) if value is not None]
        if baked:
            raise UsageError(f"{', '.join(baked)}: {args.target}'s train signature has its loss, optimizer and "
                             "learning rate built in (set them where the file is made); XLA backend only")
        if args.threads is not None and args.threads < 1:
            raise UsageError("--threads must be >= 1")
        args.threads = args.threads or 1
        if not 0.0 <= args.validation_split < 1.0:
            raise UsageError(f"--validation-split {args.validation_split:g}: must be in [0, 1)")
        if args.recalibrate and not args.output:
            raise UsageError("--recalibrate quantizes the model -o writes: give -o")
        if args.validation_split and args.validation:
            raise UsageError("--validation-split holds out part of --data; --validation gives other data: not both")
    else:
        if args.target.endswith(".tflite"):
            raise UsageError("the XLA backend trains a graph: give FILE.py:FUNCTION returning a rillet Model")
        if args.recalibrate:
            raise UsageError("--recalibrate quantizes a trained int8 .tflite: device backend only")
        if args.validation_split:
            raise UsageError("--validation-split: device backend only (XLA takes --validation data)")
        if args.threads is not None:
            raise UsageError("--threads: device backend only (XLA sizes its own thread pool; a .tflite trains on "
                             "the device backend)")
        for key, value in XLA_DEFAULTS.items():
            if getattr(args, key) is None:
                setattr(args, key, value)
        from rillet.targets.fit import METRICS

        unknown = [m for m in args.metrics if m not in METRICS]
        if unknown:
            raise UsageError(f"unknown metric {unknown[0]!r} (known: {', '.join(sorted(METRICS))})")
        if args.loss not in ("softmax_cross_entropy", "mean_squared_error"):
            raise UsageError(f"unknown loss {args.loss!r} (softmax_cross_entropy or mean_squared_error)")
        if args.learning_rate <= 0:
            raise UsageError(f"--learning-rate must be > 0, got {args.learning_rate:g}")
        _check_processes(args)
    for flag, path in (("--data", args.data), ("--validation", args.validation)):
        if path is not None:
            npz_names(path, f"{flag} file")
    if args.output:
        output_file(args.output)


def _check_processes(args: argparse.Namespace) -> None:
    """--processes N (local processes this command starts) and --coordinator with --num-processes and
    --process-id (one process of a run over several hosts) are two forms of one thing: mixed, JAX waits
    minutes for processes that never come and aborts, so the mix is refused here at once."""
    if args.processes < 1:
        raise UsageError("--processes must be >= 1")
    several_hosts = [flag for flag, value in (("--coordinator", args.coordinator),
                                              ("--num-processes", args.num_processes),
                                              ("--process-id", args.process_id)) if value is not None]
    if args.processes != 1 and several_hosts:
        raise UsageError(f"--processes {args.processes} starts local processes; {', '.join(several_hosts)} join a "
                         "run over several hosts: give one form, not both")
    if several_hosts and len(several_hosts) != 3:
        raise UsageError("a run over several hosts needs --coordinator HOST:PORT, --num-processes N and "
                         "--process-id K together (or --processes N for local processes)")
    if several_hosts:
        if args.num_processes < 1:
            raise UsageError(f"--num-processes must be >= 1, got {args.num_processes}")
        if not 0 <= args.process_id < args.num_processes:
            raise UsageError(f"--process-id {args.process_id}: must be 0..{args.num_processes - 1} "
                             f"(--num-processes {args.num_processes})")


def _train_on_device(args: argparse.Namespace) -> int:
    from rillet.targets.device_train import DeviceTrainer

    trainer = DeviceTrainer(args.target, threads=args.threads)
    try:
        batch_size = trainer.batch_size(args.batch_size)
    except ValueError as e:
        raise UsageError(str(e)) from None
    before = _checkpoint_position(args)

    def epoch_line(epoch: int, values: dict[str, float]) -> None:
        shown = ", ".join(f"{k} {v:.4g}" for k, v in values.items())
        print(f"epoch {epoch + 1}/{args.epochs}: {shown}", flush=True)

    history = trainer.fit(args.data, epochs=args.epochs, batch_size=batch_size, checkpoint_dir=args.checkpoint_dir,
                          every=args.every, resume=args.resume, seed=args.seed, shuffle=args.shuffle,
                          progress=not args.quiet, validation=args.validation,
                          validation_split=args.validation_split, on_epoch=epoch_line)
    _report(history, args, before)
    if args.output:
        calibration = None
        if args.recalibrate:
            from rillet.targets.fit_data import load_arrays

            if trainer.infer is None:
                raise UsageError("--recalibrate needs a training file `rillet trainable` wrote (its infer signature)")
            arrays = load_arrays(args.data, trainer.names)
            if arrays is None:
                raise UsageError("--recalibrate needs --data as arrays (an .npz)")
            import numpy as np

            calibration = {n: np.asarray(arrays[n])[:RECALIBRATION_SAMPLES] for n in trainer.infer_inputs}
        trainer.interpreter.export_model(args.output, calibration=calibration)
        how = ", quantized again over --data" if calibration is not None else ""
        print(f"wrote {args.output}: the infer signature with the trained weights{how}")
    return 0


def _train_on_xla(args: argparse.Namespace) -> int:
    from rillet.targets import distributed

    if args.processes > 1 and not args.coordinator and not os.environ.get(distributed.COORDINATOR):
        settings = {k: v for k, v in vars(args).items() if k != "func"}
        env = dict(os.environ, **{ARGS_VARIABLE: json.dumps({**settings, "processes": 1})})
        # the working directory leaves sys.path first: a checkout's ./rillet would shadow the installed package
        code = ("import sys; sys.path[:] = [p for p in sys.path if p not in ('', '.')]; "
                "from rillet.commands.train import child; sys.exit(child())")
        command = [sys.executable, "-c", code]
        return distributed.launch_local(command, args.processes, env=env)
    distributed.initialize(args.coordinator, args.num_processes, args.process_id)
    import jax

    from rillet.graph import Model, optimizers
    from rillet.targets.fit import fit

    model = _build(args.target)
    if not isinstance(model, Model):
        raise UsageError(f"{args.target} returned {type(model).__name__}, not a rillet.graph Model")
    before = _checkpoint_position(args)
    optimizer = {"sgd": optimizers.SGD, "momentum": optimizers.Momentum, "adam": optimizers.Adam}[args.optimizer]
    history = fit(model, args.data, loss=args.loss, optimizer=optimizer(args.learning_rate), epochs=args.epochs,
                  batch_size=args.batch_size or 32, validation=args.validation, metrics=args.metrics,
                  checkpoint_dir=args.checkpoint_dir, every=args.every, resume=args.resume, seed=args.seed,
                  shuffle=args.shuffle, log_dir=args.log_dir, progress=not args.quiet, precision=args.precision)
    if jax.process_index() != 0:
        return 0
    _report(history, args, before)
    if args.output:
        import rillet as rl

        data = rl.convert(model)
        Path(args.output).write_bytes(data)
        print(f"wrote {args.output} ({len(data):,} bytes)")
    return 0


def child() -> int:
    """One process of `rillet train --processes N`: the parent's arguments, from the environment."""
    args = argparse.Namespace(**json.loads(os.environ[ARGS_VARIABLE]))
    args.func = run
    return run(args)


def _build(spec: str) -> Any:
    from rillet.commands.convert import load_builder

    builder = load_builder(spec)
    try:
        return builder()
    except Exception as e:  # noqa: BLE001 - the user's builder failed: one line naming it
        raise WorkError(f"{spec}: {type(e).__name__}: {e}") from None


def _checkpoint_position(args: argparse.Namespace) -> dict[str, int] | None:
    """The step and epoch of the checkpoint this run resumes from; None when it starts afresh (a checkpoint
    that is not one is left for the trainer to refuse)."""
    from rillet.targets.fit_checkpoint import CheckpointFolder, CheckpointMismatchError

    if not args.checkpoint_dir or not args.resume:
        return None
    try:
        found = CheckpointFolder(args.checkpoint_dir).latest()
    except CheckpointMismatchError:
        return None
    return None if found is None else {k: int(found[0][k]) for k in ("step", "epoch", "batch")}


def _report(history: dict, args: argparse.Namespace, before: dict[str, int] | None) -> None:
    """What the run did: the epochs' last values, and, for a resumed run, where it resumed and how many
    steps it ran (none when the checkpoint had finished every epoch asked for)."""
    epochs = len(next(iter(history.values()), []))
    last = ", ".join(f"{k} {v[-1]:.4g}" for k, v in history.items() if v)
    where = f"; checkpoints in {args.checkpoint_dir}" if args.checkpoint_dir else ""
    if before is not None:
        batch = f", batch {before['batch']}" if before["batch"] else ""
        print(f"resumed from {args.checkpoint_dir} at step {before['step']} (epoch {before['epoch']}{batch})")
        if before["epoch"] >= args.epochs:
            print(f"nothing to train: the checkpoint has finished {before['epoch']} epochs and --epochs is "
                  f"{args.epochs}; ran no step (a larger --epochs trains on, --no-resume starts over)")
            print(f"the checkpoint's last epoch{': ' + last if last else ''}{where}")
            return
    print(f"trained {epochs} epochs{': ' + last if last else ''}{where}")
