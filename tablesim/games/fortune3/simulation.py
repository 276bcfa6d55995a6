"""Fortune 3 Card Poker under simulation: every bet type, unit stakes.

Boxes 1-3 bet Ante only, boxes 4-5 Pair Plus only, boxes 6-7 both; every
box with an Ante decides by the profile's strategy (Q-6-4). On a profile
with the shared remote hand, three remote players bet on it too (Ante only,
Pair Plus only, both) and each decides with the same strategy as a box
(settled as a box, so their exact returns are a box's). Each round is
dealt from a freshly shuffled deck (Art. 3), so each box's hand and the
dealer's are uniformly distributed as the exact analysis assumes.
"""

from __future__ import annotations

import random
from decimal import Decimal
from typing import Callable

from tablecore.cards import DECK
from tablecore.errors import IllegalAction
from tablesim.games.dealer import Players, PUMP
from tablesim.games.fortune3 import dealer
from tablesim.games.fortune3.analysis import analyze_profile
from tablesim.games.fortune3.dealer import decide
from tablesim.games.fortune3.hands import classify, Evaluator
from tablesim.games.fortune3.profile import Fortune3Settings, load_profile, REMOTE
from tablesim.games.fortune3.table import Fortune3Table
from tablesim.games.gamespec import CardsSetup
from tablesim.games.rig import mock_device


ONE = Decimal(1)
#: the remote players on the shared remote hand (a profile with one): their bets
REMOTE_PLAYERS = {"R1": ("ante",), "R2": ("pair_plus",), "R3": ("ante", "pair_plus")}
LAYOUT = {"1": ("ante",), "2": ("ante",), "3": ("ante",), "4": ("pair_plus",), "5": ("pair_plus",),
          "6": ("ante", "pair_plus"), "7": ("ante", "pair_plus")}


class LayoutPlayers(Players):
    """Unit stakes on every box of LAYOUT; decisions by the profile's strategy."""

    BETS = tuple((box, bet, ONE) for box, bets in LAYOUT.items() for bet in bets)

    def bets(self, table: Fortune3Table):
        return self.BETS

    def place(self, table: Fortune3Table) -> None:
        super().place(table)
        if table.has_remote:
            for player, bets in REMOTE_PLAYERS.items():
                for bet in bets:
                    table.place_bet(REMOTE, bet, ONE, player)

    def remote_decision(self, table: Fortune3Table, player: str) -> str:
        """A remote player decides with the same strategy as a box."""
        return decide(table.profile, table.evaluator, table.hands[REMOTE], len(REMOTE_PLAYERS[player]) == 2)

    def decision(self, table: Fortune3Table, box: str) -> str:
        return decide(table.profile, table.evaluator, table.hands[box], len(LAYOUT[box]) == 2)

    def refused(self, action: str, position: str, what: str, exc: IllegalAction) -> None:
        raise exc


class Fortune3Simulator:
    def __init__(self, seed: str, profile: str | None = None, dealing: str = "shoe") -> None:
        self.rng = random.Random(seed)
        self.profile = load_profile(profile)
        settings = Fortune3Settings(dealing=dealing)
        device = {dealing: mock_device(dealing, rng=self.rng)}  # a full deck freshly shuffled for every round
        self.table = Fortune3Table(self.profile, settings, table_id="F3-SIM", **device)
        self.forfeit = self.profile.fold_with_pair_plus == "forfeit"
        self.players = LayoutPlayers()

    def play_round(self) -> dict[str, tuple[Decimal, Decimal]] | None:
        t = self.table
        dealer.play_round(t, self.players, PUMP)
        if t.result is None or t.result.status != "settled":
            return None
        res = t.result.results
        ante_boxes = ("1", "2", "3", "6", "7") if self.forfeit else ("1", "2", "3")
        ante_net = sum((sum(res[b].get(k, Decimal(0)) for k in ("ante", "play", "ante_bonus")) for b in ante_boxes), Decimal(0))
        out = {
            "ante_play": (Decimal(len(ante_boxes)), ante_net),
            "pair_plus": (Decimal(2), res["4"]["pair_plus"] + res["5"]["pair_plus"]),
            "pair_plus_with_ante": (Decimal(2), res["6"]["pair_plus"] + res["7"]["pair_plus"]),
        }
        if t.has_remote:
            remote = {p: per[REMOTE] for p, per in t.result.players.items() if REMOTE in per}
            out["remote_ante_play"] = (ONE, sum((remote["R1"].get(k, Decimal(0))
                                                 for k in ("ante", "play", "ante_bonus")), Decimal(0)))
            out["remote_pair_plus"] = (ONE, remote["R2"]["pair_plus"])
        return out


def simulator(seed: str, profile: str | None = None, dealing: str | None = None) -> Fortune3Simulator:
    return Fortune3Simulator(seed, profile, dealing or "shoe")


def simulation_exact(profile: str | None = None, dealing: str | None = None) -> dict[str, dict]:
    loaded = load_profile(profile)
    data = analyze_profile(loaded)["bets"]
    named = next(k for k in data if k.startswith("ante_play_"))
    out = {
        "ante_play": {"return": data[named]["return"], "basis": data[named]["strategy"] + ", per Ante"},
        "pair_plus": {"return": data["pair_plus"]["return"], "basis": "Pair Plus alone"},
        "pair_plus_with_ante": {"return": data["pair_plus_with_ante"]["return"], "basis": data["pair_plus_with_ante"]["strategy"]},
    }
    if loaded.remote is not None:  # a remote player is settled as a box and decides as one
        out["remote_ante_play"] = {"return": data[named]["return"],
                                   "basis": "a remote player on the remote hand, " + data[named]["strategy"]}
        out["remote_pair_plus"] = {"return": data["pair_plus"]["return"],
                                   "basis": "a remote player's Pair Plus alone"}
    return out


# --- What ``tablesim bench`` times of Fortune 3 Card Poker besides its rounds:
# hand evaluation, cached and raw (the harness does the timing); and how it
# deals cards at a served table (a card's way from the shoe to the console).

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
