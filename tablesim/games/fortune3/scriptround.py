"""A scripted Fortune 3 Card Poker round as read from the file (spec/scripted-rounds.md).

Besides bets, decisions and cards, a round may say when the dealer or a
supervisor meets an irregularity (Art. 11): ``misdeal_after``,
``stray_after``, ``stray_named`` (each at a card count, or ``decisions``:
once every player has decided, before the reveal), the supervisor's answer
to a call that waits for one (``supervisor``), how the round is dealt
(``dealing``) and whether a failed shuffler was replaced
(``shuffler_replaced``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from drivers.mock import MockFault
from tablecore.cards import DealtCard, parse_dealt
from tablecore.errors import InputError
from tablecore.validate import Reader
from tablesim.games.fortune3.profile import REMOTE
from tablesim.games.fortune3.settings import BETS
from tablesim.games.fortune3.spec import DEALING
from tablesim.games.fortune3.table import DECISIONS
from tablesim.games.scriptparse import ScriptBet, parse_box_bets, parse_card_list, parse_faults

#: a point of the round: a count of cards delivered, or once the players decided
AFTER_DECISIONS = "decisions"
SUPERVISOR = ("confirms", "refuses")
Point = int | str


@dataclass
class Fortune3Round:
    where: str
    bets: list[ScriptBet]
    decisions: dict[str, str]
    cards: list[DealtCard]
    faults: list[MockFault] = field(default_factory=list)
    misdeal_after: Point | None = None
    stray_after: tuple[Point, ...] = ()
    #: (card code, point): a stray noticed late, the card named
    stray_named: tuple[tuple[str, Point], ...] = ()
    #: who takes each box's decision (a named player); none: the box's seat
    deciders: dict[str, str] = field(default_factory=dict)
    dealing: str = "shoe"
    supervisor: str = "confirms"
    shuffler_replaced: bool = True
    #: each remote player's decision on the shared remote hand; one not listed
    #: does not decide, and the decision timer folds them
    remote_decisions: dict[str, str] = field(default_factory=dict)


def point(r: Reader, key: str, value: object, cards: int, lo: int = 0) -> Point:
    """A point of the round: lo..len(cards), or ``decisions``."""
    if value == AFTER_DECISIONS:
        return AFTER_DECISIONS
    if isinstance(value, bool) or not isinstance(value, int) or value < lo:
        raise r.fail(key, f"{value!r} is not a position in cards ({lo}-{cards}) or {AFTER_DECISIONS!r}")
    if value > cards:
        raise r.fail(key, f"{value} is beyond the {cards} card(s) in cards: "
                     "an irregularity is called on cards that are out")
    return value


def parse_remote_decisions(r: Reader, bets: list[ScriptBet]) -> dict[str, str]:
    """``decisions: {remote: {ann: play, bob: fold}}``: each remote player's
    own decision; one with no Ante on the remote hand has none to make."""
    with_ante = {b.player for b in bets if b.box == REMOTE and b.bet == "ante"}
    if not r.has("decisions") or REMOTE not in r.sub("decisions").data:
        return {}
    remote_r = r.sub("decisions").sub(REMOTE)
    out = {}
    for player in remote_r.data:
        out[str(player)] = remote_r.str(player, choices=DECISIONS)
        if str(player) not in with_ante:
            raise remote_r.fail(str(player), f"{player} has no Ante on the remote hand: no decision to make")
    return out


def parse_decisions(r: Reader, bets: list[ScriptBet]) -> tuple[dict[str, str], dict[str, str]]:
    """``decisions: {6: fold}`` or ``{6: {decision: fold, player: ann}}``."""
    boxes_with_ante = {b.box for b in bets if b.bet == "ante"}
    decisions_r = r.sub("decisions", {})
    decisions, deciders = {}, {}
    for box in decisions_r.data:
        if str(box) == REMOTE:
            continue  # each remote player's own (parse_remote_decisions)
        if isinstance(decisions_r.raw(box), dict):
            one = decisions_r.sub(box)
            decision = one.str("decision", choices=DECISIONS)
            deciders[str(box)] = one.str("player")
            one.reject_unknown()
        else:
            decision = decisions_r.str(box, choices=DECISIONS)
        if str(box) not in boxes_with_ante:
            raise decisions_r.fail(str(box), f"box {box} has no Ante: it has no decision to make")
        decisions[str(box)] = decision
    return decisions, deciders


def parse_round(r: Reader, book, dealing: str) -> Fortune3Round:
    """One round; ``dealing``: how the round before it was dealt."""
    dealing = r.str("dealing", dealing, choices=DEALING.choices)
    bets = parse_box_bets(r, book, BETS)
    decisions, deciders = parse_decisions(r, bets)
    cards = parse_card_list(r)
    n = len(cards)
    faults = parse_faults(r, dealing)
    misdeal = point(r, "misdeal_after", r.raw("misdeal_after"), n) if r.has("misdeal_after") else None
    stray = tuple(point(r, f"stray_after[{i}]", v, n, lo=1) for i, v in enumerate(r.list("stray_after", [])))
    named = []
    for i, raw in enumerate(r.list("stray_named", [])):
        one = Reader(raw, f"{r.at('stray_named')}[{i}]", file=r.file, error=InputError)
        code = one.str("card")
        try:
            parse_dealt(code)
        except InputError as exc:
            raise one.fail("card", exc.message) from None
        named.append((code, point(one, "after", one.raw("after", AFTER_DECISIONS), n)))
        one.reject_unknown()
    supervisor = r.str("supervisor", "confirms", choices=SUPERVISOR)
    replaced = r.bool("shuffler_replaced", True)
    return Fortune3Round(r.file or "", bets, decisions, cards, faults, misdeal, stray, tuple(named),
                         deciders, dealing, supervisor, replaced, parse_remote_decisions(r, bets))
