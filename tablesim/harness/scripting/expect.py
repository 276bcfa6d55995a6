"""Checking a round's ``expect`` against its JSON result (any subset)."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any


def _as_decimal(value: Any) -> Decimal | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, Decimal)):
        return Decimal(value)
    if isinstance(value, str):
        try:
            return Decimal(value)
        except InvalidOperation:
            return None
    return None


def _same(expected: Any, actual: Any) -> bool:
    if expected is None or actual is None or isinstance(expected, bool) or isinstance(actual, bool):
        return expected == actual
    de, da = _as_decimal(expected), _as_decimal(actual)
    if de is not None and da is not None:
        return de == da
    return str(expected) == str(actual) if isinstance(actual, str) else expected == actual


def mismatches(expected: Any, actual: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """Each (path, expected, actual) where ``actual`` does not hold ``expected``."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [(path, expected, actual)]
        out = []
        for key, value in expected.items():
            sub = f"{path}.{key}" if path else str(key)
            if str(key) not in actual:
                out.append((sub, value, "(absent)"))
            else:
                out.extend(mismatches(value, actual[str(key)], sub))
        return out
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [(path, expected, actual)]
        out = []
        for i, (e, a) in enumerate(zip(expected, actual)):
            out.extend(mismatches(e, a, f"{path}[{i}]"))
        return out
    return [] if _same(expected, actual) else [(path, expected, actual)]


def normalise_keys(value: Any) -> Any:
    """YAML reads ``1:`` as an int key; results use strings."""
    if isinstance(value, dict):
        return {str(k): normalise_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalise_keys(v) for v in value]
    return value
