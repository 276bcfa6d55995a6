"""Fortune 3's shared remote hand end to end: a real nats-server, the
reference wallet process, a real Fortune 3 mock table on the profile
``macau-2008-remote`` (``tablesim serve --studio``), and platform processes.

The bus: a remote player's decision is a request/reply on
``tablesim.<table>.decisions``, answered once the journal committed it,
idempotent by ref, refused in one line when it does not fit. The platform:
``POST /api/decisions``, the Play a second debit at the decision."""

from __future__ import annotations

import asyncio
import json

import nats
import pytest

import f3rig
from natsserver import NATS_SERVER, NatsServer

TABLE = f3rig.TABLE


@pytest.fixture(scope="module")
def f3(tmp_path_factory):
    if NATS_SERVER is None:
        pytest.skip("nats-server is not installed (Debian package nats-server)")
    folder = tmp_path_factory.mktemp("f3remote")
    broker = NatsServer(folder / "nats-store").start()
    try:
        r = f3rig.F3Rig(folder, broker)
    except BaseException:
        broker.stop()
        raise
    try:
        yield r
    finally:
        r.close()
        broker.stop()


def ask(url: str, docs: list) -> list[dict]:
    """Each request in turn over the bus, its reply."""
    async def go():
        nc = await nats.connect(url)
        try:
            out = []
            for doc in docs:
                body = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
                msg = await nc.request(f"tablesim.{TABLE}.decisions", body, timeout=20)
                out.append(json.loads(msg.data))
            return out
        finally:
            await nc.close()
    return asyncio.run(go())


def test_decisions_over_the_bus(f3):
    rid = f3.open_round()
    f3.table_bet("ann", "ante", "10")
    f3.table_bet("bob", "ante", "20")
    f3.table_bet("cat", "pair_plus", "5")
    f3.table_bet("dan", "ante", "5")
    early = ask(f3.broker.url, [{"ref": "b-0", "round": rid, "player": "ann", "decision": "play"}])[0]
    assert early["ok"] is False and "decisions are taken once all hands are dealt" in early["reason"]
    state = f3.deal()
    assert state["round_id"] == rid
    d = {"round": rid, "decision": "play"}
    replies = ask(f3.broker.url, [
        {**d, "ref": "b-1", "player": "ann"},
        {**d, "ref": "b-1", "player": "ann"},  # sent again: the same answer, taken once
        {**d, "ref": "b-2", "player": "ann", "decision": "fold"},  # twice
        {**d, "ref": "b-3", "player": "cat"},  # Pair Plus only
        {**d, "ref": "b-4", "player": "eve"},  # no bet at all
        {**d, "ref": "b-5", "player": "bob", "round": "F3-other-0001"},
        {**d, "ref": "b-6", "player": "bob", "decision": "maybe"},
        {**d, "ref": "b-7", "player": "bob", "box": "1"},
        b"not json",
        {**d, "ref": "b-8", "player": "bob", "decision": "fold"},
    ])
    assert replies[0] == {"v": 1, "ok": True, "ref": "b-1", "round_id": rid, "decision": "play", "stake": "10"}
    assert replies[1] == {**replies[0], "duplicate": True}
    assert "ann already chose play" in replies[2]["reason"]
    assert "cat has no Ante on the remote hand" in replies[3]["reason"]
    assert "eve has no Ante on the remote hand" in replies[4]["reason"]
    assert f"round F3-other-0001 is not the table's round ({rid})" in replies[5]["reason"]
    assert replies[6]["error"] == "bad_input" and "decision: 'maybe' is not play or fold" in replies[6]["detail"]
    assert replies[7]["error"] == "bad_input" and "box: unknown field" in replies[7]["detail"]
    assert replies[8] == {"v": 1, "ok": False, "error": "bad_input", "detail": "the request is not JSON"}
    assert replies[9]["ok"] is True and replies[9]["stake"] is None
    for reply in replies[2:6]:
        assert reply["ok"] is False and reply["error"] == "refused" and "\n" not in reply["reason"]
    # dan never decides: the decision timer folds him and the round settles
    f3.wait_state(("complete",), "the decision timer never ran out", timeout=90)
    late = ask(f3.broker.url, [{**d, "ref": "b-9", "player": "dan"}])[0]
    assert late["ok"] is False
    result = f3.result(rid)
    remote = result["outcome"]["remote"]
    assert remote["decisions"] == {"ann": "play", "bob": "fold", "dan": "fold"} and remote["timed_out"] == ["dan"]
    assert result["players"]["dan"]["results"] == {"remote": {"ante": "-5"}}
    assert result["players"]["ann"]["stakes"]["remote"] == {"ante": "10", "play": "10"}
    again = ask(f3.broker.url, [{**d, "ref": "b-1", "player": "ann"}])[0]
    assert again["duplicate"] is True  # a retry after the round closed still finds it taken
