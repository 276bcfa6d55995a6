"""A table that plays rounds by itself (``tablesim serve --mock --autoplay``):
the dealer's moves made by the table, at the pace a table shows, so a
studio on a laptop has live rounds to watch and bet on with nobody at the
console.

Each step looks at the table and makes the one move a dealer would make
now, through the same actions the console's buttons call (journaled as
``dealer:autoplay``, so the history and the floor's figures per dealer say
who dealt):

- between rounds, once the last result has been on show for
  ``RESULT_PAUSE`` paces: open the next round;
- betting open: the table's simulated players (if seated: ``players``) put
  their bets down once per round; the bet timer closes betting, exactly as
  at a table with a dealer (no bet on the table: betting stays open);
- bets closed: deal (Fortune 3, football) or spin the wheel (mock sensor);
  the device pump then takes the cards or the spin at ``--pace``;
- Fortune 3's decisions: each box of the simulated players plays or folds
  by their strategy, one box a pace; a box of anyone else (a player at the
  console, a remote player) is theirs to decide, and the table waits for
  them within the decision timer (``decision_timer``); a table that holds
  the reveal for the dealer reveals.

A pause, or an incident that blocks the round (a misread, a misdeal call,
a device lost), stops it: the supervisor resolves the incident on the
console, and the round (or the next one, after a void) goes on by itself.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import random
import time
from dataclasses import dataclass
from typing import Any

from tablecore.errors import IllegalAction
from tablesim.games import registry
from tablesim.games.console import DecideBody
from tablesim.server.intake import BetRequest, commit_bets
from tablesim.server.stream import now_ts

log = logging.getLogger("tablesim.server")

#: who the journal names for the autoplay dealer's moves (``history``: "by dealer autoplay")
ACTOR = "dealer:autoplay"
#: who the journal names for the simulated players' bets
PLAYERS_ACTOR = "player:simulated"
#: who folds a box whose player did not decide in time
TIMER_ACTOR = "timer"
#: the bet timer's default with --autoplay (seconds)
BET_SECONDS = 15.0
#: how long the players have to decide a Fortune 3 hand that is not the simulated players' (seconds)
DECISION_SECONDS = 15.0
#: pauses, in units of the pace: a round's result on show before the next opens,
#: and between two of the dealer's moves (a deal after betting closed, two boxes' decisions)
RESULT_PAUSE = 6.0
MOVE_PAUSE = 1.0
#: how often the table is looked at when there is nothing to do (seconds)
IDLE = 0.1
#: the dealer's moves after betting closed, in the order a round needs them
MOVES = ("deal", "spin", "reveal")


@dataclass(frozen=True)
class Autoplay:
    """What ``--autoplay`` was given: whether the table's simulated players
    bet (and decide their boxes), and the decision timer of everyone else's."""

    players: bool = True
    decision_seconds: float = DECISION_SECONDS
    seed: int | None = None


def simulated_players(game: str, rng: random.Random) -> Any | None:
    """The game's simulated players (its mock table's, ``dealer.SimulatedPlayers`` beside the ``mock`` part), or None."""
    module = registry.spec(game).parts.get("mock", "").partition(":")[0]
    try:
        found = getattr(importlib.import_module(module), "SimulatedPlayers", None) if module else None
    except ImportError:
        return None
    return found(rng) if found is not None else None


class AutoDealer:
    """The autoplay dealer of a served table (a task on the runner's event
    loop; every step runs on the table's thread like any other command)."""

    def __init__(self, runner: Any, settings: Autoplay) -> None:
        self.runner = runner
        self.table = runner.table
        self.settings = settings
        rig = runner.rig
        rng = rig.rng if rig is not None else random.Random(settings.seed)
        self.players = simulated_players(self.table.game, rng) if settings.players else None
        self._bets_for: str | None = None  # the round the simulated players have bet in

    async def run(self) -> None:
        while True:
            try:
                wait = await self.runner.call(self.step, actor=ACTOR, publish=False)
            except asyncio.CancelledError:
                raise
            except IllegalAction as exc:  # (the table changed under the move: look again)
                self.runner.stream.publish({"type": "notice", "level": "warning", "ts": now_ts(),
                                            "text": f"autoplay: {exc}"})
                wait = 1.0
            except Exception:
                log.exception("autoplay failed")
                wait = 1.0
            await asyncio.sleep(max(IDLE if wait is None else wait, 0.01))

    def step(self) -> float | None:
        """Make the move due now (the table's thread): seconds to wait before
        the next step, or None when nothing was due."""
        t = self.table
        if t.paused or t.blocked:
            return None  # a pause or an incident: the console's, until resumed or resolved
        waited = time.monotonic() - self.runner.state_since
        pace = self.runner.pace
        if t.between_rounds:
            if waited < RESULT_PAUSE * pace or not self._enabled("open_round"):
                return None
            return self._move("open_round")
        if t.state is t.BETTING:
            self._bet()
            return None  # the bet timer closes betting
        if waited < MOVE_PAUSE * pace:
            return None
        if t.state.value == "decisions" and t.pending_decisions():
            return self._decide(waited)  # (None while only the remote hand is deciding)
        for name in MOVES:
            if self._enabled(name):
                return self._move(name)
        return None

    def _enabled(self, name: str) -> bool:
        act = self.runner.adapter.actions().get(name)
        return act is not None and act.describe()["enabled"]

    def _move(self, name: str, body: Any = None) -> float:
        self.runner.run_action(ACTOR, name, body)
        return MOVE_PAUSE * self.runner.pace

    def _bet(self) -> None:
        """The simulated players' bets of this round, once, in one journal transaction."""
        t = self.table
        if self.players is None or self._bets_for == t.round_id:
            return
        self._bets_for = t.round_id
        requests = [BetRequest(str(position), bet, amount, PLAYERS_ACTOR)
                    for position, bet, amount in self.players.bets(t)]
        if requests:  # (a refused one, e.g. a box a console player sits at, is left out)
            self.runner.metrics.counted(commit_bets(t, requests, self.runner.intake.refs))

    def _decide(self, waited: float) -> float | None:
        """Fortune 3: the next box of the simulated players plays or folds by
        their strategy; the others' boxes wait for their players (below)."""
        t = self.table
        # the remote hand's players decide on the platform, within the table's own timer (remotehand.py)
        shared = self.runner.remote_hand
        pending = [box for box in t.pending_decisions() if shared is None or box != shared.position]
        if not pending:
            return None
        ours = [box for box in pending if self._ours(box)]
        if ours:
            box = ours[0]
            self._move("decide", DecideBody(box=box, decision=self.players.decision(t, box)))
            return MOVE_PAUSE * self.runner.pace
        return self.decision_timer(pending, waited)

    def _ours(self, box: str) -> bool:
        """Whether the box's decision is the simulated players': they bet there as the box's own seat."""
        return self.players is not None and self.table.seated(box) in (None, box) and \
            self._bets_for == self.table.round_id

    def decision_timer(self, pending: list[str], waited: float) -> float | None:
        """The players' own decisions (a player at the console, a remote player
        through the platform) are theirs: the table waits for them until the
        decision timer runs out, then each box still undecided folds (no
        decision is a fold). The place where a platform's decision timer for
        its remote players takes over."""
        if waited < self.settings.decision_seconds:
            return None
        t = self.table
        with t.acting(TIMER_ACTOR):
            for box in pending:
                self.runner.run_action(TIMER_ACTOR, "decide", DecideBody(box=box, decision="fold"))
        return MOVE_PAUSE * self.runner.pace
