"""Parsing helpers shared by the games' script readers (scripted rounds,
spec/scripted-rounds.md): card lists, box bets, device faults."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from typing import NamedTuple

from drivers.mock.faults import FAULT_KINDS, MockFault
from tablecore.cards import DealtCard, parse_dealt
from tablecore.errors import IllegalAction, InputError
from tablecore.money import MAX_FRACTION_DIGITS, fmt, is_multiple
from tablecore.validate import Reader
from tablesim.engine.betbook import player_refusal
from tablesim.engine.limits import Limits

#: A scripted round reproduces rounds of any table, so unless its ``table``
#: names units it takes amounts as written: the finest amount money carries.
FINEST = Decimal(1).scaleb(-MAX_FRACTION_DIGITS)


def script_limits(table: Reader, limits: Limits) -> Limits:
    """The game's default limits with the script's units: ``table: {unit:
    5, payout_unit: 1}`` reproduces a table's betting and payout units;
    without them a script bets and is paid exactly as written. ``limits:
    {ante: {min: 5, max: 500, position_max: 1000}}`` sets a bet's limits as
    a table's ``[limits]`` does (a bet not named keeps the default)."""
    unit = table.decimal("unit", FINEST)
    payout_unit = table.decimal("payout_unit", FINEST)
    for key, value in (("unit", unit), ("payout_unit", payout_unit)):
        if value <= 0:
            raise table.fail(key, f"the {key.replace('_', ' ')} must be more than 0")
    if not is_multiple(unit, payout_unit):
        raise table.fail("unit", f"the betting unit {fmt(unit)} is not a whole number of payout units "
                         f"({fmt(payout_unit)})")
    if table.has("limits"):
        given = table.sub("limits")
        data = {**given.data, "unit": unit, "payout_unit": payout_unit}
        parsed = Limits.parse(Reader(data, table.at("limits"), file=table.file,
                                     error=table.error), tuple(limits.by_bet))
        named = parsed.by_bet if "default" in given.data else {b: parsed.by_bet[b] for b in given.data}
        limits = replace(limits, by_bet={**limits.by_bet, **named})
    return replace(limits, unit=unit, payout_unit=payout_unit)


def parse_card_list(reader: Reader, key: str = "cards") -> list[DealtCard]:
    raw = reader.list(key)
    out = []
    for i, code in enumerate(raw):
        try:
            out.append(parse_dealt(code))
        except InputError as exc:
            raise reader.fail(f"{key}[{i}]", exc.message) from None
    return out


def parse_card_field(reader: Reader, key: str = "card"):
    """An optional card code field; None when absent."""
    code = reader.raw(key, None)
    if code is None:
        return None
    try:
        return parse_dealt(code).card
    except InputError as exc:
        raise reader.fail(key, exc.message) from None


class ScriptBet(NamedTuple):
    """One scripted bet: its box, bet name, amount, player (None: the box's
    own seat) and where it is in the file (for a refusal at play time)."""

    box: str
    bet: str
    amount: object
    player: str | None
    where: str


def parse_box_bets(r: Reader, book, bet_names: tuple[str, ...]) -> list[ScriptBet]:
    """``bets: {box: {bet: amount}}``, each checked against the table's book
    (box exists, bet known, amount valid and within limits) before any play.

    A box's bets may name their player, ``{player: ann, ante: 10}``, and a
    box several players bet on takes a list of such mappings,
    ``common: [{player: ann, upper: 10}, {player: bob, upper: 5}]``. Without
    a player a bet belongs to the box's own seat."""
    bets_r = r.sub("bets")
    bets: list[ScriptBet] = []
    for box in bets_r.data:
        why = book.position_ok(str(box))
        if why:
            raise bets_r.fail(str(box), why)
        raw = bets_r.raw(box)
        if isinstance(raw, list):
            if not raw:
                raise bets_r.fail(str(box), "an empty list of players' bets")
            readers = [Reader(item, f"{bets_r.at(str(box))}[{i}]", file=bets_r.file, error=bets_r.error)
                       for i, item in enumerate(raw)]
        else:
            readers = [bets_r.sub(box)]
        for box_r in readers:
            player = None
            if box_r.has("player"):
                player = box_r.str("player")
                why = player_refusal(player)
                if why:
                    raise box_r.fail("player", why)
            for bet in box_r.data:
                if bet == "player":
                    continue
                if bet not in bet_names:
                    raise box_r.fail(str(bet), f"unknown bet (bets: {', '.join(bet_names)})")
                amount = box_r.raw(bet)
                try:
                    book.check(str(box), bet, amount, player)  # (whose: a position may take named players only)
                except IllegalAction as exc:
                    raise box_r.fail(str(bet), exc.reason) from None
                bets.append(ScriptBet(str(box), bet, amount, player, box_r.at(str(bet))))
    if not bets:
        raise r.fail("bets", "no bets: nothing would be dealt")
    return bets


def place_script_bets(table, bets: list[ScriptBet]) -> None:
    """Place a round's scripted bets; a refusal names the bet's field."""
    for b in bets:
        try:
            table.place_bet(b.box, b.bet, b.amount, b.player)
        except IllegalAction as exc:
            raise InputError(exc.reason, where=b.where) from None


def parse_faults(reader: Reader, device_kind: str) -> list[MockFault]:
    """``faults: [{fault: jam, after: 2}, {fault: drawn_while_disarmed, card: 7H}]``."""
    out = []
    for i, raw in enumerate(reader.list("faults", [])):
        f = Reader(raw, f"{reader.at('faults')}[{i}]", file=reader.file, error=InputError)
        kind = f.str("fault", choices=[k for k, kinds in FAULT_KINDS.items() if device_kind in kinds])
        after = f.int("after", 0, lo=0, hi=1000)
        if kind == "duplicate" and after == 0:
            raise f.fail("after", "a duplicate repeats an earlier card: it needs after >= 1")
        card = parse_card_field(f)
        f.reject_unknown()
        out.append(MockFault(kind, after, card))
    return out


def refuse(reader: Reader, key: str, exc: IllegalAction) -> InputError:
    """A table refusal during a scripted round, located at the script field."""
    return reader.fail(key, exc.reason)
