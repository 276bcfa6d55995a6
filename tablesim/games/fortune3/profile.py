"""The Fortune 3 Card Poker rule profile, validated on load."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from tablecore.cards import RANK_OF
from tablecore.money import parse_amount
from tablecore.validate import Reader
from tablesim.engine.limits import Limit, Limits
from tablesim.games.fortune3.spec import SPEC
from tablesim.profiles import check_builtin_name, load_rule_profile_data, profile_header, sane_pay


CATEGORIES = ("straight_flush", "three_of_a_kind", "straight", "flush", "pair", "high_card")
FOLD_OPTIONS = ("forfeit", "forbid")
#: the shared remote hand's position (a profile with ``[remote]``): dealt
#: after the last box, before the dealer
REMOTE = "remote"


@dataclass(frozen=True)
class RemoteHand:
    """A profile's shared remote hand: any number of remote players bet on
    it, each deciding on their own within ``decision_seconds``; ``changes``:
    what the profile departs from, with the articles (recorded with each round)."""

    decision_seconds: int
    changes: tuple[str, ...]


@dataclass(frozen=True)
class Fortune3Profile:
    name: str
    description: str
    boxes: int
    ranking: tuple[str, ...]  # highest first
    qualifier_category: str
    qualifier_high_card: int
    ante_pays: Decimal
    play_pays: Decimal
    ante_bonus: dict[str, Decimal]
    pair_plus: dict[str, Decimal]
    fold_with_pair_plus: str
    back_betting: bool  # False: Art. 6(2), one player per box, betting only where they sit
    play_at_least: tuple[int, int, int]
    source: str = ""
    remote: RemoteHand | None = None  # None: the regulation's seven boxes only

    def strength(self, category: str) -> int:
        """Higher is better: 0 for the lowest category of the ranking."""
        return len(self.ranking) - 1 - self.ranking.index(category)


def _rank(reader: Reader, key: str, value: object) -> int:
    text = str(value).upper().replace("10", "T")
    if text not in RANK_OF:
        raise reader.fail(key, f"{value!r} is not a card rank (A K Q J T 9 .. 2)")
    return RANK_OF[text]


def _pay_table(reader: Reader, key: str) -> dict[str, Decimal]:
    sub = reader.sub(key)
    for category in sub.data:
        if category not in CATEGORIES:
            raise reader.fail(f"{key}.{category}", f"unknown hand category (categories: {', '.join(CATEGORIES)})")
    return {category: sane_pay(sub, category) for category in sub.data}


def parse_profile(data: dict, source: str) -> Fortune3Profile:
    r = Reader(data, file=source)
    name, description = profile_header(r)
    boxes = r.int("boxes", lo=1, hi=7)
    ranking = r.list("ranking")
    if not all(isinstance(c, str) for c in ranking) or sorted(ranking) != sorted(CATEGORIES):
        raise r.fail("ranking", f"must list each of {', '.join(CATEGORIES)} exactly once, highest first")
    q = r.sub("qualifier")
    q_cat = q.str("category", choices=CATEGORIES)
    q_high = _rank(q, "high_card", q.raw("high_card", "2"))
    q.reject_unknown()
    pays = r.sub("pays")
    ante_pays, play_pays = sane_pay(pays, "ante"), sane_pay(pays, "play")
    pays.reject_unknown()
    options = r.sub("options")
    fold = options.str("fold_with_pair_plus", choices=FOLD_OPTIONS)
    back_betting = options.bool("back_betting")
    options.reject_unknown()
    strategy = r.sub("strategy")
    threshold = strategy.list("play_at_least")
    if len(threshold) != 3:
        raise strategy.fail("play_at_least", "must name three ranks, e.g. [\"Q\", \"6\", \"4\"]")
    ranks = tuple(sorted((_rank(strategy, "play_at_least", v) for v in threshold), reverse=True))
    strategy.reject_unknown()
    remote = _remote(r, fold) if r.has("remote") else None
    profile = Fortune3Profile(
        name=name,
        description=description,
        boxes=boxes,
        ranking=tuple(ranking),
        qualifier_category=q_cat,
        qualifier_high_card=q_high,
        ante_pays=ante_pays,
        play_pays=play_pays,
        ante_bonus=_pay_table(r, "ante_bonus"),
        pair_plus=_pay_table(r, "pair_plus"),
        fold_with_pair_plus=fold,
        back_betting=back_betting,
        play_at_least=ranks,  # type: ignore[arg-type]
        source=source,
        remote=remote,
    )
    r.reject_unknown()
    return profile


def _remote(r: Reader, fold: str) -> RemoteHand:
    sub = r.sub("remote")
    seconds = sub.int("decision_seconds", lo=1, hi=600)
    changes = sub.list("changes")
    if not changes or not all(isinstance(c, str) and c.strip() for c in changes):
        raise sub.fail("changes", "must list what the remote hand changes, one text per article departed from")
    sub.reject_unknown()
    if fold == "forbid":
        # no decision by the timer's end is a fold: a profile that forbids the fold cannot have one
        raise r.fail("options.fold_with_pair_plus", "\"forbid\" cannot go with a [remote] hand, "
                     "whose players fold when their decision timer runs out")
    return RemoteHand(seconds, tuple(c.strip() for c in changes))


def load_profile(name: str | None = None) -> Fortune3Profile:
    data, source = load_rule_profile_data(SPEC.name, name, SPEC.default_profile)
    profile = parse_profile(data, source)
    check_builtin_name(SPEC.name, profile, parse_profile, data)
    return profile


# --- Table settings of a Fortune 3 Card Poker table (not rules: how it is run).

BETS = ("ante", "pair_plus")
#: who voids a round by a misdeal once a card is out (Art. 11(1)): the
#: dealer's call confirmed by a supervisor (an incident), or the dealer alone
MISDEAL_CONFIRMATION = ("supervisor", "dealer")


def default_limits() -> Limits:
    return Limits({b: Limit(parse_amount(1), parse_amount(10000)) for b in BETS})


@dataclass(frozen=True)
class Fortune3Settings:
    dealing: str = "shoe"
    limits: Limits = field(default_factory=default_limits)
    misdeal_confirmation: str = "supervisor"
    #: hold a dealt round before the dealer's reveal even when no decision is
    #: pending, so a misdeal or a stray last card can still be called
    reveal_by_dealer: bool = False
