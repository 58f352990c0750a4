"""`rillet deploy --target rpi4 model.tflite -o bundle/ [--train] [--wheel PATH]`: a folder and a .tar.gz with
what the device needs to run (and train) the model offline: the target's wheel, the model, run.py, install.sh,
a README and a systemd unit (rillet.targets.bundle).

The target's wheel is the one `--wheel` names, else the one in `--wheels DIR` (default: dist/, where
tools/build_wheels.py writes them in a checkout), else deploy builds it from the installed rillet's own C
sources with Debian's cross compiler (rillet.targets.wheel), printing its progress, and keeps it in the cache
for the next deploy."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rillet.targets import wheel as wheels
from rillet.targets.bundle import BundleError, find_wheels, make_bundle
from rillet.targets.devices import DEVICES, Device, device

from .common import ParagraphFormatter

DEFAULT_WHEELS = Path("dist")
DESCRIPTION = """Writes a folder (and a .tar.gz of it) that installs and runs the model on the target with no
compiler and no network: the target's rillet wheel and the flatbuffers wheel, the model, run.py (and train.py
with --train), install.sh, a README and a systemd unit; with --c, a bundle for an app in C instead (librillet.so
and .a, rillet.h, the model, classify.c and a Makefile). Targets: {targets}; host (this machine).

The rillet wheel is the one --wheel names, else the target's in --wheels DIR (default: dist/, where
tools/build_wheels.py writes them in rillet's checkout), else deploy builds it from the C sources this rillet
was installed with, using Debian's cross compiler for the target (gcc-aarch64-linux-gnu for the 64-bit boards,
gcc-arm-linux-gnueabihf for the 32-bit ones; deploy names the package when it is missing), and keeps it in
~/.cache/rillet/wheels for the next deploy. The flatbuffers wheel is taken from beside the rillet wheel, or
packed from the flatbuffers installed here."""


def register(subparsers: argparse._SubParsersAction) -> None:
    targets = ", ".join(f"{d.name} ({d.description})" for d in DEVICES.values())
    p = subparsers.add_parser(
        "deploy", help="bundle a model with the target's wheel, a run script and an installer",
        description=DESCRIPTION.format(targets=targets), formatter_class=ParagraphFormatter)
    p.add_argument("model", type=Path, help="path to a .tflite file")
    p.add_argument("--target", required=True, help="rpi0, rpi3-32, rpi4-32, rpi3, rpi4, rpi5 or host")
    p.add_argument("-o", "--out", type=Path, required=True, help="the bundle folder: new, empty, or an earlier bundle (replaced); BUNDLE.tar.gz beside it")
    p.add_argument("--wheel", type=Path,
                   help="the target's rillet wheel (rillet-*-py3-none-PLATFORM.whl) to bundle")
    p.add_argument("--wheels", type=Path,
                   help="a folder of prebuilt wheels (default: dist/ when it has the target's, else deploy "
                        "builds it)")
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
        wheels = target_wheels(args, target)
        bundle = make_bundle(args.model, target, args.out, args.wheels or DEFAULT_WHEELS, train=args.train,
                             labels=args.labels, wheels=wheels,
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


def target_wheels(args: argparse.Namespace, target: Device) -> tuple[Path, Path] | None:
    """The rillet and flatbuffers wheels to bundle: --wheel's; None for --wheels DIR (make_bundle looks
    there); dist/'s when it has them; else built from this rillet's C sources (and the installed flatbuffers).
    BundleError (exit 2 for a --wheel that is missing or for another platform) when there is none to use."""
    if args.wheel is not None:
        if not args.wheel.is_file():
            raise BundleError(f"--wheel {args.wheel}: no such file", exit_code=2)
        platform = wheels.wheel_platform_of(args.wheel)
        if platform != target.wheel_platform:
            what = f"for {platform}" if platform else "not a rillet wheel"
            raise BundleError(f"--wheel {args.wheel.name} is {what}: --target {target.name} needs "
                              f"rillet-*-py3-none-{target.wheel_platform}.whl", exit_code=2)
        beside = sorted(args.wheel.resolve().parent.glob("flatbuffers-*-none-any.whl"))
        return args.wheel, (beside[-1] if beside else packed_flatbuffers())
    if args.wheels is not None:
        return None
    try:
        return find_wheels(DEFAULT_WHEELS, target)
    except BundleError:
        pass
    arch = target.architecture
    compiler = arch.compiler()[0] if arch.compiler() else "the host's C compiler"
    out = wheels.cache_dir() / "wheels"
    print(f"rillet deploy: no prebuilt rillet wheel for {target.wheel_platform} (in dist/ or given with "
          f"--wheel): building it from this rillet's C sources with {compiler}", file=sys.stderr, flush=True)
    try:
        built = wheels.build_target_wheel(arch.name, out, progress=wheels.print_progress("rillet deploy"))
    except wheels.WheelError as e:
        raise BundleError(f"{e}; or give a prebuilt wheel with --wheel PATH") from e
    print(f"rillet deploy: built {built} (--wheel {built} reuses it)", file=sys.stderr, flush=True)
    return built, packed_flatbuffers()


def packed_flatbuffers() -> Path:
    """The flatbuffers installed here as a wheel for the bundle (kept in the cache)."""
    out = wheels.cache_dir() / "wheels"
    try:
        return wheels.repack_installed_wheel("flatbuffers", out)
    except wheels.WheelError as e:
        raise BundleError(str(e)) from e

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
        wheels_dir = args.wheels or DEFAULT_WHEELS
        if args.wheels is None and target.name != "host":  # the host's C bundle takes this installation's files
            wheels_dir = target_wheels(args, target)[0].parent  # --wheel's folder, dist/, or the cache it built in
        bundle = make_c_bundle(args.model, target, args.out, wheels_dir)
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
