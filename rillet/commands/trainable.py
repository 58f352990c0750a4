"""`rillet trainable MODEL.tflite -o TRAIN.tflite [--train-last N | --train NAME ...] [--loss ...]`: a training
file of a float or quantized model (`infer`, `train`, `save`, `restore`), its last layers trainable, the rest
copied as it is (rillet.converter.trainable)."""

from __future__ import annotations

import argparse

from .common import UsageError, existing_file, output_file, write_file


def register(subparsers: argparse._SubParsersAction) -> None:
    from rillet.converter.trainable import LOSSES, OPTIMIZERS

    p = subparsers.add_parser(
        "trainable", help="make a training file (infer/train/save/restore) of a .tflite",
        description=("Writes a training file of any float or quantized .tflite: `infer`, `train`, `save` and "
                     "`restore` signatures that run in rillet and in LiteRT, with the model's last layers (or "
                     "the layers --train names) trainable and the rest copied as it is. The trained layers of "
                     "an int8 model train in float, their weights quantized again for infer. --list shows the "
                     "layers that can be trained; `rillet train TRAIN.tflite --data d.npz` then trains the "
                     "file on the device runtime."))
    p.add_argument("model", help="the .tflite file (float, or int8: the trained layers train in float)")
    p.add_argument("-o", "--output-file", "--out", dest="out", metavar="TRAIN.tflite",
                   help="the training file to write (required but with --list)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--train-last", type=int, metavar="N",
                       help="train the last N layers that carry weights on the way to the loss's output (default 1)")
    which.add_argument("--train", nargs="+", metavar="NAME", help="train these layers (their output tensors' names)")
    p.add_argument("--loss", choices=LOSSES, default="softmax_cross_entropy",
                   help="softmax_cross_entropy (y: class indices), sigmoid_cross_entropy (y: 0/1 targets), mse "
                        "(y: the output's shape), or output (the output is the loss)")
    p.add_argument("--optimizer", choices=OPTIMIZERS, default="sgd")
    p.add_argument("--learning-rate", type=float, default=0.01)
    p.add_argument("--output", metavar="NAME", help="the model output the loss reads (when it has several), "
                   "or a tensor inside the model (the ops past it, off its way, stay as they are, "
                   "untrained)")
    p.add_argument("--classes", type=int, metavar="N",
                   help="widen the classifier's head to N classes (new ones start at zero weights) to teach the "
                        "model classes it was shipped without (a K-class model's new classes are labels K..N-1)")
    p.add_argument("--carry-state", action="store_true",
                   help="the trained tail's LSTMs carry their state from step to step and invoke to invoke, as the "
                        "model's do (a streaming model fine-tuned on its stream); default: each from zero")
    p.add_argument("--list", action="store_true", help="list the weighted layers (the names --train takes) and stop")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rillet.converter.format import load
    from rillet.converter.trainable import signature_subgraph, trainable, weighted_layers

    existing_file(args.model, "model")
    if args.learning_rate <= 0:
        raise UsageError(f"--learning-rate {args.learning_rate:g}: must be above 0")
    if args.train_last is not None and args.train_last < 1:
        raise UsageError(f"--train-last {args.train_last}: must be at least 1")
    if args.classes is not None and args.classes < 2:
        raise UsageError(f"--classes {args.classes}: must be at least 2")
    if args.list:
        model = load(args.model)
        sg = model.subgraphs[signature_subgraph(model)]
        for k, layer in enumerate(reversed(weighted_layers(model, signature_subgraph(model))), start=1):
            caller = model.op_name(sg.operators[layer.op])
            where = f"  (inside {caller} operator {layer.op})" if caller != layer.kind else ""
            print(f"{k:4d}  {layer.kind:<20} {layer.name}{where}")
        return 0
    if args.out is None:
        raise UsageError("-o TRAIN.tflite is required (the training file to write)")
    output_file(args.out, "training file")
    content = trainable(args.model, train_last=args.train_last, train=args.train, loss=args.loss,
                        optimizer=args.optimizer, learning_rate=args.learning_rate, output=args.output,
                        classes=args.classes, carry_state=args.carry_state)
    write_file(args.out, content, "training file")
    print(f"wrote {args.out} ({len(content)} bytes): signatures infer, train (inputs + y), save, restore")
    return 0
