"""The `rillet` command line: one subcommand per module in rillet/commands/."""

from __future__ import annotations

import argparse
import importlib
import sys

# Each module has `register(subparsers)`, which adds its subcommand and sets `func(args) -> int`.
COMMAND_MODULES = ["demo", "inspect", "convert", "run", "bench", "quantize", "train"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rillet", description="A small TensorFlow for the edge.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(f"rillet.commands.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    from rillet.converter.format import ModelError

    args = build_parser().parse_args(argv)
    try:
        return args.func(args) or 0
    except ModelError as e:
        print(f"rillet {args.command}: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `rillet inspect big.tflite | head` is not an error
        return 0


if __name__ == "__main__":
    sys.exit(main())
