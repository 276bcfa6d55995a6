"""Fortune 3 Card Poker on mock devices with simulated players: the table of
``tablesim run --mock`` and ``tablesim serve --mock`` (the ``mock`` part),
and the game's part of a ``tablesim run`` session (``session``), shown
round by round as plain lines the CLI renders."""

from __future__ import annotations

import random
from typing import Any

from tablecore.errors import IllegalAction
from tablesim.games.dealer import Players
from tablesim.games.fortune3 import dealer
from tablesim.games.fortune3.players import decide, random_bets
from tablesim.games.fortune3.profile import load_profile
from tablesim.games.fortune3.settings import Fortune3Settings
from tablesim.games.fortune3.table import DEALER, Fortune3Table
from tablesim.games.rig import MockRig, mock_device
from tablesim.games.session import Line, SessionPlan, bold, red, results_pieces, signed_piece, yellow

NAMES = {
    "straight_flush": "straight flush",
    "three_of_a_kind": "three of a kind",
    "straight": "straight",
    "flush": "flush",
    "pair": "pair",
    "high_card": "high card",
}


class SimulatedPlayers(Players):
    """A few players at random boxes; each decides by the profile's strategy."""

    def __init__(self, rng: random.Random, *, all_boxes: bool = False) -> None:
        self.rng, self.all_boxes = rng, all_boxes

    def bets(self, table: Fortune3Table):
        return random_bets(self.rng, table.profile, table.settings.limits, all_boxes=self.all_boxes)

    def decision(self, table: Fortune3Table, box: str) -> str:
        has_pp = table.book.get(box, "pair_plus") is not None
        return decide(table.profile, table.evaluator, table.hands[box], has_pp)

    def refused(self, action: str, position: str, what: str, exc: IllegalAction) -> None:
        if action == "decide":
            raise exc  # the strategy only ever makes legal decisions


def build_table(profile: str | None, dealing: str, rng: random.Random) -> Fortune3Table:
    settings = Fortune3Settings(dealing=dealing)
    shoe = mock_device("shoe", rng=rng, exposed_rate=0.01)  # a full deck freshly shuffled at each load
    if settings.dealing == "shoe":
        return Fortune3Table(load_profile(profile), settings, shoe=shoe, table_id="F3-MOCK")
    # A shuffler table keeps a shoe at hand: after a shuffler failure a supervisor
    # may switch the following rounds to it (Art. 11(4)); both deal from one pack.
    return Fortune3Table(load_profile(profile), settings, shuffler=mock_device("shuffler", source=shoe.source),
                         shoe=shoe, table_id="F3-MOCK")


def mock(options: dict[str, Any], *, profile: str | None, seed: int, seeded: bool) -> MockRig:
    rng = random.Random(seed)
    table = build_table(profile, options["dealing"], rng)
    return MockRig(table, seed, rng, source=table.devices[0].source)


def play_round(table: Fortune3Table, rng: random.Random, *, all_boxes: bool = False) -> None:
    """Play one round with simulated players, from whatever state the table is
    in (a recovered round goes on where it stopped). What it had at risk is
    the result's stakes (the Play stakes included)."""
    dealer.play_round(table, SimulatedPlayers(rng, all_boxes=all_boxes))


def render(table: Fortune3Table) -> list[Line]:
    result = table.result
    if result.status == "void":
        return [[bold(result.round_id), ": ", red("void"), f" ({result.void_reason}); every bet returned"]]
    out = result.outcome
    dealer = out["dealer"]
    lines: list[Line] = [[
        bold(result.round_id), f"  dealer {' '.join(dealer['cards'])} ({NAMES[dealer['hand']]}), ",
        "qualifies" if dealer["qualifies"] else yellow("does not qualify"),
    ]]
    for box, info in out["boxes"].items():
        bets = result.bets[box]
        stakes = ", ".join(f"{k} {v}" for k, v in bets.items())
        decision = f" {info['decision']}" if info["decision"] else ""
        lines.append([
            f"  box {box}: {' '.join(info['cards'])} ({NAMES[info['hand']]}){decision}  [{stakes}] -> ",
            *results_pieces(shown(result.results[box], dealer["qualifies"])), "  net ", signed_piece(result.net[box]),
        ])
    return lines


def shown(results: dict, qualifies: bool) -> dict:
    """A box's results as the round line says them: an ante bonus only when
    one was earned (Art. 9(8)); a bet that neither won nor lost says why
    (the Play returned when the dealer does not qualify, a push on a tie)."""
    out = {}
    for bet, value in results.items():
        if value == 0 and bet == "ante_bonus":
            continue
        if value == 0:
            out[f"{bet} {'returned' if not qualifies else 'push'}"] = None
        else:
            out[bet] = value
    return out


#: who 'replaces' a failed shuffler at a table of software devices (journaled as the actor)
SIMULATED_SUPERVISOR = "simulated supervisor"


def replace_failed_shuffler(table: Fortune3Table) -> None:
    """Art. 11(4) at a simulated table: the mock or emulated shuffler that
    failed is reset, and the session's supervisor says so, journaled, before
    the next round deals from it again (nobody else is there to)."""
    if table.shuffler_out_of_service is not None and table.between_rounds:
        table.confirm_shuffler(actor=SIMULATED_SUPERVISOR,
                               why="the emulated shuffler was reset by the session (Art. 11(4))")


def session(table: Fortune3Table, rng: random.Random, devices: str, rig: MockRig | None = None) -> SessionPlan:
    return SessionPlan(
        banner=f"Fortune 3 Card Poker, profile {table.profile.name}, dealing by {table.settings.dealing}, {devices}",
        play_round=lambda: play_round(table, rng),
        simulated_floor=lambda: replace_failed_shuffler(table),
        render=lambda: render(table),
        summary_title="Fortune 3 Card Poker: hold per bet (ante includes the ante bonus)",
        fold_into={"ante_bonus": "ante"},
        bet_order=("ante", "play", "pair_plus"),
        after_recover=rig.after_recovery if rig is not None else None,
    )


__all__ = ["DEALER", "build_table", "mock", "play_round", "render", "session"]
