"""The conformance kit's cases, in the order they run (see ``kit``)."""

from __future__ import annotations

import asyncio
import json
import time
from decimal import Decimal

from tablecore.money import MONEY
from tablesim.wallet import protocol as p
from tablesim.wallet import signing
from tablesim.wallet.kit import CaseFailed, Probe, expect, moved, unchanged


async def won_round(k: Probe) -> str:
    before, r = await k.balance(), k.id("won")
    d1, d2 = k.id("d"), k.id("d")
    expect(await k.send("debit", k.debit(d1, r, k.stake())), "ok")
    expect(await k.send("debit", k.debit(d2, r, k.stake())), "ok")
    expect(await k.send("credit", k.credit(k.id("c"), r, k.stake(3), [d1, d2])), "ok")
    await moved(k, before, Decimal(k.stake()), "two debits of a stake and a credit of three")
    return "two debits, one credit naming both"


async def lost_round(k: Probe) -> str:
    before, r, d = await k.balance(), k.id("lost"), k.id("d")
    expect(await k.send("debit", k.debit(d, r, k.stake())), "ok")
    expect(await k.send("credit", k.credit(k.id("c"), r, "0", [d])), "ok")
    await moved(k, before, -Decimal(k.stake()), "a debit and a credit of 0")
    return "a credit of 0 closes it"


async def void_round(k: Probe) -> str:
    before, r = await k.balance(), k.id("void")
    d1, d2 = k.id("d"), k.id("d")
    for d in (d1, d2):
        expect(await k.send("debit", k.debit(d, r, k.stake())), "ok")
    for d in (d1, d2):
        reply = expect(await k.send("cancel", k.cancel(k.id("x"), r, d)), "ok")
        if Decimal(str(reply.answer.get("cancelled"))) != Decimal(k.stake()):
            raise CaseFailed(f"a cancel returned {reply.answer.get('cancelled')}, not {k.stake()}")
    await unchanged(k, before, "two debits, both cancelled")
    return "every debit cancelled, the balance back"


async def duplicate_debit(k: Probe) -> str:
    before, r, d = await k.balance(), k.id("dup"), k.id("d")
    first = expect(await k.send("debit", k.debit(d, r, k.stake())), "ok")
    again = await k.send("debit", k.debit(d, r, k.stake()))
    if again.body != first.body:
        raise CaseFailed(f"the repeat answered {again.body[:120]!r}, not the first answer {first.body[:120]!r}")
    await moved(k, before, -Decimal(k.stake()), "a debit sent twice")
    expect(await k.send("cancel", k.cancel(k.id("x"), r, d)), "ok")
    return "the repeat got the first answer byte for byte, one debit"


async def credit_in_parts(k: Probe) -> str:
    """More debits than one credit may name (``MAX_DEBITS``): the round is
    credited in parts, each naming its own debits; the parts add up."""
    before, r = await k.balance(), k.id("parts")
    d1, d2, d3 = k.id("d"), k.id("d"), k.id("d")
    for d in (d1, d2, d3):
        expect(await k.send("debit", k.debit(d, r, k.stake())), "ok")
    expect(await k.send("credit", k.credit(k.id("c"), r, k.stake(5), [d1, d2])), "ok")
    expect(await k.send("credit", k.credit(k.id("c"), r, "0", [d3])), "ok")
    await moved(k, before, Decimal(k.stake(2)), "three debits of a stake, credits of five and 0")
    paid = await k.balance()
    expect(await k.send("credit", k.credit(k.id("c"), r, k.stake(), [d2])), "already_settled")
    await unchanged(k, paid, "a credit naming a debit another credit named")
    return "two credits naming their own debits, both ok; a third naming a credited debit: already_settled"


