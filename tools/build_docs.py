"""Builds rillet's API reference from its docstrings with pdoc: HTML pages in docs/api/ (generated, not committed),
one per public module, with a search index.

    python tools/build_docs.py [-o docs/api] [--check]

pdoc (`pip install ".[docs]"`) imports each module and renders what it exports (`__all__` where a module has
one), with Google-style `Args:` / `Raises:` sections. `--check` (what CI runs) fails on any warning pdoc gives
and on any public name without a docstring (`undocumented`, which tests/test_docstrings.py also runs), and
writes nothing unless both are clean. The rillet.targets.xla and rillet.targets.fit pages need JAX (the
`desktop` extra).
"""

from __future__ import annotations

import argparse
import functools
import importlib
import inspect
import shutil
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The public API: the facade, the drop-in interpreter module and the packages README.md shows. A package's own
# page lists what it exports; its internal submodules (the runtime's plan, the quantizer's passes) stay out.
MODULES = [
    "rillet", "rillet.interpreter", "rillet.runtime", "rillet.converter", "rillet.converter.format",
    "rillet.quant", "rillet.graph", "rillet.graph.ops", "rillet.graph.layers", "rillet.graph.losses",
    "rillet.graph.optimizers", "rillet.targets", "rillet.targets.devices", "rillet.targets.bundle",
    "rillet.targets.wheel", "rillet.targets.xla", "rillet.targets.fit",
]
NEEDS_JAX = {"rillet.targets.xla", "rillet.targets.fit"}
# Packages whose public submodules get pages too: rillet.graph.ops re-exports its families' builders
# (activation, conv, movement, ...), which pdoc documents where they are defined.
WITH_SUBMODULES = {"rillet.graph.ops"}


def reference_modules(have_jax: bool = True) -> list[str]:
    """MODULES with the public submodules of WITH_SUBMODULES after their package, without the JAX pages when
    JAX is missing."""
    import pkgutil

    names = []
    for name in MODULES:
        if name in NEEDS_JAX and not have_jax:
            continue
        names.append(name)
        if name in WITH_SUBMODULES:
            package = importlib.import_module(name)
            names += [f"{name}.{m.name}" for m in pkgutil.iter_modules(package.__path__)
                      if not m.name.startswith("_")]
    return names


def load_modules(names: list[str]):
    """pdoc's view of each module, with the facade's lazy names resolved and each re-exported constant given
    the docstring (`#:` comment) it has where it is defined."""
    import pdoc.doc

    for name in names:  # a package that resolves its names on first use (PEP 562) shows pdoc none before
        module = importlib.import_module(name)
        for export in getattr(module, "__all__", ()):
            getattr(module, export)
    modules = {name: pdoc.doc.Module(importlib.import_module(name)) for name in names}
    for module in modules.values():
        _resolve_facade(module)
        _inherit_constant_docstrings(module)
    return modules


def _resolve_facade(module) -> None:
    """`rillet` resolves its names lazily (`__getattr__`), so pdoc sees none: document each as the object it
    stands for."""
    import pdoc.doc

    exports = getattr(module.obj, "_EXPORTS", None)
    if module.modulename != "rillet" or not exports:
        return
    members = {}
    for name, (source, attr) in exports.items():
        obj = getattr(importlib.import_module(source), attr)
        if isinstance(obj, type):
            doc = pdoc.doc.Class(source, attr, obj, (source, attr))
        elif callable(obj):
            doc = pdoc.doc.Function(source, attr, obj, (source, attr))
        else:  # a module (ops, layers, ...): its own page
            doc = pdoc.doc.Variable("rillet", name, taken_from=(source, attr),
                                    docstring=(obj.__doc__ or "").strip().split("\n\n")[0],
                                    annotation=pdoc.doc.empty, default_value=pdoc.doc.empty)
        members[name] = doc
    module.members.update(members)


def _inherit_constant_docstrings(module) -> None:
    """A constant a module re-exports (`from .registry import REGISTRY`) has no docstring in that module's
    source: take the one the module defining it gives it."""
    import pdoc.doc

    for name, member in module.members.items():
        if not isinstance(member, pdoc.doc.Variable) or member.docstring:
            continue
        value = getattr(module.obj, name)
        for sub_name in sorted(sys.modules):
            sub = sys.modules[sub_name]
            if (not sub_name.startswith("rillet.") or sub_name == module.modulename
                    or getattr(sub, name, None) is not value):
                continue
            docstring = pdoc.doc.Module(sub)._var_docstrings.get(name)
            if docstring:
                member.docstring = docstring
                break


