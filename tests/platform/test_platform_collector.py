"""The platform's collector: what is alive when the first table opens
betting is frozen out of the full collections until the last one closes
(then thawed, so a cycle among it is freed as ever); a window that never
closes is collected once every ``MOST_FROZEN`` seconds all the same. The
picture tells it whenever any table's betting opens or closes; and the
players' socket is answered in front of the web framework's layers."""

from __future__ import annotations

import asyncio
import gc
import time

import pytest

from tablesim.platform import collector
from tablesim.platform.collector import Collector
from tablesim.platform.fastbets import FastBets
from tablesim.platform.rounds import BETTING, Rounds
from tablesim.studio.wire import WireRecord


@pytest.fixture
def thawed():
    """The test's process as the platform's is: its own frozen start-up (the
    suite's conftest froze the collected tests) put back after the test."""
    yield
    gc.freeze()


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_a_betting_window_freezes_what_was_alive_and_its_close_thaws_it(thawed):
    c = Collector()
    gc.unfreeze()
    gc.collect()
    old = _Cycle()
    c.betting(True)
    assert gc.get_freeze_count() > 0 and c.frozen_at is not None
    frozen = gc.get_freeze_count()
    c.betting(True)  # (another table opening: nothing more frozen)
    assert gc.get_freeze_count() == frozen and c.windows == 1
    # in the window, a full collection does not walk (nor free) what was frozen
    import weakref
    gone = weakref.ref(old)
    del old
    gc.collect()
    assert gone() is not None
    c.betting(False)
    assert gc.get_freeze_count() == 0 and c.frozen_at is None
    gc.collect()  # thawed: the cycle that died in the window is freed by the next full collection
    assert gone() is None


def test_a_window_that_never_closes_is_collected_once_every_most_frozen_seconds(thawed, monkeypatch):
    c = Collector()
    c.betting(True)
    import weakref
    cycle = _Cycle()
    gc.collect()  # (it is old now, but not frozen: made after the window opened)
    c.betting(False)
    c.betting(True)  # (frozen with it)
    gone = weakref.ref(cycle)
    del cycle
    c.betting(True)
    assert gone() is not None and c.forced == 0
    monkeypatch.setattr(collector, "MOST_FROZEN", 0.0)
    time.sleep(0.01)
    c.betting(True)
    assert gone() is None and c.forced == 1 and gc.get_freeze_count() > 0 and c.frozen_at is not None
    c.betting(False)


def _state(table: str, state: str, seq: int) -> WireRecord:
    return WireRecord(seq=seq, table_id=table, round_id=f"{table}-R{seq}", kind="event", name="state",
                      data={"state": state}, prev_hash="", hash="", raw=b"")


def test_the_picture_tells_whether_any_table_takes_bets_as_betting_opens_and_closes():
    told: list[bool] = []
    rounds = Rounds()
    rounds.on_betting = told.append
    rounds.apply(_state("T1", "idle", 1), 1)
    rounds.apply(_state("T1", BETTING, 2), 2)
    rounds.apply(_state("T2", BETTING, 1), 3)
    rounds.apply(_state("T1", "betting_closed", 3), 4)
    rounds.apply(_state("T2", "betting_closed", 2), 5)
    rounds.apply(_state("T2", "dealing", 3), 6)
    assert told == [True, True, True, False]


def test_the_players_socket_goes_to_its_handler_in_front_of_the_framework():
    seen: list[str] = []

    class _Platform:
        async def player_socket(self, scope, receive, send) -> None:
            seen.append(scope["path"])

    async def framework(scope, receive, send) -> None:
        seen.append("framework " + scope["path"])

    app = FastBets(framework, _Platform())

    async def go() -> None:
        await app({"type": "websocket", "path": "/ws"}, None, None)
        await app({"type": "websocket", "path": "/other"}, None, None)
        await app({"type": "http", "path": "/ws", "method": "GET"}, None, None)

    asyncio.run(go())
    assert seen == ["/ws", "framework /other", "framework /ws"]