async def orphan_after_credit(k: Probe) -> str:
    """A debit the credit does not name (a bet the table never took) does not
    stop the credit, and is cancelled on its own after it."""
    before, r, d, orphan = await k.balance(), k.id("orph"), k.id("d"), k.id("d")
    expect(await k.send("debit", k.debit(d, r, k.stake())), "ok")
    expect(await k.send("debit", k.debit(orphan, r, k.stake())), "ok")
    expect(await k.send("credit", k.credit(k.id("c"), r, k.stake(2), [d])), "ok")
    reply = expect(await k.send("cancel", k.cancel(k.id("x"), r, orphan)), "ok")
    if Decimal(str(reply.answer.get("cancelled"))) != Decimal(k.stake()):
        raise CaseFailed(f"the orphan's cancel returned {reply.answer.get('cancelled')}, not its stake")
    await moved(k, before, Decimal(k.stake()), "a credit of two for one debit, the other debit cancelled")
    return "the credit ok with a debit unnamed; that debit's cancel after it returned its stake"


async def duplicate_credit(k: Probe) -> str:
    before, r, d, c = await k.balance(), k.id("dupc"), k.id("d"), k.id("c")
    expect(await k.send("debit", k.debit(d, r, k.stake())), "ok")
    first = expect(await k.send("credit", k.credit(c, r, k.stake(), [d])), "ok")
    again = await k.send("credit", k.credit(c, r, k.stake(), [d]))
    if again.body != first.body:
        raise CaseFailed("the repeated credit did not get the first answer byte for byte")
    await unchanged(k, before, "a debit and its credit sent twice")
    other = await k.send("credit", k.credit(k.id("c"), r, k.stake(2), [d]))
    expect(other, "already_settled")
    await unchanged(k, before, "a second credit of the same debit")
    expect(await k.send("debit", k.debit(k.id("d"), r, k.stake())), "already_settled")
    await unchanged(k, before, "a debit into a credited round")
    return "one credit paid; another credit of its debit or a debit of the round: already_settled"


async def reused_id(k: Probe) -> str:
    before, r, d = await k.balance(), k.id("reuse"), k.id("d")
    expect(await k.send("debit", k.debit(d, r, k.stake())), "ok")
    expect(await k.send("debit", k.debit(d, r, k.stake(2))), "id_reused")
    expect(await k.send("credit", k.credit(d, r, k.stake(), [d])), "id_reused")
    await moved(k, before, -Decimal(k.stake()), "an id reused with other content")
    expect(await k.send("cancel", k.cancel(k.id("x"), r, d)), "ok")
    return "another amount, another call: id_reused"


async def credit_before_debit(k: Probe) -> str:
    before, r, d = await k.balance(), k.id("early"), k.id("d")
    expect(await k.send("credit", k.credit(k.id("c"), r, k.stake(2), [d])), "unknown_transaction")
    await unchanged(k, before, "a credit naming a debit not yet made")
    return "unknown_transaction, nothing credited"


async def cancel_after_credit(k: Probe) -> str:
    before, r, d = await k.balance(), k.id("late"), k.id("d")
    expect(await k.send("debit", k.debit(d, r, k.stake())), "ok")
    expect(await k.send("credit", k.credit(k.id("c"), r, k.stake(), [d])), "ok")
    expect(await k.send("cancel", k.cancel(k.id("x"), r, d)), "already_settled")
    await unchanged(k, before, "a cancel of a credited debit")
    return "already_settled, nothing returned"


async def cancel_unknown_debit(k: Probe) -> str:
    before, r, d = await k.balance(), k.id("tomb"), k.id("d")
    reply = expect(await k.send("cancel", k.cancel(k.id("x"), r, d)), "ok")
    if Decimal(str(reply.answer.get("cancelled"))) != 0:
        raise CaseFailed(f"cancelling an unknown debit returned {reply.answer.get('cancelled')}")
    expect(await k.send("debit", k.debit(d, r, k.stake())), "already_cancelled")
    await unchanged(k, before, "a debit after its cancel")
    expect(await k.send("cancel", k.cancel(k.id("x"), r, d)), "already_cancelled")
    return "ok (a tombstone); the later debit: already_cancelled"


