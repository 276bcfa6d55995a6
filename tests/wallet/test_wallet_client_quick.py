"""The wallet client's quick ways for a batch of debits: the body written by
hand is byte for byte the encoder's (hostile texts too), an answer's amount
is read as ``read_amount`` reads it, an outcome is what it was."""

from __future__ import annotations

import dataclasses
import json
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from examples import examples
from tablecore.money import read_amount
from tablesim.wallet import client as c
from tablesim.wallet.client import Outcome, cancel_request, credit_request, debit_request
from tablesim.wallet.protocol import Status

D = Decimal
FIELDS = ("transaction_id", "player", "currency", "amount", "table", "round")
#: what JSON escapes or writes otherwise: quotes, backslashes, controls, DEL, past ASCII, a lone surrogate
HOSTILE = st.text(alphabet=st.sampled_from('"\\\x00\x1f\x7f\x80é€\U0001f600\ud800 a-:/{}[],'), max_size=6)
TEXT = st.one_of(st.from_regex(r"[A-Za-z0-9._:/-]{1,20}", fullmatch=True), HOSTILE, st.text(max_size=8))
ODD = st.one_of(TEXT, st.none(), st.integers(), st.booleans(), st.lists(st.text(max_size=2), max_size=2))


def _encoded(request_id, writes, pending) -> bytes:
    calls = [{"call": writes[i][0], "request": writes[i][1]} for i in pending]
    return json.dumps({"request_id": request_id, "calls": calls}, separators=(",", ":")).encode()


def _debit(i: int, player="p1", amount=D("10.50")) -> tuple[str, dict]:
    return debit_request(f"d-{i}", player=player, currency="MOP", amount=amount, table="T1", round="R-1")


def test_a_plain_batch_of_debits_is_the_encoders_bytes_and_the_pending_only(monkeypatch):
    writes = [_debit(i, amount=D(a)) for i, a in enumerate(("10", "10.00", "0.01", "123456789012.5"))]
    expected = {tuple(pending): _encoded("b-1", writes, pending) for pending in ([0], [0, 1, 2, 3], [1, 3], [])}
    monkeypatch.setattr(c, "_encode", None)  # (written by hand: the encoder is not asked)
    for pending, body in expected.items():
        assert c.batch_body("b-1", writes, list(pending)) == body
    assert json.loads(c.batch_body("b-1", writes, [2]))["calls"] == [{"call": "debit", "request": writes[2][1]}]


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(FIELDS), ODD), max_size=3), TEXT, st.integers(0, 3),
       st.sampled_from(["debit", "credit", "cancel", "x"]), st.booleans())
def test_any_batch_is_the_encoders_bytes(changes, request_id, n, other, reorder):
    """Hostile texts, texts of another type, a field missing, added or out of
    place, a write of another kind: the hand-written body or the encoder's,
    the same bytes either way (or the same error)."""
    writes = [_debit(i) for i in range(n + 1)]
    at = n // 2
    body = dict(writes[at][1])
    for field, value in changes:
        body[field] = value
    if reorder:
        body = dict(reversed(body.items()))
    if other != "debit":
        writes.append((other, body))
    else:
        writes[at] = ("debit", body)
    pending = list(range(len(writes)))
    try:
        expected = _encoded(request_id, writes, pending)
    except (TypeError, UnicodeEncodeError) as exc:
        with pytest.raises(type(exc)):
            c.batch_body(request_id, writes, pending)
        return
    assert c.batch_body(request_id, writes, pending) == expected


def test_credits_and_cancels_go_by_the_encoder():
    writes = [_debit(1), credit_request("c-1", player="p1", currency="MOP", amount=D("5"), table="T1", round="R-1",
                                        debits=["d-1"]),
              cancel_request("x-1", player="p1", table="T1", round="R-1", debit="d-1")]
    assert c.batch_body("b", writes, [0, 1, 2]) == _encoded("b", writes, [0, 1, 2])


AMOUNT_TEXT = st.one_of(st.from_regex(r"[0-9]{1,14}(\.[0-9]{0,14})?", fullmatch=True),
                        st.text(alphabet="0123456789.-+eE _nNaI\u0660 ", max_size=16))


@settings(max_examples=examples(500), deadline=None)
@given(AMOUNT_TEXT)
def test_an_answers_amount_is_read_as_read_amount_reads_it(text):
    _read_as_read_amount(text)


