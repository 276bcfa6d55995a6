"""The bets of one round: who bet what on which spot, refused when illegal.

Every bet belongs to a player (an id). Several players may bet on one
position (the football common box, a wheel symbol, a Fortune 3 box where
the profile allows back-betting); a bet placed with no player belongs to
the position's own seat, whose id is the position itself, so a table with
one player per position needs no identity at all. Limits apply to each
player's own stake on a bet (``Limits.check``), and to the position's total
where the table sets a ``position_max``. A game may add its seating rule
(``seat_ok``, e.g. Fortune 3's Art. 6(2): a player bets only on the box
where they sit, and a box has one seated player).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Callable, Iterator

from tablesim.engine.limits import Limits
from tablecore.errors import IllegalAction
from tablecore.money import TEXTS as _text, ZERO, add, exact, fmt, kept_text as _text_of, parse_amount, subtract
# (``_text``, ``_text_of``: the amounts' texts kept by value; a snapshot of a table with thousands
# of bets writes the same few amounts over and over)
from tablecore.errors import InputError
from tablecore.wording import CORE_WORDS as W

#: what a missing position or player reads as (never written to)
_NONE: dict = {}

#: the longest player id a table takes
MAX_PLAYER = 40


def player_refusal(player: object) -> str | None:
    """Why ``player`` is not a player id, or None."""
    # no spaces around it: " ann" and "ann" would be two players on the results
    if not isinstance(player, str) or not player.strip() or len(player) > MAX_PLAYER or not player.isprintable() \
            or player != player.strip():
        return W("refusal.bad_player", most=MAX_PLAYER, player=repr(player))
    return None




class BetBook:
    """Bets keyed by position (a box, or a player) and bet name (or spot),
    each also by the player it belongs to.

    ``bets`` holds each position's totals (what the position's cards or spin
    settle); ``by_player`` each player's share of them.
    """

    def __init__(
        self,
        bet_names: tuple[str, ...],
        limits: Limits,
        position_ok: Callable[[str], str | None],
        seat_ok: Callable[[str, str], str | None] | None = None,
    ) -> None:
        self.bet_names = bet_names
        self.limits = limits
        self.position_ok = position_ok
        self.seat_ok = seat_ok
        self.bets: dict[str, dict[str, Decimal]] = {}
        self.by_player: dict[str, dict[str, dict[str, Decimal]]] = {}
        #: what ``snapshot`` shows: each position's bets as text, a new inner
        #: dict whenever a position changes (never changed in place), so a
        #: snapshot of thousands of bets is one copy of the outer dict
        self._shown: dict[str, dict[str, str]] = {}
        #: (position, player) pairs where the player is not the position's seat
        self._named = 0
        #: every bet in all, kept as bets change (None: to be summed again)
        self._total: Decimal | None = ZERO
        #: each bet's (or spot's) total over every position, kept the same way: a console of a
        #: table whose positions are its players shows these after every group of bets, which
        #: summed over the whole book was the square of a round's bets
        self._by_bet: dict[str, Decimal] | None = {}

    def clear(self) -> None:
        self.bets = {}
        self.by_player = {}
        self._shown = {}
        self._named = 0
        self._total = ZERO
        self._by_bet = {}

    def _show(self, position: str) -> None:
        """Bring the shown text of ``position`` in line with its bets."""
        box = self.bets.get(position)
        if box:
            text = _text
            self._shown[position] = {b: text.get(a) or _text_of(a) for b, a in box.items()}
        else:
            self._shown.pop(position, None)

    @staticmethod
    def owner(position: str, player: str | None) -> str:
        """Whose bet it is: the named player, or the position's own seat."""
        return position if player is None else player

    def check(self, position: str, bet: str, amount: object, player: str | None = None) -> Decimal:
        """Validate a bet without placing it; returns the exact amount."""
        why = self.position_ok(position)
        if why:
            raise IllegalAction("bet", why)
        if bet not in self.bet_names:
            raise IllegalAction("bet", W("refusal.unknown_bet", bet=repr(bet), bets=", ".join(self.bet_names)))
        if player is not None:
            why = player_refusal(player)
            if why:
                raise IllegalAction("bet", why)
        try:
            value = parse_amount(amount)
        except InputError as exc:
            raise IllegalAction("bet", W("refusal.bad_amount", problem=exc.message)) from None
        who = self.owner(position, player)
        if self.seat_ok is not None:
            why = self.seat_ok(position, who)
            if why:
                raise IllegalAction("bet", why)
        if who != position and self.position_ok(who) is None:
            # a bet naming no player is its position's seat's, whose id is the position
            raise IllegalAction("bet", W("refusal.player_is_position", player=repr(who)))
        mine = add(self.by_player.get(position, _NONE).get(who, _NONE).get(bet, ZERO), value)
        total = add(self.bets.get(position, _NONE).get(bet, ZERO), value)
        why = self.limits.check(bet, mine, None if who == position else who)
        if why:
            raise IllegalAction("bet", why)
        why = self.limits.position_check(bet, total)
        if why:
            raise IllegalAction("bet", why)
        return value

    def place(self, position: str, bet: str, amount: object, player: str | None = None) -> Decimal:
        value = self.check(position, bet, amount, player)
        self.add(position, bet, value, player)
        return value

    def add(self, position: str, bet: str, value: Decimal, player: str | None = None) -> None:
        """Add a bet ``check`` has accepted (the table's rules check it first)."""
        box = self.bets.setdefault(position, {})
        per = self.by_player.setdefault(position, {})
        who = position if player is None else player
        mine = per.get(who)
        if mine is None:
            mine = per[who] = {}
            if who != position:
                self._named += 1
        box[bet] = total = add(box.get(bet, ZERO), value)
        mine[bet] = add(mine.get(bet, ZERO), value)
        if self._total is not None:
            self._total = add(self._total, value)
        if self._by_bet is not None:
            self._by_bet[bet] = add(self._by_bet.get(bet, ZERO), value)
        shown = self._shown.get(position)
        text = _text.get(total) or _text_of(total)
        if shown is None:
            self._shown[position] = {bet: text}
        else:
            self._shown[position] = {**shown, bet: text}

    def mark(self, position: str, bet: str, player: str | None = None) -> tuple:
        """What ``position``'s ``bet`` is now (in all, and the player's): for
        ``put_back`` to undo what is placed after it."""
        who = self.owner(position, player)
        mine = self.by_player.get(position, _NONE).get(who, _NONE).get(bet) if isinstance(who, str) else None
        return position, bet, who, self.bets.get(position, _NONE).get(bet), mine

    def put_back(self, mark: tuple) -> None:
        """Undo what was placed on a bet since its ``mark`` (a group commit that failed)."""
        position, bet, who, total, mine = mark
        self._total = self._by_bet = None
        per = self.by_player.setdefault(position, {})
        if who not in per and who != position:
            self._named += 1  # (counted here, as it may be dropped just below)
        for amounts, value in ((self.bets.setdefault(position, {}), total), (per.setdefault(who, {}), mine)):
            if value is None:
                amounts.pop(bet, None)
            else:
                amounts[bet] = value
        if not per[who]:
            del per[who]
            if who != position:
                self._named -= 1
        if not self.bets[position]:
            del self.bets[position]
        if not per:
            del self.by_player[position]
        self._show(position)

    def set_amount(self, position: str, bet: str, value: Decimal, player: str | None = None) -> Decimal:
        """Set a player's existing bet to ``value``; returns the old amount."""
        who = self.owner(position, player)
        mine = self.by_player[position][who]
        old = mine[bet]
        self.bets[position][bet] = add(self.bets[position][bet], subtract(value, old))
        mine[bet] = value
        if self._total is not None:
            self._total = add(self._total, subtract(value, old))
        self._by_bet = None
        self._show(position)
        return old

    def withdraw(self, position: str, bet: str, player: str | None = None) -> Decimal:
        who = self.owner(position, player)
        mine = self.by_player.get(position, {}).get(who, {})
        if bet not in mine:
            why = W("refusal.no_bet" if who == position else "refusal.no_bet_of",
                    bet=bet, position=position, **({} if who == position else {"player": who}))
            raise IllegalAction("withdraw", why)
        value = mine.pop(bet)
        if not mine:
            del self.by_player[position][who]
            if who != position:
                self._named -= 1
        box = self.bets[position]
        box[bet] = subtract(box[bet], value)
        if self._total is not None:
            self._total = subtract(self._total, value)
        self._by_bet = None
        if not box[bet]:
            del box[bet]
        if not box:
            del self.bets[position]
            for gone in self.by_player.pop(position, _NONE):
                if gone != position:
                    self._named -= 1
        self._show(position)
        return value

    def positions(self) -> list[str]:
        return list(self.bets)

    def get(self, position: str, bet: str, player: str | None = None) -> Decimal | None:
        if player is None:
            return self.bets.get(position, _NONE).get(bet)
        return self.by_player.get(position, _NONE).get(player, _NONE).get(bet)

    def players_at(self, position: str) -> list[str]:
        """The players with a bet on ``position``, in the order they first bet."""
        return list(self.by_player.get(position, _NONE))

    def player_bets(self, position: str) -> dict[str, dict[str, Decimal]]:
        """Each player's bets on ``position``."""
        return self.by_player.get(position, {})

    @property
    def named(self) -> bool:
        """Whether any bet belongs to a player other than its position's seat."""
        return self._named > 0

    def total(self) -> Decimal:
        if self._total is None:
            with exact():
                self._total = sum((a for box in self.bets.values() for a in box.values()), ZERO)
        return self._total

    def bet_totals(self) -> dict[str, Decimal]:
        """Each bet's (spot's) total over every position; a bet at 0 is left out."""
        if self._by_bet is None:
            sums: dict[str, Decimal] = {}
            with exact():
                for box in self.bets.values():
                    for bet, amount in box.items():
                        sums[bet] = sums.get(bet, ZERO) + amount
            self._by_bet = sums
        return {bet: amount for bet, amount in self._by_bet.items() if amount}

    def items(self) -> Iterator[tuple[str, str, Decimal]]:
        for position, box in self.bets.items():
            for bet, amount in box.items():
                yield position, bet, amount

    def player_items(self) -> Iterator[tuple[str, str, str, Decimal]]:
        """(position, player, bet, amount) for every player's bet."""
        for position, per in self.by_player.items():
            for player, bets in per.items():
                for bet, amount in bets.items():
                    yield position, player, bet, amount

    def snapshot(self) -> dict[str, dict[str, str]]:
        """position -> bet -> amount, as text (the inner dicts are shared with
        the book's own view: read them, never change them)."""
        return dict(self._shown)

    def by_player_first(self) -> dict[str, dict[str, dict[str, Decimal]]]:
        """player -> position -> bet -> stake (a player may bet on several positions)."""
        out: dict[str, dict[str, dict[str, Decimal]]] = {}
        for position, per in self.by_player.items():
            for player, bets in per.items():
                out.setdefault(player, {})[position] = dict(bets)
        return out

    def players_snapshot(self) -> dict[str, dict[str, dict[str, str]]]:
        """position -> player -> bet -> amount, as text."""
        return {pos: {pl: {b: fmt(a) for b, a in bets.items()} for pl, bets in per.items()}
                for pos, per in self.by_player.items()}
