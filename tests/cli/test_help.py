"""Every `--help` a user meets says what the command does in whole sentences: each `rillet` subcommand has a
description paragraph, and no paragraph of a description (the subcommands', tools/build_wheels.py's, a deploy
bundle's run.py and train.py) stops mid-sentence, as they did when they showed only a docstring's first line."""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rillet.cli import COMMAND_MODULES, build_parser

ROOT = Path(__file__).resolve().parents[2]
TARGETS = Path(__import__("rillet.targets", fromlist=["_"]).__file__).parent
# A sentence ends in . ! or ?, maybe inside a closing quote, bracket or backtick.
SENTENCE_END = re.compile(r"[.!?][\"')`\]]*$")


def unfinished_paragraphs(text: str) -> list[str]:
    """The prose paragraphs of `text` whose last line does not end a sentence. An indented paragraph (examples,
    a usage line) is not prose; a paragraph ending in ':' introduces the indented one after it."""
    paragraphs = [p for p in re.split(r"\n\s*\n", text.strip("\n")) if p.strip()]
    bad = []
    for i, paragraph in enumerate(paragraphs):
        if paragraph.startswith((" ", "\t")):
            continue
        last = paragraph.rstrip().splitlines()[-1].rstrip()
        introduces = last.endswith(":") and i + 1 < len(paragraphs) and paragraphs[i + 1].startswith(" ")
        if not SENTENCE_END.search(last) and not introduces:
            bad.append(paragraph)
    return bad


def help_description(help_text: str) -> str:
    """The text between a --help's usage block and its first argument section."""
    blocks = re.split(r"\n\s*\n", help_text.strip("\n"))
    prose = []
    for block in blocks[1:]:  # blocks[0] is the usage
        if re.match(r"(options|positional arguments|optional arguments):", block):
            break
        prose.append(block)
    return "\n\n".join(prose)


def subcommand_parsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


def test_unfinished_paragraphs_catches_a_description_cut_at_a_line_end():
    assert unfinished_paragraphs("Builds rillet's wheels: one per architecture, each carrying a prebuilt")
    assert not unfinished_paragraphs("Runs a model.\n\n    rillet run m.tflite\n\nIt prints (its outputs).")
    assert unfinished_paragraphs("Examples:\n\nmore prose without an end")


@pytest.mark.parametrize("name", COMMAND_MODULES)
def test_every_subcommand_has_a_description_in_whole_sentences(name):
    sub = subcommand_parsers()[name]
    assert sub.description and len(sub.description.split()) >= 8, f"rillet {name} --help has no description"
    assert not unfinished_paragraphs(sub.description), f"rillet {name}: description stops mid-sentence"
    shown = help_description(sub.format_help())
    assert shown.split()[:3] == sub.description.split()[:3]
    assert not unfinished_paragraphs(shown), f"rillet {name} --help stops mid-sentence:\n{shown}"
    if sub.epilog:
        assert not unfinished_paragraphs(sub.epilog), f"rillet {name}: epilog stops mid-sentence"


def test_rillet_help_lists_every_subcommand_with_its_one_line_help():
    text = build_parser().format_help()
    for name in subcommand_parsers():
        assert re.search(rf"^\s+{name}\s+\S", text, re.MULTILINE), f"rillet --help does not list {name}"


def run_help(command: list[str], cwd: Path) -> str:
    proc = subprocess.run([*command, "--help"], capture_output=True, text=True, cwd=cwd, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.skipif(not (ROOT / "tools" / "build_wheels.py").is_file(), reason="needs rillet's checkout (tools/)")
def test_build_wheels_help_is_whole_sentences(tmp_path):
    shown = help_description(run_help([sys.executable, str(ROOT / "tools" / "build_wheels.py")], tmp_path))
    assert "prebuilt librillet" in shown.replace("\n", " ")
    assert not unfinished_paragraphs(shown), shown


@pytest.mark.parametrize("script", ["bundle_run.py", "bundle_train.py"])
def test_a_bundles_scripts_help_is_whole_sentences(tmp_path, script):
    """run.py and train.py as a bundle holds them (beside bundle.json), run from the bundle's folder."""
    shutil.copy2(TARGETS / script, tmp_path / script)
    (tmp_path / "bundle.json").write_text(json.dumps({"model": "m.tflite", "signature": "infer",
                                                      "input_range": [0, 1], "labels": None, "train": True}))
    shown = help_description(run_help([sys.executable, script], tmp_path))
    assert len(shown.split()) > 30
    assert not unfinished_paragraphs(shown), shown
