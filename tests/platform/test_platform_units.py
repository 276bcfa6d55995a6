"""The platform's pure parts, over many inputs: a stake is taken only as a
plain decimal at the table's unit; a session token is its player's alone;
a settled wheel round's credits are each player's stakes plus their net,
exactly as the wheel's own settlement pays them."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from hypothesis import given, strategies as st

from tablesim.platform.amounts import BadBet, stake
from tablesim.platform.roundcredits import part_of, parts
from tablesim.platform.rounds import Ref, Round
from tablesim.platform.sessions import BadSession, Sessions
from tablesim.platform.tables import Offer

OFFER = Offer("WHEEL-01", "MOP", Decimal("0.5"), "player", Decimal("10000"))
PAYS = {"1": 1, "3": 3, "5": 5, "10": 10, "20": 20, "joker": 45, "logo": 45}


@given(st.decimals(min_value=0, max_value=20000, places=3, allow_nan=False, allow_infinity=False))
def test_a_stake_is_a_whole_multiple_of_the_unit_within_the_largest(amount):
    text = format(amount, "f")
    if 0 < amount <= OFFER.max and amount % OFFER.unit == 0:
        assert stake(text, OFFER, "MOP") == amount
    else:
        with pytest.raises(BadBet):
            stake(text, OFFER, "MOP")


@pytest.mark.parametrize("value", ["-1", "+1", "1e2", " 1", "1.", ".5", "0", "0.0", "NaN", "Infinity", "1,5",
                                   "1" * 13, 10, 1.5, None, True, ["1"]])
def test_anything_but_a_plain_positive_decimal_is_refused(value):
    with pytest.raises(BadBet) as refusal:
        stake(value, OFFER, "MOP")
    assert "\n" not in str(refusal.value)


@given(st.lists(st.tuples(st.one_of(st.sampled_from(["1", "1.0", "0.5", "2.50", "10000", "10000.5", "0", "-1", "1e2",
                                                     " 1", "01", "7.25"]),
                                    st.decimals(min_value=0, max_value=20000, places=2).map(lambda d: format(d, "f")),
                                    st.integers(0, 3), st.none()),
                          st.sampled_from([OFFER, Offer("WHEEL-02", "MOP", Decimal(1), "player", Decimal(100))]),
                          st.sampled_from(["MOP", "HKD"])), max_size=30))
def test_a_stake_remembered_is_the_stake_read_afresh_and_its_text_and_refusals_are_never_kept(asked):
    """``known_stake``: the same amount (the same Decimal, with its exponent) and
    the same text as ``stake`` and ``fmt`` give each time, or the same refusal."""
    from tablecore.money import fmt
    from tablesim.platform import amounts

    for value, offer, currency in asked * 2:  # (each asked again: remembered the second time)
        try:
            expected = stake(value, offer, currency)
        except BadBet as exc:
            with pytest.raises(BadBet, match=re.escape(str(exc))):
                amounts.known_stake(value, offer, currency)
            assert (value, offer, currency) not in amounts._KNOWN
            continue
        amount, text = amounts.known_stake(value, offer, currency)
        assert amount == expected and str(amount) == str(expected) and text == fmt(expected)
    assert len(amounts._KNOWN) <= amounts.KNOWN


def test_the_stakes_remembered_are_forgotten_at_once_past_the_most(monkeypatch):
    from tablesim.platform import amounts

    monkeypatch.setattr(amounts, "_KNOWN", {})
    monkeypatch.setattr(amounts, "KNOWN", 3)
    for n in range(1, 8):
        assert amounts.known_stake(str(n), OFFER, "MOP") == (Decimal(n), str(n))
        assert len(amounts._KNOWN) <= 3
    assert amounts._KNOWN == {("7", OFFER, "MOP"): (Decimal(7), "7")}


def test_another_currency_is_refused():
    with pytest.raises(BadBet, match="plays in MOP, your account is in HKD"):
        stake("1", OFFER, "HKD")


@given(st.data())
def test_a_session_token_changed_anywhere_is_refused(data):
    sessions = Sessions(b"x" * 40)
    token = sessions.issue("ann", "MOP", Decimal("0.01"))
    assert sessions.read(token).player == "ann"
    i = data.draw(st.integers(min_value=0, max_value=len(token) - 1))
    c = data.draw(st.sampled_from("AZaz09-_.="))
    changed = token[:i] + c + token[i + 1:]
    if changed != token:
        with pytest.raises(BadSession):
            sessions.read(changed)
    with pytest.raises(BadSession):
        Sessions(b"y" * 40).read(token)  # another secret: another platform's


bets = st.lists(st.tuples(st.sampled_from(["ann", "bob", "cy"]), st.sampled_from(sorted(PAYS)),
                          st.integers(min_value=1, max_value=500), st.booleans()), min_size=1, max_size=30)


@given(bets, st.sampled_from(sorted(PAYS)))
def test_a_wheel_rounds_credits_are_stakes_plus_net(placed, symbol):
    from tablesim.games.wheel.profile import load_profile
    from tablesim.games.wheel.settle import settle

    profile = load_profile()
    rnd = Round("WHEEL-01", "WHEEL-01-000001")
    standing = []
    for i, (player, spot, amount, withdrawn) in enumerate(placed):
        rnd.add(Ref(f"d-{i:03d}", player, spot, Decimal(amount), player, i, withdrawn))
        if not withdrawn:
            standing.append((player, spot, Decimal(amount)))
    nets = settle(profile, standing, symbol)
    stakes: dict = {}
    for player, spot, amount in standing:
        stakes.setdefault(player, {}).setdefault(spot, Decimal(0))
        stakes[player][spot] += amount
    rnd.result = {"status": "settled", "results": {p: {s: str(v) for s, v in r.items()} for p, r in nets.items()},
                  "stakes": {p: {s: str(v) for s, v in r.items()} for p, r in stakes.items()}}
    for player, part in parts(rnd).items():
        mine = [(s, a) for p, s, a in standing if p == player]
        assert part.credit == sum((a * (1 + PAYS[s]) for s, a in mine if s == symbol), Decimal(0))
        assert part.mismatch is None
        assert sorted(part.debits + part.cancels) == sorted(r.ref for r in rnd.refs.values() if r.owner == player)
        assert all(rnd.refs[d].withdrawn for d in part.cancels)
        assert rnd.of(player) == [r for r in rnd.refs.values() if r.owner == player]  # (the index by owner)
        assert part_of(rnd, player) == part  # (one player's part, from the player's refs alone)
    assert part_of(rnd, "nobody") is None


@given(bets, st.booleans())
def test_the_backstop_wants_the_ids_settlement_sends(placed, void):
    """A credit per player with a standing bet (settled), a cancel per debit
    withdrawn, and every debit cancelled when the round is void: the same
    ids settlement sends, so the backstop's settling again pays nothing twice."""
    from tablesim.platform import ids
    from tablesim.platform.backstop import wanted

    rnd = Round("WHEEL-01", "WHEEL-01-000001")
    for i, (player, spot, amount, withdrawn) in enumerate(placed):
        rnd.add(Ref(f"d-{i:03d}", player, spot, Decimal(amount), player, i, withdrawn))
    rnd.result = {"status": "void"} if void else {"status": "settled", "results": {}}
    standing = {r.owner for r in rnd.refs.values() if not r.withdrawn}
    want = {ids.cancel_of(r.ref) for r in rnd.refs.values() if r.withdrawn or void}
    if not void:
        want |= {ids.credit_of("WHEEL-01", "WHEEL-01-000001", p) for p in standing}
    assert wanted(rnd, OFFER) == want