def test_an_answers_amount_of_no_text():
    assert c._amount(None) is None
    for odd in (1.5, True, [], {}, 7, D("2.50")):  # (not a text: read by ``read_amount`` itself)
        _read_as_read_amount(odd)


def _read_as_read_amount(value) -> None:
    """``c._amount(value)`` is ``read_amount(value)``: the same Decimal, or ValueError too."""
    try:
        expected = read_amount(value)
    except ValueError:
        with pytest.raises(ValueError):
            c._amount(value)
        return
    got = c._amount(value)
    assert type(got) is Decimal and got.as_tuple() == expected.as_tuple()


def test_the_usual_amount_text_is_as_before():
    for amount in (D("10"), D("10.00"), D("0.5"), D("1E+1"), D("-0"), 5):
        assert c._text(amount) == format(Decimal(amount), "f")
    for odd in (1.5, True, "10"):
        with pytest.raises(TypeError):
            c._text(odd)


def test_an_outcome_is_immutable_and_compares_by_its_fields():
    out = Outcome(Status.OK, "w3", D("1015.50"), None)
    assert out == Outcome(Status.OK, "w3", D("1015.50"), None, None) and out.cancelled is None and out.ok
    assert not Outcome(Status.INSUFFICIENT_FUNDS, "w3", None, "no").ok
    with pytest.raises(AttributeError):
        out.balance = D(0)  # type: ignore[misc]
    assert not dataclasses.is_dataclass(out) and hash(out) == hash(Outcome(Status.OK, "w3", D("1015.50"), None))


class _Wallet:
    """A pool that answers each batch with the next of ``answers`` (a write's answer by its id), signed."""

    def __init__(self, secret: bytes, answers: list) -> None:
        self.secret, self.answers, self.bodies = secret, answers, []

    async def post(self, path, body, headers):
        from tablesim.wallet import signing
        from tablesim.wallet.http import Answer
        self.bodies.append(json.loads(body))
        said = self.answers.pop(0)
        out = json.dumps({"status": "ok", "request_id": self.bodies[-1]["request_id"],
                          "answers": [said(call["request"]) for call in self.bodies[-1]["calls"]],
                          "message": None}).encode()
        ts, nonce = "1700000000", headers[signing.NONCE]
        return Answer(200, {"x-wallet-timestamp": ts,
                            "x-wallet-signature": signing.sign(self.secret, signing.answer_message(ts, nonce, out))}, out)

    async def aclose(self):
        pass


def test_a_batchs_answers_each_its_outcome_or_error_and_counted_by_kind():
    """ok, refused for funds, a refusal of the write itself, a temporary error
    (sent again alone, with the same id): each its own result, as before."""
    import asyncio

    def first(req):
        tid = req["transaction_id"]
        return {"d-0": {"status": "ok", "transaction_id": tid, "balance": "990.00", "message": None},
                "d-1": {"status": "insufficient_funds", "transaction_id": tid, "balance": "5", "message": "poor"},
                "d-2": {"status": "id_reused", "transaction_id": tid, "balance": None, "message": "again"},
                "d-3": {"status": "temporary_error", "transaction_id": tid, "balance": None, "message": "later"}}[tid]

    def second(req):
        return {"status": "ok", "transaction_id": req["transaction_id"], "balance": "0001.5E0"[:6],
                "message": None}

    async def go():
        told = []
        w = c.WalletClient("http://127.0.0.1:1", b"k" * 32, max_wait=0.01)
        w._http = _Wallet(b"k" * 32, [first, second])
        w.observer = lambda *a: told.append(a[:2] + a[3:])
        got = await w.batch([_debit(i) for i in range(4)], request_id="b-1")
        return got, told, w._http.bodies

    got, told, bodies = asyncio.run(go())
    assert got[0] == Outcome(Status.OK, "d-0", D("990.00"), None) and type(got[0]) is Outcome
    assert got[1] == Outcome(Status.INSUFFICIENT_FUNDS, "d-1", D("5"), "poor")
    assert isinstance(got[2], c.WalletRefused) and got[2].status is Status.ID_REUSED
    assert got[3] == Outcome(Status.OK, "d-3", D("0001.5"), None) and str(got[3].balance) == "1.5"
    assert [[call["request"]["transaction_id"] for call in b["calls"]] for b in bodies] == [
        ["d-0", "d-1", "d-2", "d-3"], ["d-3"]]
    assert told == [("batch", "ok"), ("debit", "ok", 2), ("debit", "insufficient_funds", 1),
                    ("debit", "id_reused", 1)]
