"""The football card game's rule profile, validated on load.

Everything the regulation fixes as a number is data here: card values
(Art. 9), the middle/odd/even numbers (Art. 3(2), 4), the eight draw
combinations (Art. 3(1)), the pays (Art. 11), the commission (Art. 12) and
the settlement when a final total is a middle number (Art. 10(2)).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property

from tablecore.cards import RANK_CHARS, RANK_OF
from tablecore.money import parse_amount
from tablecore.validate import Reader
from tablesim.engine.limits import Limit, Limits
from tablesim.games.football.spec import DECKS, SPEC
from tablesim.profiles import check_builtin_name, load_rule_profile_data, profile_header, sane_pay, sane_rate


#: The five bets of Art. 4, in layout order.
BETS = ("upper", "lower", "odd", "even", "middle")
#: What a bet does when the final total is a middle number (Art. 10(2)).
MIDDLE_OUTCOMES = ("win", "lose", "push")
#: The common box's name in bets, results and scripts (Art. 5(2)).
COMMON = "common"
#: How a win less commission that is not a whole number of the table's
#: payout unit is paid (Art. 12 says 5%, the house may take no more):
#: ``player`` rounds the commission down to the unit, so the player is paid
#: at least the exact win (the regulation's profile); ``house`` rounds the
#: payout down (the house keeps the difference: a profile of its own name);
#: ``exact`` pays the exact amount whatever the payout unit (a table that
#: pays change). Either rounding's difference is recorded with the round.
COMMISSION_ROUNDING = ("player", "house", "exact")
#: the earlier name of ``house``, still read
ROUNDING_ALIASES = {"floor": "house"}


@dataclass(frozen=True)
class Draw:
    """One combination of Art. 3(1): its index and its upper and lower sets."""

    index: int
    upper: tuple[int, ...]
    lower: tuple[int, ...]


@dataclass(frozen=True)
class FootballProfile:
    name: str
    description: str
    boxes: int
    card_values: dict[int, int]  # rank (2..14) -> value 0..9
    middle: frozenset[int]
    even: frozenset[int]
    odd: frozenset[int]
    draws: dict[int, Draw]  # index 1..n -> combination
    pays: dict[str, Decimal]  # bet -> win per unit staked
    commission: dict[str, Decimal]  # bet -> fraction of the win the house keeps
    commission_rounding: str  # player | house | exact (COMMISSION_ROUNDING)
    on_middle: dict[str, str]  # bet -> win | lose | push when the final total is middle
    source: str = ""

    @cached_property
    def positions(self) -> tuple[str, ...]:
        """Every box, left to right: 1..boxes, then the common box."""
        return tuple(str(b) for b in range(1, self.boxes + 1)) + (COMMON,)


def _numbers(reader: Reader, key: str, *, allow_empty: bool = False) -> tuple[int, ...]:
    values = reader.list(key)
    if not values and not allow_empty:
        raise reader.fail(key, "must list at least one number")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 9:
            raise reader.fail(key, f"{v!r} is not a total (a whole number 0-9)")
    if len(set(values)) != len(values):
        raise reader.fail(key, "lists a number twice")
    return tuple(values)


def _card_values(reader: Reader) -> dict[int, int]:
    sub = reader.sub("card_values")
    out: dict[int, int] = {}
    for key in list(sub.data):
        rank_char = "T" if str(key) == "10" else str(key).upper()
        if rank_char not in RANK_OF:
            raise sub.fail(str(key), "not a card rank (A K Q J T 9 .. 2)")
        if RANK_OF[rank_char] in out:
            raise sub.fail(str(key), "rank given twice")
        out[RANK_OF[rank_char]] = sub.int(key, lo=0, hi=9)
    missing = [c for c in RANK_CHARS if RANK_OF[c] not in out]
    if missing:
        raise reader.fail("card_values", f"no value for rank(s) {' '.join(missing)}")
    return out


def _draws(reader: Reader, middle: frozenset[int]) -> dict[int, Draw]:
    sub = reader.sub("draws")
    if not sub.data:
        raise reader.fail("draws", "no combinations to draw from")
    expected = [str(i) for i in range(1, len(sub.data) + 1)]
    if sorted(map(str, sub.data), key=lambda k: (len(k), k)) != expected:
        raise reader.fail("draws", f"combinations must be numbered 1..{len(sub.data)}")
    out: dict[int, Draw] = {}
    for key in expected:
        d = sub.sub(key)
        upper = _numbers(d, "upper")
        lower = _numbers(d, "lower")
        d.reject_unknown()
        for side, numbers in (("upper", upper), ("lower", lower)):
            clash = sorted(set(numbers) & middle)
            if clash:
                raise d.fail(side, f"{clash[0]} is a middle number (settled by Art. 10(2)), not a {side} number")
        both = sorted(set(upper) & set(lower))
        if both:
            raise d.fail("lower", f"{both[0]} is both upper and lower")
        out[int(key)] = Draw(int(key), upper, lower)
    return out


def _number_sets(r: Reader) -> tuple[frozenset, frozenset, frozenset]:
    """The middle, even and odd numbers; no number in two of them."""
    nums = r.sub("numbers")
    middle = frozenset(_numbers(nums, "middle"))
    even = frozenset(_numbers(nums, "even"))
    odd = frozenset(_numbers(nums, "odd"))
    nums.reject_unknown()
    for key, numbers, others in (("even", even, middle), ("odd", odd, middle | even)):
        clash = sorted(numbers & others)
        if clash:
            raise nums.fail(key, f"{clash[0]} is already {'middle' if clash[0] in middle else 'even'}")
    return middle, even, odd


def _pays(r: Reader) -> dict:
    pays_r = r.sub("pays")
    pays = {bet: pays_r.decimal(bet) for bet in BETS}
    pays_r.reject_unknown()
    for bet, pay in pays.items():
        if pay <= 0:
            raise pays_r.fail(bet, "a winning bet must pay more than 0")
        sane_pay(pays_r, bet)
    return pays


def _commission(r: Reader) -> tuple[dict, str]:
    """Each bet's commission rate, and in whose favour it rounds."""
    com_r = r.sub("commission", {})
    commission = {}
    if com_r.data and com_r.raw("rounding", None) in ROUNDING_ALIASES:
        rounding = ROUNDING_ALIASES[com_r.raw("rounding")]
    else:
        rounding = com_r.str("rounding", choices=COMMISSION_ROUNDING) if com_r.data else "player"
    for bet in list(com_r.data):
        if bet == "rounding":
            continue
        if bet not in BETS:
            raise com_r.fail(str(bet), f"unknown bet (bets: {', '.join(BETS)})")
        rate = com_r.decimal(bet)
        if rate >= 1:
            raise com_r.fail(bet, f"{rate} would keep the whole win: a commission is a fraction below 1")
        sane_rate(com_r, bet)
        commission[bet] = rate
    return commission, rounding