async def credit_of_cancelled(k: Probe) -> str:
    before, r, d = await k.balance(), k.id("cc"), k.id("d")
    expect(await k.send("debit", k.debit(d, r, k.stake())), "ok")
    expect(await k.send("cancel", k.cancel(k.id("x"), r, d)), "ok")
    expect(await k.send("credit", k.credit(k.id("c"), r, k.stake(2), [d])), "already_cancelled")
    await unchanged(k, before, "a credit of a cancelled debit")
    return "already_cancelled, nothing credited"


async def insufficient_funds(k: Probe) -> str:
    before, r = await k.balance(), k.id("poor")
    over = format(MONEY.add(before, k.unit), "f")
    expect(await k.send("debit", k.debit(k.id("d"), r, over)), "insufficient_funds")
    await unchanged(k, before, "a debit over the balance")
    return f"a debit of {over}: insufficient_funds"


async def _refused_debit(k: Probe, what: str, status: str, **send) -> str:
    before = await k.balance()
    reply = await k.send("debit", **send)
    expect(reply, status)
    await unchanged(k, before, what)
    return f"{status}: {reply.answer.get('message')}"


async def bad_signature(k: Probe) -> str:
    body = k.debit(k.id("d"), k.id("sig"), k.stake())
    return await _refused_debit(k, "a debit signed with another secret", "bad_signature",
                                payload=body, secret=b"not-the-secret-" * 3)


async def unsigned(k: Probe) -> str:
    body = json.dumps(k.debit(k.id("d"), k.id("sig"), k.stake())).encode()
    headers = {signing.NONCE: signing.new_nonce(), "Content-Type": "application/json"}
    return await _refused_debit(k, "an unsigned debit", "bad_signature", body=body, headers=headers)


async def tampered_body(k: Probe) -> str:
    body = json.dumps(k.debit(k.id("d"), k.id("sig"), k.stake()), separators=(",", ":")).encode()
    headers = signing.request_headers(k.secret, f"{p.PREFIX}/debit", body, timestamp=int(time.time()))
    tampered = body.replace(f'"amount":"{k.stake()}"'.encode(), f'"amount":"{k.stake(2)}"'.encode())
    return await _refused_debit(k, "a debit changed after signing", "bad_signature", body=tampered, headers=headers)


async def stale_timestamp(k: Probe) -> str:
    old = await _refused_debit(k, "a debit signed 10 minutes ago", "stale_request",
                               payload=k.debit(k.id("d"), k.id("old"), k.stake()), skew=-600)
    await _refused_debit(k, "a debit signed 10 minutes ahead", "stale_request",
                         payload=k.debit(k.id("d"), k.id("old"), k.stake()), skew=600)
    return old


async def replayed_request(k: Probe) -> str:
    before, r, d = await k.balance(), k.id("replay"), k.id("d")
    body = json.dumps(k.debit(d, r, k.stake()), separators=(",", ":")).encode()
    headers = signing.request_headers(k.secret, f"{p.PREFIX}/debit", body, timestamp=int(time.time()))
    expect(await k.send("debit", body=body, headers=headers), "ok")
    expect(await k.send("debit", body=body, headers=headers), "replayed_request")
    await moved(k, before, -Decimal(k.stake()), "a request sent again with its headers")
    expect(await k.send("cancel", k.cancel(k.id("x"), r, d)), "ok")
    return "the same bytes and headers again: replayed_request"


