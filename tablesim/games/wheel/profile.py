"""The Wheel of Fortune rule profile (Despacho 42/2003), validated on load.

A profile names the wheel's symbols, how many segments each has (Art. 1(2)),
what each pays (Art. 6), the minimum full turns of a valid spin (Art. 4(3))
and the default layout of the segments. Every number is data: a casino edits
the TOML, not the code. Loading checks that the pieces agree with each other,
and names the file and key of anything wrong.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from tablecore.money import parse_amount
from tablecore.validate import Reader
from tablesim.engine.limits import Limit, Limits
from tablesim.games.wheel.spec import SPEC
from tablesim.profiles import check_builtin_name, load_rule_profile_data, profile_header, sane_pay


@dataclass(frozen=True)
class Symbol:
    name: str
    segments: int  # how many segments of the wheel carry it (Art. 1(2))
    pays: Decimal  # a win pays stake x pays (Art. 6)


@dataclass(frozen=True)
class WheelProfile:
    name: str
    description: str
    segments: int
    min_turns: int
    symbols: tuple[Symbol, ...]  # in the profile's order
    layout: tuple[str, ...]  # symbol at each segment index, 0.. clockwise from the zero mark
    source: str = ""

    @property
    def spots(self) -> tuple[str, ...]:
        """The names players bet on (the bet names of the bet book)."""
        return tuple(s.name for s in self.symbols)

    def symbol(self, name: str) -> Symbol:
        for s in self.symbols:
            if s.name == name:
                return s
        raise KeyError(name)

    def pays(self, name: str) -> Decimal:
        return self.symbol(name).pays


def check_layout(reader: Reader, key: str, symbols: tuple[Symbol, ...], segments: int) -> tuple[str, ...]:
    """Read ``reader[key]`` as a wheel layout and check it against the symbols.

    Exactly ``segments`` entries; every entry a known symbol; each symbol on
    exactly as many segments as its ``segments`` count (Art. 1(2)).
    """
    raw = reader.list(key)
    names = {s.name for s in symbols}
    known = ", ".join(s.name for s in symbols)
    layout: list[str] = []
    for i, value in enumerate(raw):
        name = _symbol_name(value)
        if name is None or name not in names:
            raise reader.fail(f"{key}[{i}]", f"{value!r} is not a symbol of the wheel (symbols: {known})")
        layout.append(name)
    if len(layout) != segments:
        raise reader.fail(
            key, f"has {len(layout)} segment(s); the wheel has exactly {segments} (Art. 1(2))"
        )
    counts = Counter(layout)
    for s in symbols:
        if counts[s.name] != s.segments:
            raise reader.fail(
                key,
                f"symbol {s.name!r} is on {counts[s.name]} segment(s); "
                f"it must be on exactly {s.segments} (Art. 1(2))",
            )
    return tuple(layout)


def _symbol_name(value: Any) -> str | None:
    """Symbols are strings; a bare whole number (``5`` in YAML) means ``"5"``."""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def parse_profile(data: dict, source: str) -> WheelProfile:
    r = Reader(data, file=source)
    name, description = profile_header(r)
    segments = r.int("segments", lo=2, hi=1000)
    min_turns = r.int("min_turns", lo=1, hi=100)
    table = r.sub("symbols")
    if not table.data:
        raise r.fail("symbols", "no symbols: a wheel needs at least one")
    symbols = []
    for sym in table.data:
        s = table.sub(sym)
        count = s.int("segments", lo=1, hi=segments)
        pays = sane_pay(s, "pays")
        if pays <= 0:
            raise s.fail("pays", "a winning bet must pay something: pays must be positive")
        s.reject_unknown()
        symbols.append(Symbol(str(sym), count, pays))
    total = sum(s.segments for s in symbols)
    if total != segments:
        counts = "+".join(str(s.segments) for s in symbols)
        raise r.fail("symbols", f"the symbols' segments add up to {counts} = {total}, not the wheel's {segments} (Art. 1(2))")
    layout = check_layout(r, "layout", tuple(symbols), segments)
    r.reject_unknown()
    return WheelProfile(
        name=name,
        description=description,
        segments=segments,
        min_turns=min_turns,
        symbols=tuple(symbols),
        layout=layout,
        source=source,
    )


def load_profile(name: str | None = None) -> WheelProfile:
    data, source = load_rule_profile_data(SPEC.name, name, SPEC.default_profile)
    profile = parse_profile(data, source)
    check_builtin_name(SPEC.name, profile, parse_profile, data)
    return profile


# --- Table settings of a Wheel of Fortune table (not rules: how it is run).

DEFAULT_SPIN_SECONDS = 60.0


def default_limits(spots: tuple[str, ...]) -> Limits:
    return Limits({s: Limit(parse_amount(1), parse_amount(10000)) for s in spots})


@dataclass(frozen=True)
class WheelSettings:
    layout: tuple[str, ...] | None = None  # None: the profile's default layout
    limits: Limits = field(default_factory=Limits)
    spin_seconds: float = DEFAULT_SPIN_SECONDS  # sent to the sensor with ARM

    @staticmethod
    def for_profile(profile: WheelProfile, **kwargs) -> "WheelSettings":
        kwargs.setdefault("limits", default_limits(profile.spots))
        return WheelSettings(**kwargs)


def read_layout_override(reader: Reader, profile: WheelProfile, key: str = "layout") -> tuple[str, ...] | None:
    """A table's own wheel layout (``table: {layout: [...]}``), or None."""
    if not reader.has(key):
        return None
    return check_layout(reader, key, profile.symbols, profile.segments)
