"""The reference wallet's players file (TOML or YAML): its currencies (each
with its unit, the smallest amount it carries) and its players (id,
currency, opening balance, optional responsible-gaming limits).

```toml
[currencies]
MOP = "0.01"

[[players]]
id = "p1"
currency = "MOP"
balance = "1000.00"
limits = { max_debit = "500", daily_stake = "2000", message = "Your daily limit is reached." }
```
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import yaml

from tablecore.errors import InputError
from tablecore.money import WrittenFloat, is_multiple, read_amount
from tablesim.wallet.protocol import CURRENCY, ID

#: a currency not named under [currencies] carries cents
DEFAULT_UNIT = Decimal("0.01")


@dataclass(frozen=True, slots=True)
class Limits:
    max_debit: Decimal | None = None
    daily_stake: Decimal | None = None
    message: str = "A responsible-gaming limit is reached."  # the operator's text, shown to the player


@dataclass(frozen=True, slots=True)
class Player:
    id: str
    currency: str
    balance: Decimal
    limits: Limits


@dataclass(frozen=True, slots=True)
class Roster:
    units: dict[str, Decimal]
    players: tuple[Player, ...]


def _read(path: Path) -> object:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("no such players file", where=str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the players file: {getattr(exc, 'strerror', None) or exc}",
                         where=str(path)) from None
    try:
        if path.suffix.lower() == ".toml":
            return tomllib.loads(text, parse_float=WrittenFloat)
        if path.suffix.lower() in (".yaml", ".yml"):
            return yaml.safe_load(text)
    except (tomllib.TOMLDecodeError, yaml.YAMLError) as exc:
        raise InputError(f"not valid {path.suffix[1:].upper()}: {str(exc).splitlines()[0]}", where=str(path)) from None
    raise InputError("a players file is .toml, .yaml or .yml", where=str(path))


def _amount(value: object, where: str, *, zero: bool = True) -> Decimal:
    if isinstance(value, bool) or value is None:
        raise InputError(f"{value!r} is not an amount", where=where)
    try:
        amount = read_amount(value)
    except ValueError as exc:
        raise InputError(str(exc), where=where) from None
    if amount < 0 or (amount == 0 and not zero):
        raise InputError(f"{value!r} must be {'zero or ' if zero else ''}positive", where=where)
    return amount


def _units(data: object, where: str) -> dict[str, Decimal]:
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise InputError("expected a table of currency = unit", where=where)
    units = {}
    for code, unit in data.items():
        if not isinstance(code, str) or not CURRENCY.fullmatch(code):
            raise InputError(f"{code!r} is not a currency code (three capitals)", where=where)
        units[code] = _amount(unit, f"{where}.{code}", zero=False)
    return units


def _limits(data: object, where: str) -> Limits:
    if data is None:
        return Limits()
    if not isinstance(data, dict) or set(data) - {"max_debit", "daily_stake", "message"}:
        raise InputError("limits take max_debit, daily_stake and message", where=where)
    message = data.get("message", Limits().message)  # a slotted class keeps no defaults as attributes
    if not isinstance(message, str) or not 0 < len(message) <= 500:
        raise InputError("message: one text of at most 500 characters", where=where)
    return Limits(*(None if data.get(k) is None else _amount(data[k], f"{where}.{k}", zero=False)
                    for k in ("max_debit", "daily_stake")), message)


def _player(data: object, where: str, units: dict[str, Decimal]) -> Player:
    if not isinstance(data, dict):
        raise InputError("expected a table with id, currency and balance", where=where)
    extra = set(data) - {"id", "currency", "balance", "limits"}
    if extra:
        raise InputError(f"{sorted(extra)[0]}: not a field of a player", where=where)
    pid, currency = data.get("id"), data.get("currency")
    if not isinstance(pid, str) or not ID.fullmatch(pid):
        raise InputError(f"id: {pid!r} is not a player id ({ID.pattern})", where=where)
    if not isinstance(currency, str) or not CURRENCY.fullmatch(currency):
        raise InputError(f"currency: {currency!r} is not a currency code (three capitals)", where=where)
    balance = _amount(data.get("balance"), f"{where}.balance")
    unit = units.get(currency, DEFAULT_UNIT)
    if not is_multiple(balance, unit):
        raise InputError(f"{data.get('balance')!r} is not a whole number of {currency}'s unit {unit}",
                         where=f"{where}.balance")
    return Player(pid, currency, balance, _limits(data.get("limits"), f"{where}.limits"))


def load_players(path: str | Path) -> Roster:
    path = Path(path)
    data = _read(path)
    if not isinstance(data, dict) or set(data) - {"currencies", "players"}:
        raise InputError("a players file has [currencies] and [[players]] only", where=str(path))
    units = _units(data.get("currencies"), f"{path}: currencies")
    rows = data.get("players")
    if not isinstance(rows, list) or not rows:
        raise InputError("no [[players]]", where=str(path))
    players = tuple(_player(row, f"{path}: players[{i}]", units) for i, row in enumerate(rows))
    seen: set[str] = set()
    for p in players:
        if p.id in seen:
            raise InputError(f"player {p.id!r} is listed twice", where=str(path))
        seen.add(p.id)
    for p in players:
        units.setdefault(p.currency, DEFAULT_UNIT)
    return Roster(units, players)
