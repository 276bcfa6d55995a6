"""Scripted Fortune 3 Card Poker rounds (spec/scripted-rounds.md, fortune3).

The table has both a shoe and a shuffler (mock devices fed the same
scripted cards), so a round may be dealt by either (``dealing`` per round):
the script's supervisor switches the table between rounds, journaled as a
supervisor's switch is (Art. 11(4)). After a shuffler failure the script's
supervisor confirms the shuffler was replaced before the next round dealt
by shuffler, unless the round says ``shuffler_replaced: false``.
"""

from __future__ import annotations

from drivers.mock import ScriptedCards
from tablecore.errors import IllegalAction, InputError
from tablecore.validate import Reader
from tablesim.engine.table import resolve_unattended
from tablesim.games.dealer import Hands, Players
from tablesim.games.fortune3 import dealer
from tablesim.games.fortune3.machine import S
from tablesim.games.fortune3.profile import Fortune3Profile, load_profile
from tablesim.games.fortune3.scriptround import AFTER_DECISIONS, Fortune3Round, parse_round
from tablesim.games.fortune3.settings import Fortune3Settings, default_limits
from tablesim.games.fortune3.spec import DEALING
from tablesim.games.fortune3.table import Fortune3Table
from tablesim.games.scriptparse import place_script_bets, script_limits
from tablesim.games.scripted import ScriptedSession
from tablesim.profiles import script_profile
from tablesim.games.rig import mock_device

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
