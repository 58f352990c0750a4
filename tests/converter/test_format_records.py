"""The format layer's records write their own __init__ (converter/format/model.py says why): each must take
its dataclass fields, in order, with their defaults, and set every field, as dataclass's own would."""

from __future__ import annotations

import dataclasses

import pytest

from rillet.converter.format.codec import RECORD_CLASSES

RECORDS = sorted(RECORD_CLASSES.values(), key=lambda cls: cls.__name__)


@pytest.mark.parametrize("cls", RECORDS, ids=lambda cls: cls.__name__)
def test_init_takes_the_fields_in_order_with_their_defaults(cls):
    import inspect

    fields = dataclasses.fields(cls)
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    assert [p.name for p in params] == [f.name for f in fields]
    for p, f in zip(params, fields):
        # A default_factory field takes None for "a fresh one".
        expected = None if f.default is dataclasses.MISSING else f.default
        assert p.kind is p.POSITIONAL_OR_KEYWORD and p.default == expected, f"{cls.__name__}.{f.name}"


@pytest.mark.parametrize("cls", RECORDS, ids=lambda cls: cls.__name__)
def test_init_sets_every_field_and_replace_keeps_the_rest(cls):
    fields = dataclasses.fields(cls)
    fresh = cls()
    for f in fields:
        default = f.default_factory() if f.default is dataclasses.MISSING else f.default
        assert getattr(fresh, f.name) == default, f"{cls.__name__}.{f.name}"
    # Distinct values per field, by position and by name: a swapped assignment shows.
    values = [object() for _ in fields]
    for made in (cls(*values), cls(**{f.name: v for f, v in zip(fields, values)})):
        assert [getattr(made, f.name) for f in fields] == values
        changed = dataclasses.replace(made, **{fields[0].name: "new"})
        assert [getattr(changed, f.name) for f in fields] == ["new", *values[1:]]
    if any(f.default is dataclasses.MISSING for f in fields):  # each record gets its own fresh list
        a, b = cls(), cls()
        fresh_each = [f.name for f in fields if f.default is dataclasses.MISSING]
        assert all(getattr(a, name) is not getattr(b, name) for name in fresh_each)
