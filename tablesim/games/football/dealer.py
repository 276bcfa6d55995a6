"""The football card game's dealer: what happens next, given the table's state.

A round goes on from wherever the table is (a recovered round too): a new
round starts with the draw, shown and read back by the display (Art. 3,
6(1)); the players bet; the dealer calls "no more bets" and whatever the
devices reported meanwhile is taken; the dealer deals two cards per box,
then the third cards (Art. 6, 10), the devices' reports taken until the
round is settled; a deal the devices leave unfinished is void. The mock
table, scripted rounds and the simulator all play their rounds here
(``tablesim.games.dealer``).
"""

from __future__ import annotations

import random
from decimal import Decimal
from typing import Any

from tablecore.cards import parse_dealt
from tablesim.engine.limits import Limits
from tablesim.games.dealer import devices_only, Hands, place_bets, Players, PUMP
from tablesim.games.football.draw import SecureDraw, SeededDraw
from tablesim.games.football.machine import CARD_STATES, S
from tablesim.games.football.profile import BETS, COMMON, FootballProfile, FootballSettings, load_profile
from tablesim.games.football.rules import total
from tablesim.games.football.table import box_name, FootballTable
from tablesim.games.rig import mock_device, MockRig
from tablesim.games.session import bold, dim, Line, red, results_pieces, SessionPlan, signed_piece


def play_round(table: FootballTable, players: Players, hands: Hands = PUMP) -> None:
    if devices_only(table, players, hands, CARD_STATES):
        return
    if table.between_rounds:
        table.open_round()
    if table.state is S.DRAWING:
        table.await_draw()
    if table.state is S.BETTING_OPEN:
        place_bets(table, players)
        table.close_betting()
        table.poll()  # a card drawn while betting was open, a display fault
    if table.state is S.BETS_CLOSED:
        table.start_dealing()
        hands.take(table, CARD_STATES)
    if table.state in CARD_STATES:  # the devices went quiet: the round cannot go on
        table.void("device_timeout")


# --- Simulated players for the mock table: they see the draw, then bet.

CHIPS = (Decimal(1), Decimal(5), Decimal(10), Decimal(25), Decimal(100))


def _chip(rng: random.Random, limits: Limits, bet: str) -> Decimal:
    choices = [c for c in CHIPS if limits.check(bet, c) is None]
    return rng.choice(choices) if choices else limits.by_bet[bet].minimum


def random_bets(rng: random.Random, profile: FootballProfile, limits: Limits) -> list[tuple[str, str, Decimal]]:
    """Bets for one round, boxes left to right: (box, bet, amount)."""
    seats = rng.randint(1, min(5, profile.boxes))
    boxes = [str(b) for b in sorted(rng.sample(range(1, profile.boxes + 1), seats))]
    if rng.random() < 0.5:
        boxes.append(COMMON)
    bets = []
    for box in boxes:
        for bet in rng.sample(BETS, rng.randint(1, 3)):
            bets.append((box, bet, _chip(rng, limits, bet)))
    return bets


# --- The football card game on mock devices with simulated players: the table
# of ``tablesim run --mock`` and ``tablesim serve --mock`` (the ``mock``
# part: a mock draw display and a mock shoe), and the game's part of a
# ``tablesim run`` session (``session``), shown round by round as plain
# lines the CLI renders.

#: table events worth a line of their own in the mock table's output
NOTABLE = ("pack_loaded", "fault", "incident")


class FootballRig(MockRig):
    """``source``: the mock shoe's pack; the dealer feeds a mock continuous
    shuffler the used cards by hand."""

    def round_over(self) -> None:
        """Between rounds: a continuous shuffler takes the used cards back (Art. 8(2))."""
        if self.source is not None and self.table.settings.decks > 1:
            self.source.return_cards(self.table.cards_out())


def mock(options: dict[str, Any], *, profile: str | None, seed: int, seeded: bool) -> FootballRig:
    rng = random.Random(seed)
    settings = FootballSettings(decks=options["decks"])
    decks = settings.decks
    # One deck: every (re)load is a fresh pre-shuffled deck (Art. 8(1));
    # several: one pack in a continuous shuffler that takes the used cards back (Art. 8(2)).
    shoe = mock_device("shoe", rng=rng, decks=decks, exposed_rate=0.01)
    draws = SeededDraw(rng) if seeded else SecureDraw()
    table = FootballTable(
        load_profile(profile), settings, display=mock_device("display"), shoe=shoe,
        draws=draws, mode="mock", table_id="FB-MOCK",
    )
    return FootballRig(table, seed, rng, source=shoe.source)


