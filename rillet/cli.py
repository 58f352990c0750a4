"""The `rillet` command line: one subcommand per module in rillet/commands/.

Every command fails the same way: one line on stderr, `rillet COMMAND: what went wrong, naming the file`,
and the exit status rillet/commands/common.py defines (0 success, 1 the work failed, 2 bad usage)."""

from __future__ import annotations

import argparse
import importlib
import sys

# Each module has `register(subparsers)`, which adds its subcommand and sets `func(args) -> int`.
COMMAND_MODULES = ["demo", "inspect", "convert", "run", "bench", "quantize", "train", "trainable", "deploy"]

EPILOG = ("exit status: 0 success; 1 the work failed (the model or the data was refused, an output could not "
          "be written); 2 bad usage (an unknown option or a bad value, a file named on the command line that "
          "does not exist)")


def build_parser() -> argparse.ArgumentParser:
    from rillet import __version__

    parser = argparse.ArgumentParser(prog="rillet", description="A small TensorFlow for the edge.", epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"rillet {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(f"rillet.commands.{name}").register(subparsers)
    return parser


def one_line(error: BaseException) -> str:
    """The error as one line: an OSError as "FILE: reason", other messages with their lines joined."""
    if isinstance(error, OSError) and error.filename is not None and error.strerror:
        return f"{error.filename}: {error.strerror}"
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return "; ".join(lines) or type(error).__name__


def main(argv: list[str] | None = None) -> int:
    from rillet.commands.common import UsageError, WorkError
    from rillet.converter.format import ModelError

    try:
        args = build_parser().parse_args(argv)
    except SystemExit as e:  # argparse: --help and --version (0), bad usage (2), already printed
        return e.code if isinstance(e.code, int) else 2
    try:
        return args.func(args) or 0
    except BrokenPipeError:  # `rillet inspect big.tflite | head` is not an error
        return 0
    except KeyboardInterrupt:
        return 130
    except UsageError as e:
        print(f"rillet {args.command}: {one_line(e)}", file=sys.stderr)
        return 2
    # The work failed: a refused model (ModelError, the runtime's errors, both ValueError or RuntimeError),
    # refused data, a file that could not be read or written, memory.
    except (WorkError, ModelError, ValueError, RuntimeError, OSError, MemoryError) as e:
        print(f"rillet {args.command}: {one_line(e)}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
