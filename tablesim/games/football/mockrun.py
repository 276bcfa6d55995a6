"""``tablesim run --game football --mock``: a table with a mock draw display,
a mock shoe and simulated players, shown round by round."""

from __future__ import annotations

import random
import secrets
from decimal import Decimal

from rich.console import Console
from rich.markup import escape

from drivers.mock import MockShoe, ShuffledShoe
from drivers.mock.display import MockDisplay
from tablesim.cli.display import signed
from tablesim.cli.session import SessionPlan, run_session
from tablesim.engine.runopts import RunOptions
from tablesim.core.errors import IllegalAction
from tablesim.games.football.draw import SecureDraw, SeededDraw
from tablesim.games.football.machine import CARD_STATES, S
from tablesim.games.football.players import random_bets
from tablesim.games.football.profile import load_profile
from tablesim.games.football.settings import FootballSettings
from tablesim.games.football.table import FootballTable, box_name

#: table events worth a line of their own in the mock table's output
NOTABLE = ("pack_loaded", "fault", "incident")


class MockFootball:
    """A table and what plays the players' and the dealer's part for it.

    ``source``: the mock shoe's pack, when the shoe is a mock (the dealer
    feeds a mock continuous shuffler the used cards by hand); None on real
    or emulated devices.
    """

    def __init__(self, table: FootballTable, rng: random.Random, source: ShuffledShoe | None = None) -> None:
        self.table = table
        self.settings = table.settings
        self.source = source
        self.rng = rng
        self.notes: list[str] = []
        self.table.bus.subscribe(self._note)

    @classmethod
    def with_mocks(cls, options: RunOptions, rng: random.Random, *, seeded_draw: bool) -> "MockFootball":
        profile = load_profile(options.profile)
        settings = FootballSettings(decks=options.decks or 1)
        decks = settings.decks
        # One deck: every (re)load is a fresh pre-shuffled deck (Art. 8(1));
        # several: one pack in a continuous shuffler that takes the used cards back (Art. 8(2)).
        source = ShuffledShoe(rng, decks, reshuffle_each_load=decks == 1, exposed_rate=0.01)
        draws = SeededDraw(rng) if seeded_draw else SecureDraw()
        table = FootballTable(
            profile, settings, display=MockDisplay(), shoe=MockShoe(source),
            draws=draws, mode="mock", table_id="FB-MOCK",
        )
        return cls(table, rng, source)

    def _note(self, event) -> None:
        if event.kind in NOTABLE:
            detail = ", ".join(f"{k} {v}" for k, v in event.data.items())
            self.notes.append(f"{event.kind}: {detail}")

    def play_round(self) -> list[tuple[str, Decimal]]:
        """One round, from whatever state the table is in (a recovered round
        goes on where it stopped); returns each stake as (bet, amount)."""
        table = self.table
        self.notes = []
        if table.state in (S.IDLE, S.COMPLETE, S.VOID):
            table.open_round()
        if table.state is S.DRAWING:
            table.await_draw()
        if table.state is S.BETTING_OPEN:
            for box, bet, amount in random_bets(self.rng, table.profile, self.settings.limits):
                try:
                    table.place_bet(box, bet, amount)
                except IllegalAction:
                    pass  # e.g. over the limit on a box a recovered round already holds
            table.close_betting()
            table.poll()
        if table.state is S.BETS_CLOSED:
            table.start_dealing()
            table.pump(CARD_STATES)
        if table.state in CARD_STATES:  # the mock shoe never stalls; guard anyway
            table.void("device_timeout")
        if self.source is not None and self.settings.decks > 1:  # the dealer feeds the used cards back (Art. 8(2))
            self.source.return_cards(table.round_cards)
        return [(bet, amount) for _, bet, amount in table.book.items()]

    def render(self) -> list[str]:
        table = self.table
        result = table.result
        lines = [f"  [dim]{escape(n)}[/]" for n in self.notes]
        if result.status == "void":
            return [f"[bold]{result.round_id}[/]: [red]void[/] ({result.void_reason}); every bet returned", *lines]
        out = result.outcome
        draw_from = "seeded draw" if not table.draws.secure else "secure draw"
        lines.insert(0, (
            f"[bold]{result.round_id}[/]  draw {out['draw']}: upper {' '.join(map(str, out['upper']))}"
            f" | lower {' '.join(map(str, out['lower']))}  [dim]({draw_from})[/]"
        ))
        for box, info in out["boxes"].items():
            third = ", third card" if len(info["cards"]) == 3 else ""
            head = f"  {box_name(box):<15} {' '.join(info['cards']):<12} total {info['total']}{third}"
            if box in result.results:
                stakes = ", ".join(f"{k} {v}" for k, v in result.bets[box].items())
                res = ", ".join(f"{k} {signed(v)}" for k, v in result.results[box].items())
                head += f"  {escape('[' + stakes + ']')} -> {res}  net {signed(result.net[box])}"
            else:
                head += "  (no bets)"
            lines.append(head)
        return lines


def plan(run: MockFootball, devices: str) -> SessionPlan:
    decks = run.settings.decks
    pack = "one deck, replaced when used up" if decks == 1 else f"{decks} decks, continuous shuffle"
    draws = "seeded draws (mock mode only)" if not run.table.draws.secure else "draws from secrets"
    return SessionPlan(
        banner=f"Football card game, profile {run.table.profile.name}, {pack}, {devices}, {draws}",
        play_round=run.play_round,
        render=run.render,
        summary_title="Football card game: hold per bet (upper and lower net of commission)",
    )


def run_mock(options: RunOptions, console: Console) -> int:
    seeded = options.seed is not None
    seed = options.seed if seeded else secrets.randbelow(2**32)
    run = MockFootball.with_mocks(options, random.Random(seed), seeded_draw=seeded)
    session = plan(run, f"mock devices, seed {seed}")
    # A recovered round goes on with the cards still in the (mock) shoe.
    session.after_recover = lambda: run.source.exclude(run.table.round_cards)
    return run_session(run.table, options, console, session)


def table_for_devices(devices: dict, settings: FootballSettings, *, profile: str | None, table_id: str,
                      seeded: bool = False, rng: random.Random | None = None) -> FootballTable:
    """A table on real (serial) or emulated devices. The draw comes from
    ``secrets`` unless ``seeded`` (a demo on emulators), which only mock mode allows."""
    draws = SeededDraw(rng or random.Random()) if seeded else SecureDraw()
    return FootballTable(load_profile(profile), settings, display=devices["display"], shoe=devices["shoe"],
                         draws=draws, mode="mock" if seeded else "live", table_id=table_id)


def run_table(table: FootballTable, options: RunOptions, console: Console, devices: str) -> int:
    seed = options.seed if options.seed is not None else secrets.randbelow(2**32)
    return run_session(table, options, console, plan(MockFootball(table, random.Random(seed)), devices))


__all__ = ["run_mock", "MockFootball", "table_for_devices", "run_table"]
