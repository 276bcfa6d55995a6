"""The player's WebSocket on a real platform process, a real wheel table on
the bus and the reference wallet: the session in the first message, the
table pushed as it plays, bets over the socket, a player's own result and
recall; bad input, floods and oversized messages refused with nothing
placed; a bet acknowledged before a disconnect stands, is settled, and the
player back (on another process) is shown the round they missed."""

from __future__ import annotations

import json

import httpx
from decimal import Decimal

import pytest

import reaper
from hostile import rss_kib

from rig import OPENING, PAYS, TABLE
from wsclient import Player
import webclient


@pytest.fixture(scope="module")
def two(_rig):
    """Two platform processes for the module's tests (starting one is what takes time);
    stopped by the module, not reaped after each test (as the rig's wallet)."""
    pair = _rig.platform(db="ws-a.db"), _rig.platform(db="ws-b.db")
    for p in pair:
        reaper._STARTED.remove(p.proc)
    yield pair
    _rig.stop_platforms()


def event(kind: str, **data):
    return lambda m: m["type"] == "event" and m["kind"] == kind and all(m["data"].get(k) == v for k, v in data.items())


def test_the_session_is_the_first_message_and_nothing_else_opens_the_socket(_rig, two):
    rig, platform = _rig, two[0]
    nobody = Player(platform.url, None, hello=False)
    nobody.send({"type": "watch", "table": TABLE})
    refusal = nobody.wait(lambda m: m["type"] == "answer")
    assert refusal["ok"] is False and refusal["status"] == "no_session"
    real = platform.session(rig.token("kim"))["session"]
    # (its last two characters changed: "00", unless they were "00" already, when the "forgery" was
    # the session itself, welcomed, and the wait for a refusal ran out: a failure 1 run in a few hundred)
    forged = Player(platform.url, real[:-2] + ("00" if real[-2:] != "00" else "11"))
    assert forged.wait(lambda m: m["type"] == "answer")["status"] == "no_session"
    kim = Player(platform.url, platform.session(rig.token("kim"))["session"])
    welcome = kim.wait(lambda m: m["type"] == "welcome")
    assert (welcome["player"], welcome["currency"], Decimal(welcome["balance"])) == ("kim", "MOP", OPENING)
    [table] = welcome["tables"]
    assert table["table"] == TABLE and table["game"] == "wheel" and "joker" in table["layout"]["bets"]
    assert table["limits"]["joker"] == {"min": "1", "max": "10000"}
    pong = kim.send({"type": "ping", "t": 1234}) or kim.wait(lambda m: m["type"] == "pong")
    assert pong["t"] == 1234 and pong["now"] > 0


def test_a_round_over_the_socket_with_own_results_and_bad_input_placing_nothing(_rig, two):
    rig, platform = _rig, two[1]
    lea, amy = (Player(platform.url, platform.session(rig.token(p))["session"]) for p in ("lea", "amy"))
    for p in (lea, amy):
        p.wait(lambda m: m["type"] == "welcome")
        p.send({"type": "watch", "table": TABLE})
        p.wait(lambda m: m["type"] == "table")
    round_id = rig.open_round()
    for p in (lea, amy):
        p.wait(event("state", state="betting_open"))
    placed = lea.ask("bet", table=TABLE, bet="5", amount="20")
    assert placed["ok"] and placed["status"] == "placed" and Decimal(placed["balance"]) == OPENING - 20, placed
    assert amy.ask("bet", table=TABLE, bet="joker", amount="1")["ok"]
    for bad, status in ((dict(bet="5", amount=20.0), "bad_input"), (dict(bet="5", amount="-1"), "bad_input"),
                        (dict(bet="5", amount="10", player="amy"), "bad_input"),
                        (dict(bet="5", amount="5000000"), "bad_input"), (dict(bet="7", amount="10"), "refused_by_table")):
        got = lea.ask("bet", table=TABLE, **bad)
        assert got["ok"] is False and got["status"] == status and "\n" not in got["message"], (bad, got)
    # a decision at a wheel: nothing to decide there, refused in one line (nothing debited: the balance check below)
    decided = lea.ask("decide", table=TABLE, round=round_id, decision="play")
    assert decided["ok"] is False and decided["status"] == "not_deciding" and "\n" not in decided["message"], decided
    lea.send("x" * 5000)
    assert lea.wait(lambda m: m["type"] == "answer" and m["id"] is None)["status"] == "too_large"
    lea.send("{not json")
    assert lea.wait(lambda m: m["type"] == "answer" and m["id"] is None)["status"] == "bad_input"
    for _ in range(60):  # a flood: over the socket's rate, refused, nothing placed for those
        lea.send({"type": "bet", "table": TABLE, "bet": "1", "amount": "1"})
    flood = [lea.wait(lambda m: m["type"] == "answer" and m["id"] is None) for _ in range(60)]
    limited = [m for m in flood if m["status"] == "rate_limited"]
    busy = [m for m in flood if m["status"] == "busy"]  # (more than a socket may have waiting at once)
    ones = len([m for m in flood if m["status"] == "placed"])
    assert limited and ones + len(limited) + len(busy) == 60 and "\n" not in limited[0]["message"]
    symbol = rig.spin()
    for p in (lea, amy):
        out = p.wait(lambda m: m["type"] == "outcome")
        assert out["outcome"]["symbol"] == symbol and out["round_id"] == round_id
        # (with the game's short result: the page's roadmap keeps it as it is, naming no game)
        assert out["short"] == {"status": "settled", "symbol": symbol}
    mine = lea.wait(lambda m: m["type"] == "result")
    returned = Decimal(120 if symbol == "5" else 0) + Decimal(2 * ones if symbol == "1" else 0)
    five = next(b for b in mine["bets"] if b["bet"] == "5")
    assert five["amount"] == "20" and five["net"] == ("100" if symbol == "5" else "-20")
    assert Decimal(mine["returned"]) == returned and "amy" not in json.dumps(mine)
    lea.send({"type": "recall"})
    recall = lea.wait(lambda m: m["type"] == "recall")["rounds"]
    assert recall[0]["round_id"] == round_id and recall[0]["outcome"]["symbol"] == symbol
    # what was refused placed nothing: lea's debits are the bet of 20, the refused spot's (cancelled), the placed ones
    rows = [r for r in rig.transactions(round_id) if r[2] == "lea"]
    assert sorted(r[3] for r in rows if r[1] == "debit") == sorted(["20.00", "10.00"] + ["1.00"] * ones)
    assert [r[3] for r in rows if r[1] == "cancel"] == ["10.00"]
    want = OPENING - 20 - ones + returned
    rig.wait_for(lambda: rig.wallet_balance("lea") == want, what=f"lea's balance {want}")
    # the balance her credit left, told to her page by whichever process settled the round (the page
    # asks the wallet only if no such word came)
    told = next((m for m in lea.seen if m["type"] == "balance"), None) or lea.wait(lambda m: m["type"] == "balance")
    assert (Decimal(told["balance"]), told["currency"]) == (want, "MOP"), told
    amy_told = next((m for m in amy.seen if m["type"] == "balance"), None) or amy.wait(lambda m: m["type"] == "balance")
    assert Decimal(amy_told["balance"]) == rig.wallet_balance("amy")
    assert not any(m["type"] == "balance" and Decimal(m["balance"]) == want for m in amy.seen)  # (hers, not lea's)


