"""The platform's collector: what is alive when a table opens betting is
frozen out of the full collections; it is thawed and collected in full once
it has been frozen ``MOST_FROZEN`` seconds, a moment after betting closed
(or, where windows never all close, at an opening once frozen twice that
long). The picture tells it whenever any table's betting opens or closes;
and the players' socket is answered in front of the web framework's
layers."""

from __future__ import annotations

import asyncio
import gc
import time
import weakref

import pytest

from tablesim.platform import collector
from tablesim.platform.collector import Collector
from tablesim.platform.fastbets import FastBets
from tablesim.platform.rounds import BETTING, Rounds
from tablesim.studio.wire import WireRecord


@pytest.fixture
def thawed():
    """The suite's conftest froze the collected tests: put back after the test (and the
    collector's thresholds, which a test leaving betting open would leave deferred)."""
    thresholds = gc.get_threshold()
    yield
    gc.set_threshold(*thresholds)
    gc.freeze()


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_what_was_alive_when_betting_opened_stays_out_of_full_collections_until_overdue(thawed, monkeypatch):
    c = Collector()
    cycle = _Cycle()
    c.betting(True)
    assert gc.get_freeze_count() > 0 and c.frozen_since is not None
    gone = weakref.ref(cycle)
    del cycle
    gc.collect()
    assert gone() is not None  # (frozen: not walked, not freed)
    c.betting(False)  # a close soon after: nothing thawed, no long pause
    gc.collect()
    assert gone() is not None and c.collections == 0 and gc.get_freeze_count() > 0

    async def close_when_overdue() -> None:
        c.betting(False)
        assert gone() is not None  # (not at once: the close's last answers first)
        await asyncio.sleep(collector.QUIET * 2)

    monkeypatch.setattr(collector, "MOST_FROZEN", 0.0)
    time.sleep(0.01)
    asyncio.run(close_when_overdue())
    assert gone() is None and c.collections == 1 and c.frozen_since is None


def test_an_opening_before_the_quiet_moment_puts_it_off_to_the_next_close(thawed, monkeypatch):
    c = Collector()
    monkeypatch.setattr(collector, "MOST_FROZEN", 0.5)
    monkeypatch.setattr(collector, "QUIET", 1.0)  # (far beyond the opening's 10 ms, on a loaded machine too)
    c.betting(True)
    time.sleep(0.6)  # (overdue: frozen longer than MOST_FROZEN, not twice as long)

    async def go() -> None:
        cycle = _Cycle()
        gone = weakref.ref(cycle)
        gc.freeze()
        del cycle
        c.betting(False)
        await asyncio.sleep(0.01)
        c.betting(True)  # another table opened: the quiet moment is off, and nothing collected at the opening
        assert gone() is not None and c.collections == 0
        await asyncio.sleep(1.2)
        assert gone() is not None and c.collections == 0

    asyncio.run(go())


def test_windows_that_never_all_close_are_collected_at_an_opening_all_the_same(thawed, monkeypatch):
    c = Collector()
    c.betting(True)
    cycle = _Cycle()
    gone = weakref.ref(cycle)
    gc.freeze()
    del cycle
    c.betting(True)
    assert gone() is not None and c.collections == 0
    monkeypatch.setattr(collector, "MOST_FROZEN", 0.0)
    time.sleep(0.01)
    c.betting(True)
    assert gone() is None and c.collections == 1 and gc.get_freeze_count() > 0 and c.frozen_since is not None


def test_while_a_table_takes_bets_pythons_own_full_collections_wait_and_come_back_after(thawed):
    """What came after the opening (players connecting, the round's bets) is not
    frozen: Python's own full collections, walking it all, come only after
    ``FULL_AFTER`` middle ones while a table takes bets, the young ones after
    ``YOUNG`` objects; as before once all closed."""
    gc.set_threshold(700, 10, 10)
    c = Collector()
    c.betting(True)
    assert gc.get_threshold() == (collector.YOUNG, 10, collector.FULL_AFTER)
    c.betting(True)  # (another table opens: still deferred, Python's own kept to come back)
    assert gc.get_threshold() == (collector.YOUNG, 10, collector.FULL_AFTER)
    c.betting(False)
    assert gc.get_threshold() == (700, 10, 10)
    c.betting(False)
    assert gc.get_threshold() == (700, 10, 10)
    gc.set_threshold(50_000, 20, 30)  # (whatever they are when a window opens come back; the young never lowered)
    c.betting(True)
    assert gc.get_threshold() == (50_000, 20, collector.FULL_AFTER)
    c.betting(False)
    assert gc.get_threshold() == (50_000, 20, 30)


def test_a_full_collection_waits_while_a_table_takes_bets(thawed):
    """(Python's own, counted by its callbacks: none within a window of many middle collections.)"""
    gc.set_threshold(700, 10, 10)
    c = Collector()
    full: list[int] = []

    def count(phase: str, info: dict) -> None:
        if phase == "start" and info["generation"] == 2:
            full.append(1)

    gc.callbacks.append(count)
    try:
        c.betting(True)
        kept = [[i] for i in range(200_000)]  # (long-lived: survives the young collections, as bets do)
        assert not full
    finally:
        c.betting(False)
        gc.callbacks.remove(count)
    del kept


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
