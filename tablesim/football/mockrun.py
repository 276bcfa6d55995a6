"""``tablesim run --game football --mock``: a table with a mock draw display,
a mock shoe and simulated players, shown round by round."""

from __future__ import annotations

import random
import secrets
import time
from decimal import Decimal

from rich.console import Console
from rich.markup import escape

from drivers.mock import MockShoe, ShuffledShoe
from drivers.mock.display import MockDisplay
from tablesim.cli.display import print_summary, signed
from tablesim.engine.runopts import RunOptions
from tablesim.engine.stats import SessionStats
from tablesim.errors import IllegalAction
from tablesim.football.draw import SecureDraw, SeededDraw
from tablesim.football.machine import CARD_STATES, S
from tablesim.football.players import random_bets
from tablesim.football.profile import load_profile
from tablesim.football.settings import FootballSettings
from tablesim.football.table import FootballTable, box_name
from tablesim.journal.attach import attach_and_recover

#: table events worth a line of their own in the mock table's output
NOTABLE = ("pack_loaded", "fault", "incident")


class MockFootball:
    """The mock table and what plays the dealer's part for it."""

    def __init__(self, options: RunOptions, rng: random.Random, *, seeded_draw: bool) -> None:
        profile = load_profile(options.profile)
        self.settings = FootballSettings(decks=options.decks or 1)
        decks = self.settings.decks
        # One deck: every (re)load is a fresh pre-shuffled deck (Art. 8(1));
        # several: one pack in a continuous shuffler that takes the used cards back (Art. 8(2)).
        self.source = ShuffledShoe(rng, decks, reshuffle_each_load=decks == 1, exposed_rate=0.01)
        draws = SeededDraw(rng) if seeded_draw else SecureDraw()
        self.table = FootballTable(
            profile, self.settings, display=MockDisplay(), shoe=MockShoe(self.source),
            draws=draws, mode="mock", table_id="FB-MOCK",
        )
        self.rng = rng
        self.notes: list[str] = []
        self.table.bus.subscribe(self._note)

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
        if self.settings.decks > 1:  # the dealer feeds the used cards back (Art. 8(2))
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


def run_mock(options: RunOptions, console: Console) -> int:
    seeded = options.seed is not None
    seed = options.seed if seeded else secrets.randbelow(2**32)
    mock = MockFootball(options, random.Random(seed), seeded_draw=seeded)
    table = mock.table
    decks = mock.settings.decks
    pack = "one deck, replaced when used up" if decks == 1 else f"{decks} decks, continuous shuffle"
    draws = "seeded draws (mock mode only)" if seeded else "draws from secrets"
    console.print(
        f"Football card game, profile {table.profile.name}, {pack}, mock devices, seed {seed}, {draws}"
    )
    attach_and_recover(table, options.journal, console)
    # A recovered round goes on with the cards still in the (mock) shoe.
    mock.source.exclude(table.round_cards)
    stats = SessionStats()
    for _ in range(options.rounds):
        wagered = mock.play_round()
        stats.add(table.result, wagered)
        if not options.quiet:
            for line in mock.render():
                console.print(line)
        if options.delay:
            time.sleep(options.delay)
    print_summary(console, "Football card game: hold per bet (upper and lower net of commission)", stats)
    return 0


__all__ = ["run_mock", "MockFootball"]