class SimulatedPlayers(Players):
    """A few seats taken each round, sometimes the common box too."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def bets(self, table: FootballTable):
        return random_bets(self.rng, table.profile, table.settings.limits)


class MockFootball:
    """A table and what plays the players' and the dealer's part for it
    (``rig``: the mock devices' rig; None on real or emulated devices)."""

    def __init__(self, table: FootballTable, rng: random.Random, rig: MockRig | None = None) -> None:
        self.table = table
        self.settings = table.settings
        self.rig = rig
        self.rng = rng
        self.players = SimulatedPlayers(rng)
        self.notes: list[str] = []
        self.table.bus.subscribe(self._note)

    def _note(self, event) -> None:
        if event.kind in NOTABLE:
            detail = ", ".join(f"{k} {v}" for k, v in event.data.items())
            self.notes.append(f"{event.kind}: {detail}")

    def play_round(self) -> None:
        """One round, from whatever state the table is in (a recovered round
        goes on where it stopped)."""
        table = self.table
        self.notes = []
        play_round(table, self.players)
        if self.rig is not None:  # the dealer feeds the used cards back (Art. 8(2))
            self.rig.round_over()

    def render(self) -> list[Line]:
        table = self.table
        result = table.result
        lines: list[Line] = [["  ", dim(n)] for n in self.notes]
        if result.status == "void":
            return [[bold(result.round_id), ": ", red("void"), f" ({result.void_reason}); every bet returned"], *lines]
        out = result.outcome
        draw_from = "seeded draw" if not table.draws.secure else "secure draw"
        lines.insert(0, [
            bold(result.round_id), f"  draw {out['draw']}: upper {' '.join(map(str, out['upper']))}"
            f" | lower {' '.join(map(str, out['lower']))}  ", dim(f"({draw_from})"),
        ])
        for box, info in out["boxes"].items():
            head = f"  {box_name(box):<15} {' '.join(info['cards']):<12} {self._total(info)}"
            if box in result.results:
                stakes = ", ".join(f"{k} {v}" for k, v in result.bets[box].items())
                lines.append([f"{head}  [{stakes}] -> ", *results_pieces(result.results[box]),
                              "  net ", signed_piece(result.net[box])])
            else:
                lines.append([f"{head}  (no bets)"])
        lines += self._rounding(out)
        return lines

    def _total(self, info: dict) -> str:
        """The final total, and with a third card the two cards' total that
        called for it (Art. 10(1)), so neither reads as the other."""
        if len(info["cards"]) < 3:
            return f"total {info['total']}"
        two = total(self.table.profile, (parse_dealt(c).card for c in info["cards"][:2]))
        return f"two cards {two}, third card: total {info['total']}"

    @staticmethod
    def _rounding(out: dict) -> list[Line]:
        """Art. 12 at a payout unit: what rounding moved, and in whose favour."""
        cut = out.get("commission_rounded_off")
        if not cut:
            return []
        who = {"player": "commission rounded down for the player",
               "house": "payout rounded down for the house"}.get(out.get("commission_rounding"), "rounded off")
        items = ", ".join(f"{box_name(b)} {bet} {v}" for b, per in cut.items() for bet, v in per.items())
        return [["  ", dim(f"{who}: {items}")]]


def session(table: FootballTable, rng: random.Random, devices: str, rig: MockRig | None = None) -> SessionPlan:
    run = MockFootball(table, rng, rig)
    decks = run.settings.decks
    pack = "one deck, replaced when used up" if decks == 1 else f"{decks} decks, continuous shuffle"
    draws = "seeded draws (mock mode only)" if not table.draws.secure else "draws from secrets"
    return SessionPlan(
        banner=f"Football card game, profile {table.profile.name}, {pack}, {devices}, {draws}",
        play_round=run.play_round,
        render=run.render,
        summary_title="Football card game: hold per bet (upper and lower net of commission)",
        bet_order=BETS,
        after_recover=rig.after_recovery if rig is not None else None,
    )


__all__ = ["FootballRig", "MockFootball", "mock", "session"]
