"""YAML loading that keeps money exact: YAML floats become Decimals."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml

from tablesim.core.errors import InputError


class _ExactLoader(yaml.SafeLoader):
    pass


def _decimal(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Decimal:
    text = loader.construct_scalar(node).replace("_", "")
    # YAML spells infinities and NaN .inf/-.inf/.nan; Decimal reads them as
    # Infinity/NaN, which the amount checks then refuse with a clear message.
    lowered = text.lower()
    if lowered.endswith(".inf"):
        return Decimal("-Infinity" if lowered.startswith("-") else "Infinity")
    if lowered == ".nan":
        return Decimal("NaN")
    return Decimal(text)


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