@given(st.integers(1, 350), st.integers(-3, 3))
def test_a_players_credit_comes_in_parts_the_wallet_takes_that_add_up(n, net_units):
    """However many bets a player placed, the credit parts each name at most
    the protocol's limit of debits, name each standing debit once, add up to
    the return, and carry ids derived from the round (the same every time)."""
    from tablesim.platform.settle import credit_parts
    from tablesim.wallet.protocol import MAX_DEBITS

    rnd = Round("WHEEL-01", "WHEEL-01-000002")
    for i in range(n):
        rnd.add(Ref(f"d-{i:04d}", "ann", "7", Decimal("0.5"), "ann", i))
    stake_total = Decimal("0.5") * n
    net = max(Decimal(net_units), -stake_total)
    rnd.result = {"status": "settled", "results": {"ann": {"7": str(net)}}}
    part = parts(rnd)["ann"]
    out = credit_parts(rnd, OFFER, part)
    assert out == credit_parts(rnd, OFFER, part)  # (a retry, another process: the same requests)
    bodies = [body for call, body in out]
    assert {call for call, _ in out} == {"credit"} and len(out) == -(-n // MAX_DEBITS)
    assert all(1 <= len(b["debits"]) <= MAX_DEBITS for b in bodies)
    named = [d for b in bodies for d in b["debits"]]
    assert sorted(named) == sorted(rnd.refs) and len(set(named)) == n
    assert sum(Decimal(b["amount"]) for b in bodies) == stake_total + net == part.credit
    assert len({b["transaction_id"] for b in bodies}) == len(bodies)


def test_a_remembered_session_still_expires(monkeypatch):
    import tablesim.platform.sessions as module

    sessions = Sessions(b"x" * 40, hours=1.0)
    token = sessions.issue("ann", "MOP", Decimal("0.01"))
    assert sessions.read(token).player == "ann"  # verified once, remembered
    now = module.time.time()
    monkeypatch.setattr(module.time, "time", lambda: now + 3601)
    with pytest.raises(BadSession, match="expired"):
        sessions.read(token)


def test_debit_ids_are_never_made_twice_not_even_by_a_forked_process():
    import os

    from tablesim.platform import ids

    mine = {ids.new_debit() for _ in range(1000)}
    assert len(mine) == 1000 and all(len(d) == 34 and d.startswith("d-") for d in mine)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # (the child: its ids to the parent, then gone)
        os.close(read)
        os.write(write, "\n".join(ids.new_debit() for _ in range(1000)).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as f:
        theirs = set(f.read().split("\n"))
    os.waitpid(pid, 0)
    assert len(theirs) == 1000 and not theirs & mine
    assert not theirs & {ids.new_debit() for _ in range(1000)}


def test_a_bus_reply_with_receipts_encoded_once_a_record_is_the_same_json():
    import json

    from tablesim.studio.bus_bets import BusBets

    class Link:  # (the receipt as tablesim.studio.receipts makes it; the signature is not the point here)
        def receipt(self, seq, body, ref):
            return {"v": 1, "table_id": "T", "seq": seq, "ref": ref, "message": body.decode(), "sig": f"s{seq}",
                    "key": "k"}

    bets = BusBets("T", None, None)
    bets.link = Link()
    results = [{"ok": True, "round_id": "R", "ref": ref, "receipt": {**bets._signed(seq, body), "ref": ref}}
               for ref, seq, body in (("a", 5, '{"é":"\\"q"}'.encode()), ("b\"", 5, b"{}"), ("c", 6, b"[]"))]
    results.insert(1, {"ok": False, "round_id": "", "ref": "x", "error": "bad_input", "detail": "é"})
    reply = {"v": 1, "results": results}
    assert json.loads(bets.encoded(reply)) == reply
    assert json.loads(bets.encoded({"v": 1, "error": "bad_input", "detail": "d"})) == {"v": 1, "error": "bad_input",
                                                                                      "detail": "d"}


def test_only_a_result_handed_out_the_first_time_tells_the_balances_its_credits_left():
    """A result handed out again (a process died before its ack) or settled by the
    backstop may find its credits made long ago: the wallet answers each as it
    did, with the balance of back then, which no page is told (it asks)."""
    import asyncio
    from types import SimpleNamespace

    from tablesim.platform.settle import Settler, _first_delivery
    from tablesim.wallet.client import Outcome
    from tablesim.wallet.protocol import Status

    told: list[tuple] = []

    class Batcher:
        async def write(self, request):
            status = Status.OK if request[1]["player"] != "no" else Status.FINAL_ERROR
            return Outcome(status, request[1]["transaction_id"], Decimal("1045.5"), None, None)

    settler = Settler(js_source=None, nc_source=None, wallet=None, follower=None, offers={"WHEEL-01": OFFER},
                      held=SimpleNamespace(hold=lambda *a: False))
    settler.batcher, settler.on_balance = Batcher(), lambda *got: told.append(got)
    rnd = Round("WHEEL-01", "WHEEL-01-000001")
    credit = ("credit", {"transaction_id": "c-1", "player": "ann"})
    asyncio.run(settler._write(rnd, credit))
    asyncio.run(settler._write(rnd, ("credit", {"transaction_id": "c-2", "player": "no"}), True))
    assert told == []
    asyncio.run(settler._write(rnd, credit, True))
    assert told == [("ann", "MOP", Decimal("1045.5"))]
    delivered = lambda n: SimpleNamespace(metadata=SimpleNamespace(num_delivered=n))  # noqa: E731
    assert _first_delivery(delivered(1)) and not _first_delivery(delivered(2))
    assert not _first_delivery(SimpleNamespace(reply=""))  # (no metadata to read: not told)
