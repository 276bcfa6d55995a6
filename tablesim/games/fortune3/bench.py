"""What ``tablesim bench`` times of Fortune 3 Card Poker besides its rounds:
hand evaluation, cached and raw (the harness does the timing); and how it
deals cards at a served table (a card's way from the shoe to the console)."""

from __future__ import annotations

import random
from typing import Callable

from tablecore.cards import DECK
from tablesim.games.gamespec import CardsSetup
from tablesim.games.fortune3.hands import Evaluator, classify
from tablesim.games.fortune3.profile import load_profile


def hands() -> dict[str, tuple[Callable[[], object], int]]:
    """measure -> (one call, batch size)."""
    evaluator = Evaluator(load_profile().ranking)
    rng = random.Random(1)
    dealt = [tuple(rng.sample(DECK, 3)) for _ in range(5000)]
    it = iter(range(10**12))

    def one_cached() -> None:
        evaluator.evaluate(dealt[next(it) % 5000])

    def one_raw() -> None:
        classify(dealt[next(it) % 5000])

    return {"evaluate_per_second": (one_cached, 5000), "classify_per_second": (one_raw, 5000)}


#: a table dealing from a shoe on a serial line (the emulator's pty)
CONFIG = """
[table]
id = "F3-BENCH"
game = "fortune3"

[settings]
dealing = "shoe"

[devices.shoe]
backend = "serial"
url = "{url}"
"""


def play_round(call: Callable[..., dict], wait: Callable[..., dict]) -> str:
    """One round through the API: an Ante on each of the 7 boxes (24 cards), every box plays."""
    call("POST", "/api/actions/open_round")
    wait("betting_open")
    bets = [{"position": str(box), "bet": "ante", "amount": "10"} for box in range(1, 8)]
    call("POST", "/api/bets/batch", {"bets": bets})
    call("POST", "/api/actions/close_betting")
    call("POST", "/api/actions/deal")
    snap = wait("decisions", "complete", "void", timeout=60)
    for box in snap.get("view", {}).get("pending_decisions", []):
        call("POST", "/api/actions/decide", {"box": box, "decision": "play"})
    wait("complete", "void", timeout=60)
    return snap["round_id"]


CARDS = CardsSetup(config=CONFIG, device="shoe", play_round=play_round)
