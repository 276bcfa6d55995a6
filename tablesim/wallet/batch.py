"""The ``batch`` call: many writes in one signed request, each answered as if
it had been sent alone.

A request::

    {"request_id": "b-1", "calls": [{"call": "debit", "request": {...a debit's own body...}}, ...]}

and its answer, once every write of it is committed::

    {"status": "ok", "request_id": "b-1", "answers": [{...the answer the write alone gets...}, ...], "message": null}

Each write keeps its own transaction id and its idempotency: a write sent
again, alone or in another batch, gets its kept answer; a bad write is
answered ``invalid_request`` in its place and the others are done. The
batch itself is no write (nothing is kept under its ``request_id``): a
repeated batch is its writes repeated. What makes it one request is only
the HTTP exchange and its signature (and, in the reference wallet, one
commit): a batch the ledger cannot commit is answered ``temporary_error``
whole, none of its writes done.
"""

from __future__ import annotations

import json

from tablesim.wallet import protocol as p

#: the most writes in one batch
MAX_CALLS = 500
#: the largest batch body a wallet reads (a credit names up to 100 debits)
MAX_BODY = 1024 * 1024
#: the calls a batch may hold: the writes (a read has nothing to gain from one)
WRITES = ("debit", "credit", "cancel")


def parse(data: dict) -> tuple[str, list]:
    """(the batch's request id, each write's record or its ``Refused``);
    ``Refused`` raised for a batch that is no batch."""
    request_id = data.get("request_id")
    if not isinstance(request_id, str) or not p.ID.fullmatch(request_id):
        raise p.Refused(p.Status.INVALID_REQUEST, f"batch: request_id: {p._show(request_id)} is not an id")
    extra = sorted(set(data) - {"request_id", "calls"})
    if extra:
        raise p.Refused(p.Status.INVALID_REQUEST, f"batch: {extra[0]}: not a field of this call")
    calls = data.get("calls")
    if not isinstance(calls, list) or not 1 <= len(calls) <= MAX_CALLS:
        raise p.Refused(p.Status.INVALID_REQUEST, f"batch: calls: expected a list of 1 to {MAX_CALLS} calls")
    return request_id, [_item(item, i) for i, item in enumerate(calls)]


def _item(item: object, index: int):
    where = f"batch: calls.{index}"
    # (its two keys, without a set made an item)
    if not (isinstance(item, dict) and len(item) == 2 and "call" in item and "request" in item
            and isinstance(item["request"], dict)):
        return p.Refused(p.Status.INVALID_REQUEST, f"{where}: expected {{\"call\": NAME, \"request\": {{...}}}}")
    if item["call"] not in WRITES:
        return p.Refused(p.Status.INVALID_REQUEST, f"{where}: call: {p._show(item['call'])} is not one of "
                         f"{', '.join(WRITES)}")
    if item["call"] == "debit":  # (most of a batch: read at once when plainly right)
        quick = p.quick_debit(item["request"])
        if quick is not None:
            return quick
    try:
        return p.parse(item["call"], item["request"])
    except p.Refused as refusal:
        return refusal


def encode(request_id: str, answers: list[bytes]) -> bytes:
    """The batch's answer around its writes' answers, each exactly the bytes
    it has alone (a kept answer is embedded as kept)."""
    return (b'{"status":"ok","request_id":' + json.dumps(request_id).encode("ascii") + b',"answers":['
            + b",".join(answers) + b'],"message":null}')


def answers_of(items: list, results: list) -> list[bytes]:
    """Each write's answer: its refusal, or what the ledger answered it;
    a failed commit (every result the same exception) is raised."""
    done = iter(results)
    out: list[bytes] = []
    for item in items:
        got = item if isinstance(item, p.Refused) else next(done)
        if isinstance(got, p.Refused):
            out.append(p.error_answer(got.status, got.message))
        elif isinstance(got, BaseException):
            raise got
        else:
            out.append(got[1])
    return out
