"""What the coin table's dealer does next, the simulated players, and the
game's part of a ``tablesim run`` session."""

from __future__ import annotations

import random
from decimal import Decimal

from tablesim.games.dealer import PUMP, Hands, Players
from tablesim.games.session import SessionPlan, bold, results_pieces, signed_piece

from coin.table import BOXES, SIDES, S, CoinTable


class SimulatedPlayers(Players):
    """One bet a box, a side and a stake from the session's generator; the
    coin, tossed by the dealer, from the same generator."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def bets(self, table: CoinTable):
        return [(box, self.rng.choice(SIDES), Decimal(self.rng.randint(1, 10))) for box in BOXES]

    def toss(self, table: CoinTable) -> str:
        return self.rng.choice(SIDES)


def play_round(t: CoinTable, players: Players, hands: Hands = PUMP) -> None:
    """The dealer opens, the players bet, the dealer closes and tosses (the
    coin has no device to wait on: at the console the dealer's moves are
    the people's)."""
    if not players.deals:
        return
    if t.between_rounds:
        t.open_round()
    if t.state is S.BETTING_OPEN:
        players.place(t)
        t.close_betting()
    if t.state is S.BETS_CLOSED:
        t.toss(players.toss(t))


def session(t: CoinTable, rng: random.Random, devices: str, rig=None) -> SessionPlan:
    players = SimulatedPlayers(rng)

    def render() -> list:
        r = t.result
        lines = [[bold(r.round_id), f"  {r.outcome['side']}"]]
        for box, res in r.results.items():
            lines.append([f"  box {box}: ", *results_pieces(res), "  net ", signed_piece(r.net[box])])
        return lines

    return SessionPlan(banner=f"Coin toss, {devices}", play_round=lambda: play_round(t, players), render=render,
                       summary_title="Coin toss: hold per side")
