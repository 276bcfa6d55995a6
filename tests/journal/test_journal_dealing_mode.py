"""Art. 11(4): a supervisor's switch to the shoe after a shuffler failure
holds for the following rounds, across a restart."""

from __future__ import annotations

import io

from rich.console import Console

from drivers.mock import MockFault, MockShoe, MockShuffler, ScriptedCards
from tablesim.cli.display import attach_journal
from tablecore.cards import parse_dealt
from tablesim.games.fortune3.machine import S
from tablesim.games.fortune3.profile import load_profile
from tablesim.games.fortune3.profile import Fortune3Settings
from tablesim.games.fortune3.table import Fortune3Table

PROFILE = load_profile()


def table_on(path, cards=""):
    source = ScriptedCards(parse_dealt(c) for c in cards.split())
    table = Fortune3Table(PROFILE, Fortune3Settings(dealing="shuffler"), shoe=MockShoe(source),
                          shuffler=MockShuffler(source), table_id="F3D")
    attach_journal(Console(file=io.StringIO()), table, str(path))
    return table


def jam_a_round(table) -> None:
    """One round that the shuffler jams while dealing (a shuffler failure: void)."""
    table.shuffler.faults = [MockFault("jam", 0)]
    table.open_round()
    table.place_bet("1", "ante", 10)
    table.close_betting()
    table.start_dealing()
    table.poll()


def test_the_shoe_holds_after_a_restart_and_the_switch_is_journaled(tmp_path):
    path = tmp_path / "f3.sqlite"
    table = table_on(path, "KD KH 3C")
    jam_a_round(table)
    assert table.state is S.VOID
    table.set_dealing("shoe", actor="supervisor:sam", why="shuffler jammed (Art. 11(4))")
    rows = list(table.journal.records())
    switch = [r for r in rows if r.kind == "input" and r.name == "set_dealing"]
    assert len(switch) == 1 and switch[0].actor == "supervisor:sam"
    assert switch[0].data["kwargs"]["why"] == "shuffler jammed (Art. 11(4))"
    assert [r.data["mode"] for r in rows if r.kind == "event" and r.name == "dealing_mode"] == ["shoe"]
    table.journal.close()

    again = table_on(path)  # a restart: the table's config still says shuffler
    assert again.dealing == "shoe" and again.devices == [again.shoe]
    again.set_dealing("shuffler", actor="supervisor:sam", why="shuffler repaired")
    again.journal.close()
    assert table_on(path).dealing == "shuffler"


def test_a_failed_shuffler_stays_out_of_service_across_a_restart_until_confirmed(tmp_path):
    """Art. 11(4): a restart replaces no shuffler; only the supervisor's
    journaled confirmation puts it back in service, and that too holds."""
    import pytest

    from tablecore.errors import IllegalAction

    path = tmp_path / "f3.sqlite"
    table = table_on(path, "KD KH 3C")
    jam_a_round(table)
    assert table.result.void_reason == "shuffler_fault"
    failed = table.round_id
    table.journal.close()

    again = table_on(path)
    assert again.shuffler_out_of_service == {"round": failed, "reason": "shuffler_fault"}
    with pytest.raises(IllegalAction, match=r"Art\. 11\(4\)"):
        again.open_round()
    again.confirm_shuffler(actor="supervisor:sam", why="spare shuffler fitted")
    again.journal.close()
    assert table_on(path).shuffler_out_of_service is None