def parse_profile(data: dict, source: str) -> FootballProfile:
    r = Reader(data, file=source)
    name, description = profile_header(r)
    boxes = r.int("boxes", lo=1, hi=20)
    values = _card_values(r)
    middle, even, odd = _number_sets(r)
    draws = _draws(r, middle)
    pays = _pays(r)
    commission, rounding = _commission(r)

    mid_r = r.sub("on_middle")
    on_middle = {bet: mid_r.str(bet, choices=MIDDLE_OUTCOMES) for bet in BETS}
    mid_r.reject_unknown()

    r.reject_unknown()
    return FootballProfile(
        name=name,
        description=description,
        boxes=boxes,
        card_values=values,
        middle=middle,
        even=even,
        odd=odd,
        draws=draws,
        pays=pays,
        commission=commission,
        commission_rounding=rounding,
        on_middle=on_middle,
        source=source,
    )


def load_profile(name: str | None = None) -> FootballProfile:
    data, source = load_rule_profile_data(SPEC.name, name, SPEC.default_profile)
    profile = parse_profile(data, source)
    check_builtin_name(SPEC.name, profile, parse_profile, data)
    return profile


# --- Table settings of a football card game table (not rules: how it is run).

MIN_DECKS, MAX_DECKS = DECKS.lo, DECKS.hi


def default_limits() -> Limits:
    return Limits({b: Limit(parse_amount(1), parse_amount(10000)) for b in BETS})


@dataclass(frozen=True)
class FootballSettings:
    decks: int = 1
    limits: Limits = field(default_factory=default_limits)

    def __post_init__(self) -> None:
        if not MIN_DECKS <= self.decks <= MAX_DECKS:
            raise ValueError(f"decks must be {MIN_DECKS}-{MAX_DECKS}, not {self.decks}")
