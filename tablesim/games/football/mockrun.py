"""The football card game on mock devices with simulated players: the table
of ``tablesim run --mock`` and ``tablesim serve --mock`` (the ``mock``
part: a mock draw display and a mock shoe), and the game's part of a
``tablesim run`` session (``session``), shown round by round as plain
lines the CLI renders."""

from __future__ import annotations

import random
from typing import Any

from tablesim.games.football.draw import SecureDraw, SeededDraw
from tablesim.games.dealer import Players
from tablesim.games.football import dealer
from tablesim.games.football.players import random_bets
from tablesim.games.football.profile import BETS, load_profile
from tablesim.games.football.rules import total
from tablesim.games.football.settings import FootballSettings
from tablesim.games.football.table import FootballTable, box_name
from tablecore.cards import parse_dealt
from tablesim.games.rig import MockRig, mock_device
from tablesim.games.session import Line, SessionPlan, bold, dim, red, results_pieces, signed_piece

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
    """A few seats taken each round, sometimes the common box too (players.py)."""

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
        dealer.play_round(table, self.players)
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