def is_descriptor(cls: type, name: str) -> bool:
    """Whether `name` is a property (or another data descriptor) of `cls` or a base, not an instance attribute."""
    for klass in cls.__mro__:
        if name in vars(klass):
            return inspect.isdatadescriptor(vars(klass)[name]) or isinstance(vars(klass)[name], functools.cached_property)
    return False


def undocumented(modules) -> list[str]:
    """Every public name the reference shows without a docstring: the modules themselves, their functions,
    classes and constants, and the classes' methods, properties and class variables (including what a class
    inherits from a private base; a class needs its own). Instance attributes and dataclass fields are left to
    their class's docstring."""
    import pdoc.doc

    missing = {}

    def walk(doc) -> None:
        for member in doc.members.values():
            if member.name.startswith("_") or member.taken_from[0] in ("builtins", "enum", "typing", "abc"):
                continue
            if (isinstance(doc, pdoc.doc.Class) and isinstance(member, pdoc.doc.Variable)
                    and not is_descriptor(doc.obj, member.name) and not member.is_classvar):
                continue  # an instance attribute or dataclass field
            # A class needs its own docstring: inspect (and so pdoc) would show its base class's.
            own = (isinstance(member, pdoc.doc.Class) and not (vars(member.obj).get("__doc__") or "").strip())
            if own or not member.docstring.strip():
                missing.setdefault(member.taken_from, f"{member.fullname} ({member.kind})")
            if isinstance(member, pdoc.doc.Class):
                walk(member)

    for name, module in modules.items():
        if not module.docstring.strip():
            missing[(name, "")] = f"{name} (module)"
        walk(module)
    return sorted(missing.values())


def build(out: Path, names: list[str]) -> tuple[dict, list[str]]:
    """Renders `names` into `out` (replaced); returns pdoc's modules and its warnings."""
    import pdoc.render

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        modules = load_modules(names)
        pdoc.render.configure(docformat="google", show_source=True, search=True,
                              footer_text="rillet: generated by tools/build_docs.py")
        pages = {name: pdoc.render.html_module(module, modules) for name, module in modules.items()}
        index = pdoc.render.html_index(modules)
        search = pdoc.render.search_index(modules)
    problems = [f"{w.filename}:{w.lineno}: {w.message}" for w in caught]
    partial = out.with_name(out.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    for name, html in pages.items():
        path = partial / (name.replace(".", "/") + ".html")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(html, encoding="utf-8")
    (partial / "index.html").write_text(index, encoding="utf-8")
    (partial / "search.js").write_text(search, encoding="utf-8")
    shutil.rmtree(out, ignore_errors=True)
    partial.rename(out)
    return modules, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-o", "--out", type=Path, default=ROOT / "docs" / "api",
                        help="the folder to write (replaced; default: docs/api)")
    parser.add_argument("--check", action="store_true",
                        help="fail on a pdoc warning or a public name without a docstring")
    args = parser.parse_args(argv)
    try:
        import pdoc  # noqa: F401
    except ImportError:
        print("build_docs: pdoc is not installed: pip install \".[docs]\"", file=sys.stderr)
        return 2
    have_jax = importlib.util.find_spec("jax") is not None
    if not have_jax:
        if args.check:
            print("build_docs: --check needs JAX for rillet.targets.xla and .fit: pip install \".[desktop]\"",
                  file=sys.stderr)
            return 2
        print("build_docs: JAX is not installed: leaving out rillet.targets.xla and rillet.targets.fit",
              file=sys.stderr)
    names = reference_modules(have_jax)
    start = time.perf_counter()
    out = args.out.resolve()
    modules, problems = build(out, names)
    missing = undocumented(modules)
    for problem in problems:
        print(f"build_docs: pdoc: {problem}", file=sys.stderr)
    for name in missing:
        print(f"build_docs: no docstring: {name}", file=sys.stderr)
    print(f"{out}/index.html: {len(names)} modules in {time.perf_counter() - start:.1f} s; "
          f"{len(problems)} pdoc warnings, {len(missing)} public names without a docstring")
    return 1 if args.check and (problems or missing) else 0


if __name__ == "__main__":
    sys.exit(main())
