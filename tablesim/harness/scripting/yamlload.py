"""YAML loading that keeps money exact: YAML floats become Decimals.

Only plain spellings become numbers: ``12`` an int, ``12.5`` a Decimal.
Everything else YAML 1.1 would read as a number (``1_000``, ``1e3``,
``0x10``, ``1:30``, ``.inf``, ``.nan``, a thousand-digit int) stays the
text it was written as, so the field that reads it refuses it with one line
naming the value, before any arithmetic.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import re

import yaml

from tablesim.core.errors import InputError


class _ExactLoader(yaml.SafeLoader):
    pass


_PLAIN_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]{0,29})", re.ASCII)
_PLAIN_DECIMAL = re.compile(r"[-+]?(?:[0-9]{1,30}\.[0-9]{0,30}|\.[0-9]{1,30})", re.ASCII)


def _int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int | str:
    text = loader.construct_scalar(node)
    return int(text) if _PLAIN_INT.fullmatch(text) else text


def _decimal(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Decimal | str:
    text = loader.construct_scalar(node)
    return Decimal(text) if _PLAIN_DECIMAL.fullmatch(text) else text


_ExactLoader.add_constructor("tag:yaml.org,2002:int", _int)
_ExactLoader.add_constructor("tag:yaml.org,2002:float", _decimal)


def load_yaml(path: str | Path) -> Any:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("file not found", where=str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read: {exc}", where=str(path)) from None
    try:
        return yaml.load(text, Loader=_ExactLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise InputError(f"{line}not valid YAML: {problem}", where=str(path)) from None