def test_a_bet_acknowledged_before_a_disconnect_stands_and_the_missed_round_is_shown(_rig, two):
    rig, (first, second) = _rig, two
    session = first.session(rig.token("ada"))["session"]
    ada = Player(first.url, session)
    welcome = ada.wait(lambda m: m["type"] == "welcome")
    seen = max([r["seq"] for r in welcome["recall"]], default=0)
    before = Decimal(welcome["balance"])
    round_id = rig.open_round()
    stakes = {s: "2" for s in PAYS}  # one of them wins whatever the wheel says
    for spot, amount in stakes.items():
        assert ada.ask("bet", table=TABLE, bet=spot, amount=amount)["status"] == "placed"
    ada.close()  # gone mid-round, before the spin
    symbol = rig.spin()
    rig.wait_for(lambda: round_id in [r["round_id"] for r in webclient.get(
        f"{second.url}/api/recall", headers={"Authorization": f"Bearer {session}"}, timeout=5).json()["rounds"]],
        what="the other process read the result")
    back = Player(second.url, session, seen=seen)  # to another process, the same session
    again = back.wait(lambda m: m["type"] == "welcome")
    assert round_id in again["missed"]
    missed = next(r for r in again["recall"] if r["round_id"] == round_id)
    assert missed["outcome"]["symbol"] == symbol and len(missed["bets"]) == len(PAYS)
    returned = Decimal(stakes[symbol]) * (1 + PAYS[symbol])
    assert Decimal(missed["returned"]) == returned
    want = before - 14 + returned
    rig.wait_for(lambda: rig.wallet_balance("ada") == want, what="ada settled")
    assert Decimal(back.ask("balance")["balance"]) == want


# --- the hub's sending, on real sockets (no table needed) ---------------------------------------

def _hub():
    from tablesim.platform.player.hub import Hub, tap
    from tablesim.platform.rounds import Rounds
    from tablesim.platform.tables import Offer

    rounds = Rounds()
    hub = Hub({"WHEEL-1": Offer("WHEEL-1", "MOP", Decimal(1), "player", Decimal(10000), game="wheel"),
               "WHEEL-2": Offer("WHEEL-2", "MOP", Decimal(1), "player", Decimal(10000), game="wheel")}, rounds)
    tap(rounds, hub)
    return rounds, hub


def _state(seq: int, state: str, previous: str, table: str = "WHEEL-1"):
    from tablesim.studio.wire import WireRecord

    return WireRecord(seq, table, "R-1", "event", "state", {"state": state, "previous": previous}, "", "", b"",
                      "2026-12-02T07:00:00.000000+00:00")


