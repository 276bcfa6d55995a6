"""The Fortune 3 Card Poker dealer: what happens next, given the table's state.

A round goes on from wherever the table is (a recovered round too): a new
round opens betting; while betting is open the players bet and the dealer
calls "no more bets"; with bets closed the dealer deals (Art. 7) and the
devices' reports are taken until every hand is out; then each box with an
Ante plays or folds (Art. 9(1)). The mock table, scripted rounds and the
simulator all play their rounds here; they differ only in their players
and in how the cards come (``tablesim.games.dealer``).
"""

from __future__ import annotations

import random
from decimal import Decimal
from typing import Any

from tablecore.errors import IllegalAction
from tablesim.engine.limits import Limits
from tablesim.games.dealer import devices_only, Hands, place_bets, Players, UNATTENDED
from tablesim.games.fortune3.hands import Evaluator, Hand
from tablesim.games.fortune3.machine import S
from tablesim.games.fortune3.profile import Fortune3Profile, Fortune3Settings, load_profile, REMOTE
from tablesim.games.fortune3.settle import plays_by_strategy
from tablesim.games.fortune3.table import DEALER, Fortune3Table
from tablesim.games.rig import mock_device, MockRig
from tablesim.games.session import bold, Line, red, results_pieces, SessionPlan, signed_piece, yellow


def play_round(table: Fortune3Table, players: Players, hands: Hands = UNATTENDED) -> None:
    if devices_only(table, players, hands, (S.DEALING,)):
        return
    if table.between_rounds:
        table.open_round()
    if table.state is S.BETTING_OPEN:
        place_bets(table, players)
        table.close_betting()
    if table.state is S.BETS_CLOSED:
        table.start_dealing()
    if table.state is S.DEALING:
        hands.take(table, (S.DEALING,))
    if table.state is S.DECISIONS:
        for box in table.pending_decisions():
            if box == REMOTE:
                decide_remote(table, players)
                continue
            try:
                table.decide(box, players.decision(table, box), players.decider(table, box))
            except IllegalAction as exc:
                players.refused("decide", box, "decision", exc)
        players.after_decisions(table)
    if table.state is S.DEALING:  # a stray noticed after the decisions: the card still due (Art. 11(3))
        hands.take(table, (S.DEALING,))
    if table.state is S.DECISIONS and not table.pending_decisions():
        # a table set to hold before the reveal (the dealer reveals, so a
        # misdeal or a stray last card can still be called: Art. 11)
        table.reveal()
    if table.state is S.DEALING:  # the devices went quiet: the round cannot go on
        table.void("device_timeout")


def decide_remote(table: Fortune3Table, players: Players) -> None:
    """Each remote player on the shared remote hand plays or folds (the
    players' ``remote_decision(table, player)``: a decision, or None for
    none); then the decision timer runs out and the rest fold."""
    choose = getattr(players, "remote_decision", None)
    for player in table.pending_remote():
        decision = choose(table, player) if choose is not None else None
        if decision is None:
            continue
        try:
            table.decide(REMOTE, decision, player)
        except IllegalAction as exc:
            players.refused("decide", REMOTE, "decision", exc)
    if table.state is S.DECISIONS and table.pending_remote():
        table.close_decisions()


# --- Simulated players for the mock table and simulations.

CHIPS = (Decimal(5), Decimal(10), Decimal(25), Decimal(100))


def _chip(rng: random.Random, limits: Limits, bet: str) -> Decimal:
    choices = [c for c in CHIPS if limits.check(bet, c) is None]
    if not choices:
        limit = limits.by_bet[bet]
        return limit.minimum
    return rng.choice(choices)


def random_bets(
    rng: random.Random, profile: Fortune3Profile, limits: Limits, *, all_boxes: bool = False
) -> list[tuple[str, str, Decimal]]:
    """Bets for one round: Ante on most boxes, Pair Plus on about half."""
    count = profile.boxes if all_boxes else rng.randint(1, min(4, profile.boxes))
    boxes = sorted(rng.sample(range(1, profile.boxes + 1), count))
    bets = []
    for box in boxes:
        kind = rng.random()
        if kind < 0.85 or all_boxes:
            bets.append((str(box), "ante", _chip(rng, limits, "ante")))
        if kind >= 0.5 or all_boxes:
            bets.append((str(box), "pair_plus", _chip(rng, limits, "pair_plus")))
    return bets


def decide(profile: Fortune3Profile, evaluator: Evaluator, hand: Hand, has_pair_plus: bool) -> str:
    if plays_by_strategy(profile, evaluator, hand):
        return "play"
    if has_pair_plus and profile.fold_with_pair_plus == "forbid":
        return "play"
    return "fold"


# --- Fortune 3 Card Poker on mock devices with simulated players: the table of
# ``tablesim run --mock`` and ``tablesim serve --mock`` (the ``mock`` part),
# and the game's part of a ``tablesim run`` session (``session``), shown
# round by round as plain lines the CLI renders.

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


def play_simulated(table: Fortune3Table, rng: random.Random, *, all_boxes: bool = False) -> None:
    """Play one round with simulated players, from whatever state the table is
    in (a recovered round goes on where it stopped). What it had at risk is
    the result's stakes (the Play stakes included)."""
    play_round(table, SimulatedPlayers(rng, all_boxes=all_boxes))


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
        play_round=lambda: play_simulated(table, rng),
        simulated_floor=lambda: replace_failed_shuffler(table),
        render=lambda: render(table),
        summary_title="Fortune 3 Card Poker: hold per bet (ante includes the ante bonus)",
        fold_into={"ante_bonus": "ante"},
        bet_order=("ante", "play", "pair_plus"),
        after_recover=rig.after_recovery if rig is not None else None,
    )


__all__ = ["DEALER", "build_table", "mock", "play_round", "play_simulated", "render", "session"]
