"""Finding the debits whose bet never stood: at start and every few seconds,
every bet of the intent log the stream has not decided yet (debited, or
being debited, with no answer from the table; answered ``placed`` on the
table's subject; a cancel not yet answered) is held against the stream once
its round is closed: a ref the table journaled is the round's (settled with
it: ``stood``), any other is cancelled in the wallet, on its own, whether
the round's credit came before or not. An answer ``placed`` decides
nothing: whoever answered on the table's subject, only the table's signed
journal in the stream says the bet stands."""

from __future__ import annotations

import logging

from tablesim.platform.betdesk import Desk
from tablesim.platform.follow import Follower
from tablesim.platform.periodic import repeat

log = logging.getLogger("tablesim.platform")


class Sweep:
    def __init__(self, desk: Desk, follower: Follower, every: float = 2.0) -> None:
        self.desk = desk
        self.follower = follower
        self.every = every
        self.orphans_cancelled = 0
        self.runs = 0

    async def once(self) -> int:
        """Decide every undecided bet whose round is closed; how many were cancelled."""
        rounds, cancelled = self.desk.rounds, 0
        # (a bet still in flight in this process is decided the same way: its
        # round closed, so the table refused it or journaled its ref before the
        # result; a cancel of both is the same id, answered once)
        for table, round_id in self.desk.intents.undecided_rounds():
            if not rounds.is_closed(table, round_id):
                continue
            rnd = rounds.rounds.get((table, round_id))
            undecided = self.desk.intents.undecided(table, round_id)
            refs = rnd.refs if rnd is not None else ()
            # (a round's bets that stood: one write for them all, not a commit each)
            await self.desk.intents.move_many([("stood", "found in the stream", it.debit) for it in undecided
                                               if it.debit in refs and it.state != "cancelling"])
            for it in undecided:
                if it.debit in refs and it.state != "cancelling":
                    continue
                log.warning("platform: debit %s of %s in round %s of %s (%s) has no bet at the table: cancelled",
                            it.debit, it.player, it.round, it.table, it.state)
                out = await self.desk._cancel(it, "an orphan: no accepted bet in the stream once the round closed")
                if out is not None and out.status.value == "already_settled":
                    # (a round forgotten by the picture whose credit named it: it stood)
                    await self.desk.intents.move(it.debit, "stood", "credited with its round")
                    continue
                cancelled += 1
                self.orphans_cancelled += 1  # (each as it is done: the health reads it while the sweep goes on)
        self.runs += 1
        return cancelled

    async def run(self) -> None:
        await self.follower.caught_up.wait()
        await repeat(self.once, self.every, "the orphan sweep")
