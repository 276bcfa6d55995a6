"""The WebSocket stream ``/ws``: a whole round of each game, as it happens,
and a client that comes back gets what it missed."""

from __future__ import annotations

import json
import time

import pytest
from websockets.sync.client import connect

from tablesim.studio import totals

from server_helpers import BETS, ok, play_round, stop


class Client:
    def __init__(self, served, query: str = "since=&bets=each") -> None:
        # entered as a context manager (websockets >= 17.1 warns otherwise); closed by close()
        self.ws = connect(served.url.replace("http", "ws") + "/ws?" + query, open_timeout=5).__enter__()
        self.messages: list[dict] = []

    def recv(self, timeout: float = 5.0) -> dict:
        msg = json.loads(self.ws.recv(timeout=timeout))
        self.messages.append(msg)
        return msg

    def until(self, pred, timeout: float = 10.0) -> dict:
        end = time.monotonic() + timeout
        while True:
            msg = self.recv(max(end - time.monotonic(), 0.01))
            if pred(msg):
                return msg

    def events(self) -> list[dict]:
        return [m for m in self.messages if m["type"] == "event"]

    def close(self) -> None:
        self.ws.close()


def kinds(events) -> list[str]:
    return [e["kind"] for e in events]


def subsequence(wanted: list[str], got: list[str]) -> bool:
    it = iter(got)
    return all(any(k == w for k in it) for w in wanted)


EXPECTED = {
    "fortune3": ["state", "bet", "state", "state", "instruction", "card", "decision", "dealer", "settlement", "result"],
    "football": ["state", "draw_made", "draw", "bet", "state", "state", "instruction", "card", "settlement", "result"],
    "wheel": ["state", "bet", "state", "instruction", "spin_started", "revolution", "spin_result", "settlement", "result"],
}


@pytest.mark.parametrize("game", ["fortune3", "football", "wheel"])
def test_the_stream_follows_a_whole_round(serve, game):
    s = serve(game)
    c = Client(s)
    hello = c.recv()
    assert hello["type"] == "hello" and hello["table"]["state"] == "idle" and not hello["reset"]
    # the stream of the journal, the same across restarts, and not where the journal is
    assert hello["stream_id"].startswith("journal:") and str(s.journal_path.parent) not in json.dumps(hello)
    result = play_round(s)
    c.until(lambda m: m["type"] == "event" and m["kind"] == "result")
    events = c.events()
    assert subsequence(EXPECTED[game], kinds(events)), kinds(events)
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs) and seqs[0] > hello["seq"]
    assert {e["round_id"] for e in events} == {result["round_id"]}
    states = [e["data"]["state"] for e in events if e["kind"] == "state"]
    assert states[0] == ("drawing" if game == "football" else "betting_open") and "bets_closed" in states
    assert states[-1] == "complete"
    # each bet is said, never its player or amount (a player's stake): the spots' totals are the snapshot's
    bets = [e["data"] for e in events if e["kind"] == "bet"]
    if game == "wheel":  # (its positions are its players)
        assert bets == [{"bet": b} for _, b, _ in BETS[game]]
    else:
        assert bets == [{"position": p, "bet": b} for p, b, _ in BETS[game]]
    final = [e for e in events if e["kind"] == "result"][0]["data"]
    assert final["status"] == "settled" and "players" not in final
    assert final["net"] == ({"all": totals.total(result["net"].values())} if game == "wheel" else result["net"])
    if game == "fortune3":
        assert any(e["data"]["text"].startswith("card 1 to box 3") for e in events if e["kind"] == "instruction")
    if game == "football":
        draw = [e for e in events if e["kind"] == "draw"][0]["data"]
        assert draw["draw"] == final["outcome"]["draw"] and draw["upper"] == final["outcome"]["upper"]
    if game == "wheel":
        spin = [e for e in events if e["kind"] == "spin_result"][0]["data"]
        assert spin["symbol"] == final["outcome"]["symbol"]
    # every event carries its time, and snapshots follow the round
    assert all(e["ts"] for e in events)
    last = c.until(lambda m: m["type"] == "snapshot" and m["table"]["state"] == "complete")
    assert last["table"]["result"]["round_id"] == result["round_id"]
    c.close()


def test_the_dealer_cards_stay_hidden_until_the_reveal(serve):
    s = serve("fortune3")
    c = Client(s)
    c.recv()
    result = play_round(s)
    c.until(lambda m: m["type"] == "event" and m["kind"] == "result")
    dealt = [e["data"] for e in c.events() if e["kind"] == "card"]
    assert [d["card"] for d in dealt if d["to"] == "dealer"] == ["??"] * 3
    revealed = [e["data"] for e in c.events() if e["kind"] == "dealer"][0]
    assert revealed["cards"] == result["outcome"]["dealer"]["cards"]
    c.close()


