"""The API reference cannot rot: every public name that tools/build_docs.py renders has a docstring (the same
check `build_docs.py --check` runs in CI), the check itself catches what it should, and the reference builds
with no pdoc warning."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("pdoc", reason="the API reference needs pdoc: pip install \".[docs]\"")

ROOT = Path(__file__).resolve().parents[2]
BUILD_DOCS = ROOT / "tools" / "build_docs.py"
pytestmark = pytest.mark.skipif(not BUILD_DOCS.is_file(), reason="needs rillet's checkout (tools/build_docs.py)")


def build_docs():
    spec = importlib.util.spec_from_file_location("build_docs", BUILD_DOCS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def reference_modules(docs) -> list[str]:
    return docs.reference_modules(importlib.util.find_spec("jax") is not None)


def test_every_public_name_in_the_reference_has_a_docstring():
    docs = build_docs()
    missing = docs.undocumented(docs.load_modules(reference_modules(docs)))
    assert missing == [], "public names without a docstring:\n" + "\n".join(missing)


def test_the_interpreters_litert_methods_say_what_they_raise():
    from rillet.interpreter import Interpreter

    for name in ("allocate_tensors", "resize_tensor_input", "set_tensor", "get_signature_runner"):
        doc = getattr(Interpreter, name).__doc__ or ""
        assert "Raises:" in doc, f"Interpreter.{name} does not say what it raises"
    assert "Args:" in Interpreter.__doc__ and "Raises:" in Interpreter.__doc__


def test_the_check_finds_each_kind_of_undocumented_name(tmp_path, monkeypatch):
    """A module with one documented and one undocumented name of each kind the rule covers."""
    (tmp_path / "rillet_docs_probe.py").write_text(textwrap.dedent('''
        """A module made by the test."""

        LIMIT = 3
        """Documented constant."""
        BARE = 4


        def documented(x: int) -> int:
            """Documented function."""
            return x


        def bare(x: int) -> int:
            return x


        class Base:
            """Documented class."""

            def method(self) -> None:
                """Documented method."""

            def bare_method(self) -> None:
                pass

            @property
            def bare_property(self) -> int:
                return 1


        class Child(Base):
            def method(self) -> None:
                pass
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    docs = build_docs()
    try:
        missing = docs.undocumented(docs.load_modules(["rillet_docs_probe"]))
    finally:
        sys.modules.pop("rillet_docs_probe", None)
    assert missing == ["rillet_docs_probe.BARE (variable)", "rillet_docs_probe.Base.bare_method (function)",
                       "rillet_docs_probe.Base.bare_property (variable)", "rillet_docs_probe.Child (class)",
                       "rillet_docs_probe.bare (function)"]


def test_the_reference_builds_without_warnings(tmp_path):
    docs = build_docs()
    names = ["rillet", "rillet.interpreter", "rillet.runtime", "rillet.converter"]
    _, problems = docs.build(tmp_path / "api", names)
    assert problems == []
    page = (tmp_path / "api" / "rillet" / "interpreter.html").read_text()
    assert "get_signature_runner" in page and "Raises" in page
    assert (tmp_path / "api" / "index.html").is_file() and (tmp_path / "api" / "search.js").is_file()
    assert "convert" in (tmp_path / "api" / "rillet.html").read_text()  # the facade's lazy names are there
