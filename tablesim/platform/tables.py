"""The tables a platform offers: each table's currency, betting unit, what a
bet's position is, and the largest stake it takes, from the operator's
tables file (TOML)::

    [tables.WHEEL-01]
    currency = "MOP"
    unit = "1"              # the table's betting unit: a stake is a whole multiple of it
    position = "player"     # a bet's position is its player ("box": the player names a box)
    max = "10000"           # optional: the largest stake (the table's own limits still apply)
    game = "wheel"          # optional: its game, a registered one (default: from the id's prefix, the game's ``id_prefix``)
    bet_seconds = 15        # optional: the table's bet timer, shown to the players counting down
    max_bets = 500          # optional: the most bets one player may place in one round (default 500)

A table not in the file is not offered: a bet on it is refused before any debit.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from tablecore.errors import InputError
from tablecore.money import read_amount
from tablesim.games import registry
from tablesim.studio.wire import check_token

POSITIONS = ("player", "box")
#: a stake above this is refused whatever the file says (12 digits before the point, as the wallet)
HUGE = Decimal("999999999999")


@dataclass(frozen=True, slots=True)
class Offer:
    table: str
    currency: str
    unit: Decimal
    position: str
    max: Decimal
    game: str | None = None
    bet_seconds: int | None = None
    max_bets: int = 500  # a player's bets in one round (credited in parts of the wallet's limit)


def _amount(value: object, where: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InputError(f"{value!r} is not an amount (a decimal string, e.g. \"0.01\")", where=where)
    try:
        amount = read_amount(str(value))
    except ValueError as exc:
        raise InputError(str(exc), where=where) from None
    if amount <= 0:
        raise InputError(f"{value!r} must be positive", where=where)
    return amount


def _offer(table: str, entry: object, where: str) -> Offer:
    try:
        check_token(table, "table id")
    except InputError as exc:
        raise InputError(exc.message, where=where) from None
    if not isinstance(entry, dict):
        raise InputError("expected a table of currency, unit, position", where=where)
    unknown = sorted(set(entry) - {"currency", "unit", "position", "max", "game", "bet_seconds", "max_bets"})
    if unknown:
        raise InputError(f"{unknown[0]}: not a field of a table (currency, unit, position, max, game, "
                         "bet_seconds, max_bets)", where=where)
    currency = entry.get("currency")
    if not isinstance(currency, str) or len(currency) != 3 or not currency.isascii() or not currency.isupper():
        raise InputError(f"currency: {currency!r} is not a currency code (three capitals, e.g. MOP)", where=where)
    if "unit" not in entry:
        raise InputError("unit: missing (the table's betting unit)", where=where)
    unit = _amount(entry["unit"], f"{where}.unit")
    position = entry.get("position", "box")
    if position not in POSITIONS:
        raise InputError(f"position: {position!r} is not one of {', '.join(POSITIONS)}", where=where)
    top = _amount(entry["max"], f"{where}.max") if "max" in entry else HUGE
    game, seconds = entry.get("game"), entry.get("bet_seconds")
    if game is not None and game not in registry.names():
        raise InputError(f"game: {game!r} is not one of {', '.join(registry.names())}", where=where)
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, int) or not 1 <= seconds <= 600):
        raise InputError(f"bet_seconds: {seconds!r} is not a whole number of seconds from 1 to 600", where=where)
    most = entry.get("max_bets", 500)
    if isinstance(most, bool) or not isinstance(most, int) or not 1 <= most <= 100_000:
        raise InputError(f"max_bets: {most!r} is not a whole number of bets from 1 to 100000", where=where)
    return Offer(table, currency, unit, position, min(top, HUGE), game, seconds, most)


def load_tables(path: str | Path) -> dict[str, Offer]:
    path = Path(path)
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError("no such tables file", where=str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the tables file: {getattr(exc, 'strerror', None) or exc}",
                         where=str(path)) from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML: {exc}", where=str(path)) from None
    tables = doc.get("tables")
    if not isinstance(tables, dict) or not tables or set(doc) - {"tables"}:
        raise InputError("a tables file holds [tables.<ID>] entries only, at least one", where=str(path))
    return {t: _offer(t, e, f"{path}: tables.{t}") for t, e in tables.items()}


def game_of(offer: Offer) -> str | None:
    """The offer's game: as the tables file names it, else from the id's prefix
    (a registered game's ``id_prefix``), else None."""
    if offer.game:
        return offer.game
    for game in registry.names():
        if offer.table.upper().startswith(registry.spec(game).id_prefix + "-"):
            return game
    return None
