"""Builds librillet (native/) into rillet.native._librillet with cffi; everything else is in pyproject.toml."""

import os
import sys

from setuptools import setup

# cffi runs native/build_ffi.py with paths relative to the project root: run from here, wherever pip starts.
HERE = os.path.dirname(os.path.abspath(__file__))
os.chdir(HERE)
sys.path.insert(0, HERE)

setup(cffi_modules=["native/build_ffi.py:ffibuilder"])
