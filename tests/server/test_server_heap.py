"""The served table's garbage collector (tablesim/server/gctuning.py): the
start-up heap frozen, Python's own full collections held back, and one
made at the end of each round, when its last events are out."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tablesim.server import gctuning

from server_helpers import play_round


def test_settle_freezes_the_start_up_heap_and_holds_back_full_collections():
    # (in a process of its own: the test worker's collector stays as it is)
    code = textwrap.dedent("""
        import gc
        from tablesim.server import gctuning
        before = gc.get_threshold()
        full = []
        gc.callbacks.append(lambda phase, info: full.append(1) if phase == "stop" and info["generation"] == 2 else None)
        gctuning.round_over()
        assert full == [], "no collection before the heap is settled (a table not served)"
        gctuning.settle()
        assert gc.get_freeze_count() > 1000, gc.get_freeze_count()
        # (a young collection every YOUNG objects kept, not every 700: Python's middle one as it was)
        assert gc.get_threshold() == (max(before[0], gctuning.YOUNG), before[1], gctuning.FULL_AFTER), gc.get_threshold()
        full.clear()
        gctuning.round_over()
        assert full == [1], full
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


@pytest.mark.parametrize("game", ["fortune3", "football", "wheel"])
def test_a_full_collection_follows_each_round_and_none_comes_in_its_middle(serve, monkeypatch, game):
    s = serve(game)
    ended: list[str] = []
    monkeypatch.setattr(gctuning, "round_over", lambda: ended.append(str(s.table.state.value)))
    play_round(s)
    assert ended == ["complete"]  # once, when the round is over (not at each of its actions)
    play_round(s)
    assert ended == ["complete", "complete"]
