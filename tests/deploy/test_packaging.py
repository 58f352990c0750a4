"""Every Python package in the checkout is in the wheel: pyproject.toml names each package explicitly (its folders
map onto `rillet.*`), so a new subpackage left out of the list installs nowhere. An editable install hides that
(it imports from the checkout); a user's `pip install .` then fails on import, as `rillet demo` did once when
graph/ops/ was split out of graph/ops.py."""

from __future__ import annotations

from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+; the packaging is the same on every Python

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_folder_is_listed_in_pyproject() -> None:
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(setuptools["packages"])
    found = set()
    for package, folder in setuptools["package-dir"].items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder)
            if "__pycache__" in relative.parts or "build" in relative.parts:
                continue
            found.add(".".join((package, *relative.parts)))
    assert found - listed == set(), "packages missing from pyproject.toml's [tool.setuptools] packages"
    assert listed - found == set(), "pyproject.toml lists packages that have no folder"
