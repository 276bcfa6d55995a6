"""The journal's promise about a settled result's stakes at risk: every bet
accepted is among them at its amount, and a stake beyond the bets (a play)
is settled; a result that does not record its stakes (an older journal) is
held to the bets alone, as before."""

from __future__ import annotations

import pytest

from tablesim.journal.invariants import check
from tablesim.journal.journal import Journal

RID = "T1-000001"
RESULTS = {"1": {"ante": "10", "play": "10", "ante_bonus": "0"}}


def journal_with(tmp_path, stakes: dict | None) -> Journal:
    journal = Journal(tmp_path / "j.sqlite")
    journal.append("T1", RID, "event", "bet", {"position": "1", "bet": "ante", "amount": "10"}, "player")
    result = {"game": "g", "status": "settled", "void_reason": None, "outcome": {}, "results": RESULTS,
              "net": {"1": "20"}}
    if stakes is not None:
        result["stakes"] = stakes
    journal.append("T1", RID, "event", "result", result, "table")
    return journal


@pytest.mark.parametrize("stakes, problems", [
    ({"1": {"ante": "10", "play": "10"}}, []),
    (None, []),  # written before results recorded their stakes
    ({"1": {"ante": "5", "play": "10"}},
     [f"round {RID}: bet ante of 1 (10) is at risk as 5 in the result's stakes"]),
    ({"1": {"play": "10"}}, [f"round {RID}: bet ante of 1 (10) is at risk as None in the result's stakes"]),
    ({"1": {"ante": "10", "play": "10"}, "2": {"pair_plus": "5"}},
     [f"round {RID}: stake pair_plus of 2 was at risk but never settled"]),
], ids=["kept", "older", "short", "missing", "unsettled"])
def test_a_settled_results_stakes_hold_every_bet_and_settle_every_stake(tmp_path, stakes, problems):
    journal = journal_with(tmp_path, stakes)
    try:
        assert check(journal, allow_open_last=False) == problems
    finally:
        journal.close()


@pytest.mark.parametrize("returned, problems", [
    ({"1": {"ante": "10", "play": "10"}}, []),  # the play made on the ante goes back with it (Art. 11(1))
    ({"1": {"ante": "10"}}, []),
    ({"1": {"ante": "10", "play": "10"}, "2": {"play": "5"}},
     [f"round {RID} void returned {{('1', 'ante'): Decimal('10'), ('1', 'play'): Decimal('10'), "
      f"('2', 'play'): Decimal('5')}} but had accepted {{('1', 'ante'): Decimal('10')}}"]),
    ({"1": {"play": "10"}},
     [f"round {RID} void returned {{('1', 'play'): Decimal('10')}} but had accepted {{('1', 'ante'): Decimal('10')}}"]),
], ids=["with its play", "bets alone", "a play on no bet", "the bet missing"])
def test_a_void_returns_every_bet_and_only_stakes_made_on_them(tmp_path, returned, problems):
    journal = Journal(tmp_path / "j.sqlite")
    try:
        journal.append("T1", RID, "event", "bet", {"position": "1", "bet": "ante", "amount": "10"}, "player")
        journal.append("T1", RID, "event", "void", {"reason": "misdeal", "returned": returned, "actor": None,
                                                    "why": None}, "table")
        journal.append("T1", RID, "event", "result", {"game": "g", "status": "void", "void_reason": "misdeal",
                                                      "outcome": {}, "results": {}, "net": {}}, "table")
        assert check(journal, allow_open_last=False) == problems
    finally:
        journal.close()
