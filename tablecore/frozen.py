"""Frozen dataclasses built at once.

A frozen dataclass's generated ``__init__`` sets each field through
``object.__setattr__``, one call per field: a few microseconds for a record
of ten fields. The hot paths of bet intake build several per bet (the
journal's record, the bus's event, the bet's request and its answer), so
they build them here with every field set in one step: the same object
(equal, hashed and shown the same), for classes with a ``__dict__`` (no
``slots``) whose fields need no ``__post_init__``.
"""

from __future__ import annotations

from typing import Any, TypeVar

T = TypeVar("T")

_new = object.__new__


def built(cls: type[T], fields: dict[str, Any]) -> T:
    """An instance of ``cls`` with ``fields`` (every field, in declaration order)."""
    obj = _new(cls)
    obj.__dict__.update(fields)
    return obj
