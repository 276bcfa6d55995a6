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

from tablecore.errors import IllegalAction
from tablesim.games.dealer import UNATTENDED, Hands, Players, devices_only, place_bets
from tablesim.games.fortune3.machine import S
from tablesim.games.fortune3.profile import REMOTE
from tablesim.games.fortune3.table import Fortune3Table


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
