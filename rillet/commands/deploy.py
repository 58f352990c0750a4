"""`rillet deploy --target rpi4 model.tflite -o bundle/ [--train]`: a folder and a .tar.gz with what the device
needs to run (and train) the model offline: the target's prebuilt wheel, the model, run.py, install.sh, a
README and a systemd unit (rillet.targets.bundle)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rillet.targets.bundle import BundleError, make_bundle
from rillet.targets.devices import DEVICES, device


def register(subparsers: argparse._SubParsersAction) -> None:
    targets = ", ".join(f"{d.name} ({d.description})" for d in DEVICES.values())
    p = subparsers.add_parser(
        "deploy", help="bundle a model with the target's prebuilt wheel, a run script and an installer",
        description=f"Targets: {targets}; host (this machine). The wheels come from tools/build_wheels.py.")
    p.add_argument("model", type=Path, help="path to a .tflite file")
    p.add_argument("--target", required=True, help="rpi0, rpi3-32, rpi4-32, rpi3, rpi4, rpi5 or host")
    p.add_argument("-o", "--out", type=Path, required=True, help="the bundle folder: new, empty, or an earlier bundle (replaced); BUNDLE.tar.gz beside it")
    p.add_argument("--wheels", type=Path, default=Path("dist"), help="where the wheels are (default: dist/)")
    p.add_argument("--c", action="store_true", dest="c_api",
                   help="a bundle for an app in C, no Python on the device: librillet.so and .a, rillet.h, the model "
                        "and classify.c with a Makefile (rillet.targets.c_bundle)")
    p.add_argument("--train", action="store_true", help="include train.py (the model needs a `train` signature)")
    p.add_argument("--labels", type=Path, help="a text file of class names, one per line")
    p.add_argument("--input-range", type=float, nargs=2, metavar=("LOW", "HIGH"),
                   help="what an image's pixels 0..255 map to before they are fed (default: the range an int8 "
                        "input's quantization covers, e.g. -1 1; 0 1 for a float input)")
    p.set_defaults(func=deploy)


def deploy(args: argparse.Namespace) -> int:
    try:
        target = device(args.target)
    except ValueError as e:
        print(f"rillet deploy: {e}", file=sys.stderr)
        return 2
    if args.labels is not None and not args.labels.is_file():
        print(f"rillet deploy: {args.labels}: no such labels file", file=sys.stderr)
        return 2
    if args.input_range and not args.input_range[0] < args.input_range[1]:
        print(f"rillet deploy: --input-range {args.input_range[0]:g} {args.input_range[1]:g}: LOW must be below HIGH",
              file=sys.stderr)
        return 2
    if args.c_api:
        return deploy_c(args, target)
    try:
        bundle = make_bundle(args.model, target, args.out, args.wheels, train=args.train, labels=args.labels,
                             input_range=tuple(args.input_range) if args.input_range else None)
    except BundleError as e:
        print(f"rillet deploy: {e}", file=sys.stderr)
        return e.exit_code
    except (ValueError, RuntimeError) as e:  # the runtime refused the model (unsupported op, corrupt file)
        print(f"rillet deploy: {args.model}: {str(e).splitlines()[0]}", file=sys.stderr)
        return 1
    except OSError as e:  # a bundle file could not be written
        print(f"rillet deploy: cannot write {e.filename or args.out}: {e.strerror or e}", file=sys.stderr)
        return 1
    print(f"{bundle.folder}/ for {target.name} ({target.description}): {', '.join(bundle.files)}")
    low, high = bundle.input_range
    print(f"image pixels 0..255 map to [{low:g}, {high:g}] ({bundle.input_range_source}; --input-range LOW HIGH "
          "to change)")
    print(f"{bundle.archive}: {bundle.archive.stat().st_size / 1024:.0f} KiB; on the device: ./install.sh && "
          "python3 run.py image.npy")
    return 0


def deploy_c(args: argparse.Namespace, target) -> int:
    """`--c`: the C bundle; the Python bundle's options do not apply to it."""
    from rillet.targets.c_bundle import make_c_bundle

    unused = [flag for flag, given in (("--train", args.train), ("--labels", args.labels),
                                       ("--input-range", args.input_range)) if given]
    if unused:
        print(f"rillet deploy: {', '.join(unused)}: for the Python bundle; --c makes a C one (leave them out)",
              file=sys.stderr)
        return 2
    try:
        bundle = make_c_bundle(args.model, target, args.out, args.wheels)
    except BundleError as e:
        print(f"rillet deploy: {e}", file=sys.stderr)
        return e.exit_code
    except (ValueError, RuntimeError) as e:
        print(f"rillet deploy: {args.model}: {str(e).splitlines()[0]}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"rillet deploy: cannot write {e.filename or args.out}: {e.strerror or e}", file=sys.stderr)
        return 1
    print(f"{bundle.folder}/ for {target.name} ({target.description}), in C: {', '.join(bundle.files)}")
    print(f"{bundle.archive}: {bundle.archive.stat().st_size / 1024:.0f} KiB; on the device: make && "
          f"./classify {args.model.name} input.bin")
    return 0