async def concurrent_debits(k: Probe) -> str:
    before, r = await k.balance(), k.id("race")
    units = int(MONEY.divide(before, k.unit))  # a balance is a whole number of units
    piece = MONEY.multiply(Decimal(units // 4), k.unit)
    ids = [k.id("d") for _ in range(10)]
    replies = await asyncio.gather(*(k.send("debit", k.debit(d, r, format(piece, "f"))) for d in ids))
    statuses = [x.status for x in replies]
    taken = statuses.count("ok")
    if set(statuses) - {"ok", "insufficient_funds"}:
        raise CaseFailed(f"concurrent debits answered {sorted(set(statuses))}")
    can = units // (units // 4)
    if taken != can:
        raise CaseFailed(f"{taken} of 10 concurrent debits of {piece} accepted on a balance of {before}, not {can}")
    await moved(k, before, -MONEY.multiply(piece, Decimal(taken)), "concurrent debits")
    for d, reply in zip(ids, replies):
        expect(await k.send("cancel", k.cancel(k.id("x"), r, d)), "ok")
    await unchanged(k, before, "the concurrent debits cancelled")
    return f"10 at once of {piece}: {taken} accepted, the rest insufficient_funds"


async def too_many_decimals(k: Probe) -> str:
    amount = format(MONEY.add(Decimal(k.stake()), MONEY.divide(k.unit, Decimal(10))), "f")
    return await _refused_debit(k, f"a debit of {amount}", "invalid_request",
                                payload=k.debit(k.id("d"), k.id("fine"), amount))


async def negative_amount(k: Probe) -> str:
    return await _refused_debit(k, "a negative debit", "invalid_request",
                                payload=k.debit(k.id("d"), k.id("neg"), "-" + k.stake()))


async def huge_amount(k: Probe) -> str:
    return await _refused_debit(k, "a huge debit", "invalid_request",
                                payload=k.debit(k.id("d"), k.id("huge"), "1" + "0" * 30))


async def number_amount(k: Probe) -> str:
    body = json.dumps(k.debit(k.id("d"), k.id("num"), "X")).replace('"X"', "1.5").encode()
    return await _refused_debit(k, "an amount as a JSON number", "invalid_request", body=body)


async def spaced_amount(k: Probe) -> str:
    """An amount with white space around it (a space, an em space, a tab and
    a newline) is no amount: refused, nothing taken, under any of them."""
    for amount in (" " + k.stake(), k.stake() + "\u2003", "\t" + k.stake() + "\n"):
        detail = await _refused_debit(k, f"a debit of {amount!r}", "invalid_request",
                                      payload=k.debit(k.id("d"), k.id("space"), amount))
    return detail


async def unknown_field(k: Probe) -> str:
    return await _refused_debit(k, "a debit with a field the protocol lacks", "invalid_request",
                                payload=k.debit(k.id("d"), k.id("field"), k.stake(), bonus="1"))


async def unknown_player(k: Probe) -> str:
    return await _refused_debit(k, "a debit of an unknown player", "unknown_player",
                                payload=k.debit(k.id("d"), k.id("who"), k.stake(), player=f"kit-nobody-{k.run}"))


async def wrong_currency(k: Probe) -> str:
    other = "XTS" if k.currency != "XTS" else "XXX"
    return await _refused_debit(k, f"a debit in {other}", "wrong_currency",
                                payload=k.debit(k.id("d"), k.id("cur"), k.stake(), currency=other))


async def invalid_token(k: Probe) -> str:
    reply = await k.send("authenticate", {"request_id": k.id("auth"), "token": "kit-no-such-token-" + k.run})
    expect(reply, "invalid_token")
    return "invalid_token"


async def launch_token_once(k: Probe) -> str:
    """The kit's launch token opened its session at the start: another
    authenticate with it is refused; the start's own request again (as a
    caller sends it when its answer was lost) is answered again."""
    expect(await k.send("authenticate", {"request_id": k.id("auth"), "token": k.token}), "token_used")
    again = expect(await k.send("authenticate", {"request_id": k.started, "token": k.token}), "ok")
    if again.answer.get("player") != k.player:
        raise CaseFailed(f"the start's authenticate again answered player {again.answer.get('player')!r}")
    return "a second session refused token_used; the first request again: ok"


async def transactions(k: Probe) -> str:
    r, d = k.id("list"), k.id("d")
    expect(await k.send("debit", k.debit(d, r, k.stake())), "ok")
    expect(await k.send("credit", k.credit(k.id("c"), r, "0", [d])), "ok")
    expect(await k.send("credit", k.credit(k.id("d"), r, "1", [d])), "already_settled")
    reply = expect(await k.send("transactions", {"request_id": k.id("q"), "table": "kit", "round": r}), "ok")
    rows = reply.answer.get("transactions") or []
    kinds = [(row.get("kind"), row.get("status")) for row in rows]
    if kinds[:2] != [("debit", "ok"), ("credit", "ok")]:
        raise CaseFailed(f"the round lists {kinds}")
    start = rows[0].get("at")
    window = {"request_id": k.id("q"), "since": start, "until": "9999-12-31T23:59:59.999Z"}
    listed = expect(await k.send("transactions", window), "ok").answer.get("transactions") or []
    if d not in {row.get("transaction_id") for row in listed}:
        raise CaseFailed("the time window from the round's debit does not list it")
    # a won round last: the kit leaves the balance where it found it
    r2, d2 = k.id("won"), k.id("d")
    expect(await k.send("debit", k.debit(d2, r2, k.stake())), "ok")
    expect(await k.send("credit", k.credit(k.id("c"), r2, k.stake(2), [d2])), "ok")
    return f"by round: {len(rows)} rows; by time window: {len(listed)} rows"


async def _batch(k: Probe, writes: list[tuple[str, dict]]):
    """The batch's reply and its answers, or None from a wallet without the call."""
    reply = await k.send("batch", {"request_id": k.id("batch"),
                                   "calls": [{"call": call, "request": body} for call, body in writes]})
    if reply.status == "invalid_request" and reply.http == 400:
        return None  # (the call is optional: the platform then sends each write alone)
    expect(reply, "ok")
    answers = reply.answer.get("answers")
    if not isinstance(answers, list) or len(answers) != len(writes):
        raise CaseFailed(f"a batch of {len(writes)} writes was answered with {answers!r:.80}")
    return answers


async def batch_as_alone(k: Probe) -> str:
    """A won round in one batch, a write repeated in it and a bad one among
    them: each answered as alone, the balance moved once per write."""
    before, r = await k.balance(), k.id("batch")
    d1, d2, c = k.id("d"), k.id("d"), k.id("c")
    answers = await _batch(k, [("debit", k.debit(d1, r, k.stake())), ("debit", k.debit(d2, r, k.stake())),
                               ("debit", k.debit(d1, r, k.stake())), ("debit", k.debit(k.id("d"), r, k.units("0.1"))),
                               ("credit", k.credit(c, r, k.stake(3), [d1, d2]))])
    if answers is None:
        return "no batch call (optional: each write goes alone)"
    statuses = [a.get("status") for a in answers]
    if statuses != ["ok", "ok", "ok", "invalid_request", "ok"] or answers[2] != answers[0]:
        raise CaseFailed(f"the batch's answers: {statuses} (expected ok, ok, the first again, invalid_request, ok)")
    await moved(k, before, Decimal(k.stake()), "two debits (one repeated) and a credit of three in a batch")
    again = await _batch(k, [("debit", k.debit(d1, r, k.stake())), ("credit", k.credit(c, r, k.stake(3), [d1, d2]))])
    alone = await k.send("credit", k.credit(c, r, k.stake(3), [d1, d2]))
    if again != [answers[0], answers[4]] or json.loads(alone.body) != answers[4]:
        raise CaseFailed("a batch sent again (or one of its writes alone) did not get the first answers")
    await moved(k, before, Decimal(k.stake()), "the batch sent again")
    return "each write answered as alone (a repeat: its first answer; a bad one: invalid_request), moved once"


CASES = [(fn.__name__.replace("_", " "), fn) for fn in (
    won_round, lost_round, void_round, credit_in_parts, orphan_after_credit, duplicate_debit, duplicate_credit, reused_id, credit_before_debit,
    cancel_after_credit, cancel_unknown_debit, credit_of_cancelled, insufficient_funds, bad_signature, unsigned,
    tampered_body, stale_timestamp, replayed_request, concurrent_debits, too_many_decimals, negative_amount,
    huge_amount, number_amount, spaced_amount, unknown_field, unknown_player, wrong_currency, invalid_token,
    launch_token_once, transactions,
    batch_as_alone)]
