"""The studio link's advisory cursor file (``<journal>.studio.json``): written once a
second while records keep coming, not after each batch published (a table taking
a group of bets at a time had all published after each group, and the file written
and renamed per group was a quarter of the outbox thread's CPU), yet current once
the outbox is quiet and once the link stopped."""

from __future__ import annotations

import json
import time
from decimal import Decimal

from linkedwheel import wheel_on_a_broker
from tablesim.server.intake import BetRefs, bet_request, commit_bets
from tablesim.studio import attach, outbox

from test_studio_resume import wait


def test_the_cursor_is_saved_once_a_second_under_a_stream_and_is_current_when_quiet_and_at_stop(
        tmp_path, monkeypatch):
    with wheel_on_a_broker(tmp_path, monkeypatch) as (server, table):
        path = tmp_path / "WHEEL-MOCK.journal.sqlite"
        monkeypatch.setattr(outbox, "CURSOR_EVERY", 60.0)  # (only quiet and stop bring it up to date here)
        link = attach.start_link(table, server.url)
        saved = []
        save = link._save_cursor
        monkeypatch.setattr(link, "_save_cursor", lambda: (saved.append(link.published), save()))
        cursor = outbox.cursor_path(str(path))
        try:
            assert wait(lambda: link.state == "up", 60), link.status()
            table.open_round()
            # quiet: the file says what was published
            assert wait(lambda: json.loads(cursor.read_text())["published"] == table.journal.seq, 20), link.status()
            saved.clear()
            refs = BetRefs().load(table.journal, table.table_id)
            for g in range(40):  # a stream of groups, each published before the next is committed
                commit_bets(table, [bet_request("p1", "1", Decimal("1"), "bus", ref=f"r{g}", player="p1")], refs)
                assert wait(lambda: link.published == table.journal.seq, 20), link.status()
                time.sleep(0.01)
            assert len(saved) <= 10, saved  # (not one a group: a few, when the machine paused the stream)
            assert wait(lambda: json.loads(cursor.read_text())["published"] == table.journal.seq, 20), link.status()
            table.close_betting()
            assert wait(lambda: link.published == table.journal.seq, 20), link.status()
        finally:
            attach.stop_link(link)
            table.journal.close()
        # stopped: current, whatever the quiet wait did
        assert json.loads(cursor.read_text())["published"] == link.published == table.journal.seq


def test_stop_saves_the_cursor_left_behind(tmp_path, monkeypatch):
    """Published, not yet saved (the quiet wait never came): ``stop`` writes it."""
    monkeypatch.setattr(outbox, "CURSOR_QUIET", 3600.0)
    link = outbox.StudioLink("nats://127.0.0.1:1", str(tmp_path / "T.journal.sqlite"), "T")
    link.published = 17
    link.stop()
    assert json.loads(outbox.cursor_path(str(tmp_path / "T.journal.sqlite")).read_text())["published"] == 17
