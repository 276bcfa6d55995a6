"""A bad amount is worded alike wherever it arrives (the HTTP API, the bus):
one wording, from tablecore.money."""

from __future__ import annotations

import pytest

from tablecore.money import AMOUNT_FORM
from tablesim.server.betrequests import _bet_request
from tablesim.studio.bus_bets import _bet


@pytest.mark.parametrize("amount", [12.5, True, None, ["10"], {"v": 1}])
def test_the_api_and_the_bus_refuse_a_bad_amount_in_the_same_words(amount):
    api = _bet_request({"position": "1", "bet": "ante", "amount": amount}, 0, "x").detail
    bus = _bet({"ref": "r-1", "position": "1", "bet": "ante", "amount": amount}, 0)["detail"]
    assert api == bus == f"bets.0.amount: {AMOUNT_FORM}"
