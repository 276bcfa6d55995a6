"""What the baccarette dealer does next, the simulated players, and the game's part of ``tablesim run``."""

from __future__ import annotations

import random
from decimal import Decimal

from tablesim.games.dealer import UNATTENDED, Hands, Players, devices_only
from tablesim.games.session import SessionPlan, bold, results_pieces, signed_piece

from baccarette.table import BETS, BOXES, S, BaccaretteTable


class SimulatedPlayers(Players):
    """A bet on a few boxes, a bet and a stake from the session's generator."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def bets(self, table: BaccaretteTable):
        boxes = self.rng.sample(BOXES, self.rng.randint(1, len(BOXES)))
        return [(box, self.rng.choice(BETS), Decimal(self.rng.randint(1, 20))) for box in boxes]


def play_round(t: BaccaretteTable, players: Players, hands: Hands = UNATTENDED) -> None:
    """Open, bet, close, deal; the shoe's cards are taken until the round settles."""
    if devices_only(t, players, hands, (S.DEALING,)):
        return
    if t.between_rounds:
        t.open_round()
    if t.state is S.BETTING_OPEN:
        players.place(t)
        t.close_betting()
    if t.state is S.BETS_CLOSED:
        t.deal()
    if t.state is S.DEALING:
        hands.take(t, (S.DEALING,))


def session(t: BaccaretteTable, rng: random.Random, devices: str, rig=None) -> SessionPlan:
    players = SimulatedPlayers(rng)

    def render() -> list:
        r = t.result
        if r.status == "void":
            return [[bold(r.round_id), f"  void ({r.void_reason})"]]
        o = r.outcome
        lines = [[bold(r.round_id), f"  {o['winner']}: player {o['player']['points']}, banker {o['banker']['points']}"]]
        for box, res in r.results.items():
            lines.append([f"  box {box}: ", *results_pieces(res), "  net ", signed_piece(r.net[box])])
        return lines

    return SessionPlan(banner=f"Baccarette, {t.settings.decks} deck(s), {devices}",
                       play_round=lambda: play_round(t, players), render=render,
                       summary_title="Baccarette: hold per bet", bet_order=BETS,
                       after_recover=rig.after_recovery if rig is not None else None)