def test_a_message_far_over_the_limit_is_never_held_and_closes_the_socket_1009(_rig, two):
    """Anyone may open the socket (the session is its first message): a
    message of a megabyte is refused at its frame's header, before the
    platform reads it into memory (close 1009, read by the client), where
    one a little over the limit gets the polite answer (above); the RSS
    stays put, and the next player is served."""
    from websockets.exceptions import ConnectionClosed

    from tablesim.platform.player.socket import MAX_FRAME

    platform = two[0]
    before = rss_kib(platform.proc.pid)
    for _ in range(3):
        nobody = Player(platform.url, None, hello=False)
        with pytest.raises(ConnectionClosed) as closed:
            nobody.send("x" * (1024 * 1024))
            nobody.wait(lambda m: False, timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
        nobody.close()
    assert rss_kib(platform.proc.pid) - before < 20 * 1024
    assert MAX_FRAME < 1024 * 1024
    kim = Player(platform.url, platform.session(_rig.token("kim"))["session"])
    assert kim.wait(lambda m: m["type"] == "welcome")["player"] == "kim"
    kim.close()


def test_the_whole_lobby_goes_only_to_players_in_it_and_a_table_sends_its_line_when_it_changed():
    rounds, hub = _hub()
    at_table, in_lobby = hub.join("ann"), hub.join("abe")
    hub.watch(at_table, "WHEEL-1")
    got = lambda c: [json.loads(c.queue.get_nowait()) for _ in range(c.queue.qsize())]  # noqa: E731
    rounds.apply(_state(1, "betting_open", "idle"), 1)
    first = got(at_table)
    assert [m["type"] for m in first] == ["event", "lobby"]
    assert [t["table"] for t in first[1]["tables"]] == ["WHEEL-1"] and first[1]["tables"][0]["players"] == 1
    lobby = got(in_lobby)
    assert [m["type"] for m in lobby] == ["lobby"] and {t["table"] for t in lobby[0]["tables"]} == {"WHEEL-1", "WHEEL-2"}
    rounds.apply(_state(2, "bets_closed", "betting_open"), 2)
    assert [m["type"] for m in got(at_table)] == ["event"]  # (nothing of the lobby changed that it does not see)
    assert [m["type"] for m in got(in_lobby)] == ["lobby"]
    rounds.apply(_state(1, "betting_open", "idle", table="WHEEL-2"), 3)
    assert got(at_table) == []  # another table's change: not its business


def test_a_tables_messages_are_framed_once_written_together_and_a_player_far_behind_is_dropped():
    """On the platform's own server a player's frames go straight to its
    connection: what the table shows in one turn of the loop is one write
    of the same bytes to every watcher, and a connection holding more than
    its bound unsent is dropped, never waited for."""
    import asyncio
    import socket as sockets
    from types import SimpleNamespace

    from tablesim.web.wsframes import Wire

    async def run():
        loop = asyncio.get_running_loop()
        rounds, hub = _hub()
        pairs, clients = [], []
        for name, behind in (("ann", 1 << 20), ("amy", 1 << 20), ("abe", 64 << 10)):
            mine, theirs = sockets.socketpair()
            theirs.setsockopt(sockets.SOL_SOCKET, sockets.SO_RCVBUF, 4096)
            mine.setsockopt(sockets.SOL_SOCKET, sockets.SO_SNDBUF, 4096)  # (a slow link: backs up soon)
            transport, _ = await loop.connect_accepted_socket(asyncio.Protocol, mine)
            transport.set_write_buffer_limits(high=behind)  # (the protocol is not paused below the bound)
            protocol = SimpleNamespace(transport=transport, close_sent=False, disconnected=False)
            client = hub.join(name, Wire(protocol, behind=behind))
            hub.watch(client, "WHEEL-1")
            pairs.append(theirs)
            clients.append(client)
        rounds.apply(_state(1, "betting_open", "idle"), 1)
        rounds.apply(_state(2, "bets_closed", "betting_open"), 2)
        await asyncio.sleep(0.1)
        read = []
        for theirs in pairs[:2]:
            theirs.setblocking(False)
            read.append(theirs.recv(1 << 16))
        assert read[0] == read[1] and read[0][0] == 0x81  # the same frames, unmasked text frames
        texts, at = [], 0
        while at < len(read[0]):
            size, head = read[0][at + 1], 2
            if size == 126:  # (RFC 6455: a 16-bit length follows)
                size, head = int.from_bytes(read[0][at + 2:at + 4], "big"), 4
            texts.append(json.loads(read[0][at + head:at + head + size]))
            at += head + size
        assert [(m["type"], m.get("data", {}).get("state")) for m in texts] == \
            [("event", "betting_open"), ("event", "bets_closed"), ("lobby", None)]
        big = "x" * 4000  # abe never reads: past 64 kB behind it is let go, the others not
        for seq in range(3, 300):
            hub._send(clients[2], json.dumps({"type": "pad", "seq": seq, "x": big}))
        assert clients[2].gone == "too_slow" and clients[2] not in hub.clients and hub.counts["dropped"] == 1
        assert not clients[0].gone and not clients[1].gone
        for theirs in pairs:
            theirs.close()

    asyncio.run(run())
