"""The studio link publishes a table's records as soon as they are
committed: it is woken by the journal's commit, not by the table's events
(which come before their commit: woken by them, the outbox looked, found
nothing committed yet and slept its idle wait, and a round's records
reached the bus 100-250 ms late). Here the idle wait is made a minute long:
only the commit's wake can bring the records in time."""

from __future__ import annotations

import asyncio
import threading

from linkedwheel import wheel_on_a_broker
from tablesim.studio import attach, outbox

from test_studio_resume import wait


def test_each_committed_action_goes_out_without_waiting_for_the_idle_wait(tmp_path, monkeypatch):
    with wheel_on_a_broker(tmp_path, monkeypatch) as (server, table):
        monkeypatch.setattr(outbox, "IDLE_WAIT", 60.0)
        link = attach.start_link(table, server.url)
        try:
            assert wait(lambda: link.state == "up", 60), link.status()
            assert wait(lambda: link.pending() == 0 and link.published == table.journal.seq, 10), link.status()
            for action in (table.open_round, table.close_betting):
                action()
                # (generous: a loaded machine; the idle wait alone would be a minute)
                assert wait(lambda: link.published == table.journal.seq, 20), (action.__name__, link.status())
        finally:
            attach.stop_link(link)
            table.journal.close()


def test_a_commit_between_the_links_look_and_its_rest_wakes_that_rest(tmp_path, monkeypatch):
    """A record committed while the link is between its look at the journal and
    its rest (here: sending its status message, as it does every few seconds)
    goes out at once: the wake it sent was cleared as the rest began, and the
    record waited the idle wait (a round's records 100-250 ms late on the bus
    now and then; here the idle wait is a minute)."""
    with wheel_on_a_broker(tmp_path, monkeypatch) as (server, table):
        monkeypatch.setattr(outbox, "IDLE_WAIT", 60.0)
        monkeypatch.setattr(outbox, "STATUS_EVERY", 0.0)  # (a status message after every look)
        link = attach.start_link(table, server.url)
        inside, committed = threading.Event(), threading.Event()
        looked, status = link._rows, link._status
        found = {"all": False}

        def rows(after, limit):
            got = looked(after, limit)
            # (fewer than a batch: all there was; the link rests next, without looking again)
            found["all"] = len(got) < outbox.BATCH
            return got

        async def held(nc):
            await status(nc)
            if found["all"] and not inside.is_set():  # (it looked, read all there was, and will rest next)
                inside.set()
                while not committed.is_set():  # (the test's record is committed while the link is here)
                    await asyncio.sleep(0.005)
                await asyncio.sleep(0.05)  # (its wake reaches this loop meanwhile)

        link._rows, link._status = rows, held
        try:
            assert wait(lambda: link.state == "up", 60), link.status()
            assert inside.wait(20)
            table.open_round()
            committed.set()
            assert wait(lambda: link.published == table.journal.seq, 20), link.status()
        finally:
            attach.stop_link(link)
            table.journal.close()
