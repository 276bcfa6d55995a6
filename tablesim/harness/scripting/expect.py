"""Checking a round's ``expect`` against its JSON result (any subset).

Two forms say more than a value: ``{absent: true}`` (the key must not be
in the result; ``{absent: false}``: it must be, whatever its value) and
``{one_of: [A, B, ...]}`` (the value is any one of them, each compared
as an expectation of its own).
"""

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


ABSENT = "(absent)"


def _special(expected: Any, name: str) -> bool:
    return isinstance(expected, dict) and len(expected) == 1 and name in expected


def mismatches(expected: Any, actual: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """Each (path, expected, actual) where ``actual`` does not hold ``expected``."""
    if _special(expected, "one_of") and isinstance(expected["one_of"], list):
        if any(not mismatches(option, actual, path) for option in expected["one_of"]):
            return []
        return [(path, "one of " + ", ".join(map(str, expected["one_of"])), actual)]
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [(path, expected, actual)]
        out = []
        for key, value in expected.items():
            sub = f"{path}.{key}" if path else str(key)
            present = str(key) in actual
            if _special(value, "absent"):
                if present == bool(value["absent"]):
                    out.append((sub, ABSENT if value["absent"] else "(present)",
                                actual[str(key)] if present else ABSENT))
            elif not present:
                out.append((sub, value, ABSENT))
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
