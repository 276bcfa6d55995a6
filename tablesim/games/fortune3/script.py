"""Scripted Fortune 3 Card Poker rounds (spec/scripted-rounds.md, fortune3).

The table has both a shoe and a shuffler (mock devices fed the same
scripted cards), so a round may be dealt by either (``dealing`` per round):
the script's supervisor switches the table between rounds, journaled as a
supervisor's switch is (Art. 11(4)). After a shuffler failure the script's
supervisor confirms the shuffler was replaced before the next round dealt
by shuffler, unless the round says ``shuffler_replaced: false``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from drivers.mock import MockFault, ScriptedCards
from tablecore.cards import DealtCard, parse_dealt
from tablecore.errors import IllegalAction, InputError
from tablecore.validate import Reader
from tablesim.engine.table import resolve_unattended
from tablesim.games.dealer import Hands, Players
from tablesim.games.fortune3 import dealer
from tablesim.games.fortune3.machine import S
from tablesim.games.fortune3.profile import (
    BETS, default_limits, Fortune3Profile, Fortune3Settings, load_profile, REMOTE,
)
from tablesim.games.fortune3.spec import DEALING
from tablesim.games.fortune3.table import DECISIONS, Fortune3Table
from tablesim.games.rig import mock_device
from tablesim.games.scripted import ScriptedSession
from tablesim.games.scriptparse import (
    parse_box_bets, parse_card_list, parse_faults, place_script_bets, script_limits, ScriptBet,
)
from tablesim.profiles import script_profile


ACTOR = "script"


class ScriptedPlayers(Players):
    """The script's bets and decisions (a box with an Ante plays unless told);
    a refusal is the script's error, located at its field."""

    def __init__(self, session: "Fortune3ScriptSession", spec: Fortune3Round) -> None:
        self.session, self.spec = session, spec

    def place(self, table) -> None:
        place_script_bets(table, self.spec.bets)  # with their players; a refusal names its field

    def decision(self, table: Fortune3Table, box: str) -> str:
        return self.spec.decisions.get(box, "play")

    def decider(self, table: Fortune3Table, box: str) -> str | None:
        return self.spec.deciders.get(box)

    def remote_decision(self, table: Fortune3Table, player: str) -> str | None:
        """A remote player's own decision; None: the timer folds them."""
        return self.spec.remote_decisions.get(player)

    def after_decisions(self, table: Fortune3Table) -> None:
        self.session.at_point(self.spec, AFTER_DECISIONS)

    def refused(self, action: str, position: str, what: str, exc: IllegalAction) -> None:
        where = f"bets.{position}.{what}" if action == "bet" else f"decisions.{position}"
        raise InputError(exc.reason, where=where) from None


class ScriptFeed(Hands):
    """The script's cards, fed one device report at a time, with the round's
    irregularities at their points."""

    def __init__(self, session: "Fortune3ScriptSession", spec: Fortune3Round) -> None:
        self.session, self.spec = session, spec

    def take(self, table: Fortune3Table, states: tuple) -> bool:
        self.session.deal(self.spec)
        return True