def test_a_client_that_reconnects_gets_what_it_missed(serve):
    s = serve("football")
    c = Client(s)
    hello = c.recv()
    ok(s.post("/api/actions/open_round"))
    c.until(lambda m: m["type"] == "event" and m["kind"] == "draw")
    last = c.events()[-1]["seq"]
    c.close()
    play_round_rest(s)
    missed = ok(s.get("/api/events", params={"since": last}))["events"]
    assert kinds(missed)[-1] == "instruction" and "result" in kinds(missed)
    c2 = Client(s, f"since={last}&stream={hello['stream_id']}&bets=each")
    hello2 = c2.recv()
    assert hello2["type"] == "hello" and not hello2["reset"] and hello2["table"]["state"] == "complete"
    got = [c2.recv() for _ in missed]
    assert [m["seq"] for m in got] == [m["seq"] for m in missed]
    assert all(m["replay"] for m in got) and got[0]["seq"] > last
    # then live, with no duplicates
    ok(s.post("/api/actions/open_round"))
    live = c2.until(lambda m: m["type"] == "event")
    assert live["seq"] > got[-1]["seq"] and "replay" not in live
    c2.close()


def play_round_rest(s) -> None:
    s.wait_state("betting_open")
    ok(s.post("/api/bets", {"position": "7", "bet": "even", "amount": "3"}))
    ok(s.post("/api/actions/close_betting"))
    ok(s.post("/api/actions/deal"))
    s.wait_state("complete")


def test_since_as_the_first_message(serve):
    s = serve("wheel", journal=False)
    seq0 = s.state()["seq"]
    ok(s.post("/api/actions/open_round"))
    ok(s.post("/api/bets", {"position": "dan", "bet": "3", "amount": "4"}))
    c = Client(s, "bets=each")
    c.ws.send(json.dumps({"since": seq0}))
    hello = c.recv()
    assert hello["type"] == "hello" and hello["stream_id"].startswith("memory:")
    got = [c.recv(), c.recv(), c.recv()]
    assert kinds(got) == ["state", "instruction", "bet"] and all(m["replay"] for m in got)
    c.ws.send(json.dumps({"type": "ping"}))
    assert c.until(lambda m: m["type"] == "pong")
    c.close()


def test_after_a_restart_the_journal_fills_the_gap(serve, tmp_path):
    path = tmp_path / "shared.sqlite"
    s = serve("fortune3", journal=str(path))
    c = Client(s)
    hello = c.recv()
    play_round(s)
    c.until(lambda m: m["type"] == "event" and m["kind"] == "result")
    first_round = c.events()
    c.close()
    stop(s)
    # a new server on the same journal: its ring buffer is empty
    s2 = serve("fortune3", journal=str(path), seed=8)
    assert s2.state()["stream_id"] == hello["stream_id"]
    c2 = Client(s2, f"since={hello['seq']}&stream={hello['stream_id']}&bets=each")
    assert not c2.recv()["reset"]
    replayed = [c2.recv() for _ in first_round]
    assert [m["seq"] for m in replayed] == [m["seq"] for m in first_round]
    assert [m["kind"] for m in replayed] == [m["kind"] for m in first_round]
    assert [m["data"] for m in replayed] == [m["data"] for m in first_round]  # dealer cards hidden as live
    c2.close()


def test_without_a_journal_a_restarted_server_says_reset(serve):
    s = serve("wheel", journal=False)
    c = Client(s)
    hello = c.recv()
    c.close()
    s2 = serve("wheel", journal=False)
    c2 = Client(s2, f"since={hello['seq'] + 50}&stream={hello['stream_id']}")
    h2 = c2.recv()
    assert h2["reset"] and h2["stream_id"] != hello["stream_id"]
    c2.close()


def test_the_bet_timer_counts_down_on_the_stream(serve):
    s = serve("wheel", bet_seconds=1.2, journal=False)
    c = Client(s)
    c.recv()
    ok(s.post("/api/actions/open_round"))
    ok(s.post("/api/bets", {"position": "eve", "bet": "5", "amount": "1"}))
    c.until(lambda m: m["type"] == "event" and m["kind"] == "state" and m["data"]["state"] == "bets_closed", 5)
    ticks = [m["remaining"] for m in c.messages if m["type"] == "timer"]
    assert ticks and ticks == sorted(ticks, reverse=True) and ticks[-1] == 1 and ticks[0] <= 2, ticks
    c.close()


def test_the_ring_buffer_knows_what_it_no_longer_holds():
    from tablesim.server.stream import EventStream, event_message

    stream = EventStream("memory:x", start_seq=4, ring_size=3)
    for seq in (5, 7, 9, 11):  # journal numbers need not be consecutive
        stream.publish(event_message(seq, "state", "R-1", {"n": seq}))
    assert stream.last_seq == 11
    events, complete = stream.from_ring(7, 11)
    assert [e["seq"] for e in events] == [9, 11] and complete
    events, complete = stream.from_ring(4, 11)
    assert [e["seq"] for e in events] == [7, 9, 11] and not complete  # 5 fell out of the ring
    assert stream.from_ring(5, 9) == ([stream.ring[0], stream.ring[1]], True)
