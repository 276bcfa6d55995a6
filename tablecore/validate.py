"""Small helpers that read untrusted mappings (TOML, YAML, JSON) with clear errors.

Each helper names the exact place of a bad value, e.g.
``config/rules/x.toml: pair_plus.flush: expected a number, got 'four'``.
"""

from __future__ import annotations

import difflib
from decimal import Decimal
from typing import Any, Iterable, Mapping

from tablecore.errors import ConfigError, InputError
from tablecore.money import parse_ratio

_MISSING = object()


def nearest(word: object, candidates: Iterable[object], cutoff: float = 0.75) -> str | None:
    """The candidate ``word`` most likely misspells (a typo, a letter too many or too few), or None."""
    close = difflib.get_close_matches(str(word), sorted({str(c) for c in candidates}), n=1, cutoff=cutoff)
    return close[0] if close else None


def _type_name(value: object) -> str:
    return {dict: "a table", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )


class Reader:
    """Reads one mapping; ``where`` is the path of that mapping in its file."""

    def __init__(
        self, data: object, where: str = "", *, file: str | None = None, error: type[InputError] = ConfigError
    ) -> None:
        self.error = error
        self.where = where
        self.file = file
        if not isinstance(data, Mapping):
            raise error(f"expected a table/mapping, got {_type_name(data)}", where=self.locate(where))
        self.data: Mapping[str, Any] = data
        self._seen: set[str] = set()

    def at(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def locate(self, path: str) -> str:
        if self.file:
            return f"{self.file}: {path}" if path else self.file
        return path

    def fail(self, key: str | None, message: str) -> InputError:
        return self.error(message, where=self.locate(self.at(key) if key is not None else self.where))

    def raw(self, key: str, default: object = _MISSING) -> Any:
        self._seen.add(key)
        if key not in self.data:
            if default is _MISSING:
                # a key given misspelt is named for what it is, not only as the key it left missing
                stray = nearest(key, [k for k in self.data if k not in self._seen])
                if stray is not None:
                    raise self.fail(stray, f"unknown key (nearest known key: {key}, which is missing)")
                raise self.fail(key, "missing required key")
            return default
        return self.data[key]

    def has(self, key: str) -> bool:
        return key in self.data

    def str(self, key: str, default: object = _MISSING, *, choices: Iterable[str] | None = None) -> str:
        value = self.raw(key, default)
        if not isinstance(value, str):
            raise self.fail(key, f"expected a string, got {value!r}")
        if choices is not None:
            options = list(choices)
            if value not in options:
                raise self.fail(key, f"{value!r} is not one of {', '.join(options)}")
        return value

    def int(self, key: str, default: object = _MISSING, *, lo: int | None = None, hi: int | None = None) -> int:
        value = self.raw(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(key, f"expected a whole number, got {value!r}")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise self.fail(key, f"{value} is outside {lo}..{hi}")
        return value

    def decimal(self, key: str, default: object = _MISSING) -> Decimal:
        value = self.raw(key, default)
        try:
            return parse_ratio(value, field=self.at(key))
        except InputError as exc:
            raise self.fail(key, exc.message) from None

    def bool(self, key: str, default: object = _MISSING) -> bool:
        value = self.raw(key, default)
        if not isinstance(value, bool):
            raise self.fail(key, f"expected true or false, got {value!r}")
        return value

    def list(self, key: str, default: object = _MISSING) -> list[Any]:
        value = self.raw(key, default)
        if not isinstance(value, list):
            raise self.fail(key, f"expected a list, got {_type_name(value)}")
        return value

    def sub(self, key: str, default: object = _MISSING) -> "Reader":
        value = self.raw(key, default)
        return Reader(value, self.at(key), file=self.file, error=self.error)

    def decimals(self, key: str) -> dict[str, Decimal]:
        """A table of name -> exact ratio (pay tables)."""
        sub = self.sub(key)
        return {name: sub.decimal(name) for name in sub.data}

    def reject_unknown(self) -> None:
        """Refuse keys nobody read: a typo must not become a silent default."""
        unknown = [k for k in self.data if k not in self._seen]
        if unknown:
            known = nearest(unknown[0], self._seen)
            raise self.fail(unknown[0], "unknown key" + (f" (nearest known key: {known})" if known else ""))