class Fortune3ScriptSession(ScriptedSession):
    dealer = staticmethod(dealer.play_round)
    REFUSALS_LOCATED = True

    def __init__(self, table: Reader) -> None:
        self.profile: Fortune3Profile = script_profile(table, load_profile)
        self.dealing = DEALING.read(table)
        # The scripted dealer reveals the dealer's hand once the players have
        # decided: the table holds before it, so a misdeal or a stray last
        # card can be called after the last card is out (Art. 11(1), 11(3)).
        self.settings = Fortune3Settings(dealing=self.dealing, limits=script_limits(table, default_limits()),
                                         reveal_by_dealer=True)
        self.source = ScriptedCards()
        self.shoe, self.shuffler = mock_device("shoe", source=self.source), mock_device("shuffler", source=self.source)
        self.table = Fortune3Table(self.profile, self.settings, shoe=self.shoe, shuffler=self.shuffler,
                                   table_id="SCRIPT")
        self._parsed_dealing = self.dealing
        self.delivered = 0
        self.fired: set[tuple] = set()

    def parse_round(self, r: Reader) -> Fortune3Round:
        spec = parse_round(r, self.table.book, self._parsed_dealing)
        self._parsed_dealing = spec.dealing
        return spec

    def arm_devices(self, spec: Fortune3Round) -> None:
        device = self.table.devices[0]
        device.faults = list(spec.faults)
        device.clear_faults()
        device.queue.clear()
        self.delivered = 0
        self.fired: set[tuple] = set()

    def players(self, spec: Fortune3Round) -> Players:
        return ScriptedPlayers(self, spec)

    def hands(self, spec: Fortune3Round) -> Hands:
        return ScriptFeed(self, spec)

    def check_played(self, spec: Fortune3Round) -> None:
        device = self.table.devices[0]
        if device.faults:
            index = spec.faults.index(device.faults[0])
            raise InputError(
                f"fault {device.faults[0].kind!r} never happened in this round (after {device.faults[0].after})",
                where=f"faults[{index}]",
            )

    def prepare(self, spec: Fortune3Round) -> None:
        """Between rounds, as a supervisor: deal this round as the script says,
        and confirm a failed shuffler was replaced unless told otherwise."""
        table = self.table
        if spec.dealing != table.dealing:
            table.set_dealing(spec.dealing, actor=ACTOR, why=f"the script deals this round by {spec.dealing}")
        if table.shuffler_out_of_service and spec.dealing == "shuffler":
            if not spec.shuffler_replaced:
                raise InputError(table.refusal("open_round"), where="shuffler_replaced")
            table.confirm_shuffler(actor=ACTOR, why="the script's supervisor replaced the shuffler (Art. 11(4))")

    def deal(self, spec: Fortune3Round) -> None:
        """Feed the device's events to the table; the round's points count
        the cards the device has delivered."""
        table = self.table
        device = table.devices[0]
        while table.state is S.DEALING:
            if self.at_point(spec, self.delivered):
                return
            event = device.next_event(0)
            if event is None:
                raise InputError(f"ran out of scripted cards: the deal needs more than {len(spec.cards)}",
                                 where="cards")
            table.handle(event)
            before = self.delivered
            self.delivered += len(getattr(event, "cards", ())) or (1 if getattr(event, "card", None) else 0)
            self._inside_a_hand(spec, before)
            resolve_unattended(table)
            # A stray may be the deal's last card: the table holds before the
            # reveal, so the dealer can still declare it (Art. 11(3)).
            if self.delivered in spec.stray_after and table.state in (S.DEALING, S.DECISIONS):
                self._call(lambda: table.stray(), "stray_after")
        if table.state is S.DECISIONS:
            if isinstance(spec.misdeal_after, int) and spec.misdeal_after > self.delivered:
                raise InputError(f"{spec.misdeal_after} is beyond the {self.delivered} card(s) dealt",
                                 where="misdeal_after")
            self.at_point(spec, self.delivered)

    def _inside_a_hand(self, spec: Fortune3Round, before: int) -> None:
        """A shuffler's hand comes out whole: no point of the round falls inside it."""
        points = [("stray_after", n) for n in spec.stray_after]
        points += [("misdeal_after", spec.misdeal_after)] + [("stray_named", p) for _, p in spec.stray_named]
        for key, n in points:
            if isinstance(n, int) and before < n < self.delivered:
                raise InputError(_inside_a_hand(n, self.delivered), where=key)

    def at_point(self, spec: Fortune3Round, at: int | str) -> bool:
        """The irregularities the script places at ``at`` (a card count, or
        after the decisions), each once; True when the round is over."""
        table = self.table
        calls = [(("named", i), where, lambda code=code: table.stray(code), "stray_named")
                 for i, (code, where) in enumerate(spec.stray_named)]
        if at == AFTER_DECISIONS and AFTER_DECISIONS in spec.stray_after:
            calls.append((("stray", AFTER_DECISIONS), AFTER_DECISIONS, table.stray, "stray_after"))
        calls.append((("misdeal",), spec.misdeal_after, table.misdeal, "misdeal_after"))
        for key, where, fn, field in calls:
            if where == at and key not in self.fired and table.state in (S.DEALING, S.DECISIONS):
                self.fired.add(key)
                self._call(fn, field)
                self._supervise(spec)
        return table.state not in (S.DEALING, S.DECISIONS)

    def _call(self, fn, where: str) -> None:
        try:
            fn()
        except IllegalAction as exc:
            raise InputError(exc.reason, where=where) from None

    def _supervise(self, spec: Fortune3Round) -> None:
        """The script's supervisor answers a call that waits for one."""
        table = self.table
        if table.incident is None or table.incident.code not in (table.MISDEAL_INCIDENT, table.STRAY_INCIDENT):
            return
        decision = "confirm" if spec.supervisor == "confirms" else "reject"
        table.resolve_incident(decision, actor=ACTOR, why=f"the script's supervisor {spec.supervisor} the call")


def _inside_a_hand(n: int, delivered: int) -> str:
    return (f"{n} is not where a shuffler hand ends (its hand ended at card {delivered}; "
            "the shuffler delivers a hand at a time)")


def script_session(table: Reader) -> Fortune3ScriptSession:
    return Fortune3ScriptSession(table)


# --- A scripted Fortune 3 Card Poker round as read from the file (spec/scripted-rounds.md).

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
