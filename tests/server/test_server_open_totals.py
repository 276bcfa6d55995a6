"""No player on the table's open views: remote players with known ids bet
and decide, and every open route (the pages, ``GET /api/table``, history,
results, events, health, metrics) and the open WebSocket stream (coalesced
and ``bets=each``) hold none of their ids, no player's own stake and no
remote player's decision, while the totals per spot and bet, the count of
players and the decisions' counts are right. The dealer's console reads
each player's part behind its token (``GET /api/book``)."""

from __future__ import annotations

import json
import time
from decimal import Decimal
from pathlib import Path

import pytest
from websockets.sync.client import connect

from server_helpers import ok

ROOT = Path(__file__).resolve().parents[2]
#: the players, each id unlike anything else a table writes
ANN, BOB, CAT = "zq-ann-4711", "zq-bob-4712", "zq-cat-4713"
OPEN_ROUTES = ("/", "/board", "/static/game.js", "/api/table", "/api/history", "/api/results", "/api/events?since=0",
               "/api/health", "/metrics")


class Frames:
    """Every frame of one open WebSocket client, as text."""

    def __init__(self, served, query: str) -> None:
        self.ws = connect(served.url.replace("http", "ws") + "/ws?" + query, open_timeout=5).__enter__()
        self.texts: list[str] = []

    def until(self, pred, timeout: float = 30.0) -> None:
        """Read frames until one holds a message ``pred`` takes (pure waiting, generous)."""
        end = time.monotonic() + timeout
        while True:
            text = self.ws.recv(timeout=max(end - time.monotonic(), 0.01))
            self.texts.append(text)
            got = json.loads(text)
            if any(pred(m) for m in (got if isinstance(got, list) else [got])):
                return

    def messages(self) -> list[dict]:
        out = []
        for text in self.texts:
            got = json.loads(text)
            out += got if isinstance(got, list) else [got]
        return out

    def close(self) -> None:
        self.ws.close()


def result_of(msg: dict) -> bool:
    return msg.get("type") == "event" and msg.get("kind") == "result"


def no_player_in(text: str, where: str) -> None:
    for player in (ANN, BOB, CAT):
        assert player not in text, f"{where} names {player}"


@pytest.fixture
def remote_profile(tmp_path) -> str:
    text = (ROOT / "config" / "rules" / "fortune3-macau-2008-remote.toml").read_text()
    path = tmp_path / "test-remote.toml"
    path.write_text(text.replace('name = "macau-2008-remote"', 'name = "test-remote"'))
    return str(path)


def test_fortune3_open_views_show_totals_never_a_player(serve, remote_profile):
    s = serve("fortune3", pace=0.02, seed=11, profile=remote_profile)
    live, each = Frames(s, "batch=1&since="), Frames(s, "since=&bets=each")
    ok(s.post("/api/actions/open_round"))
    for body in ({"position": "remote", "bet": "ante", "amount": "10", "player": ANN},
                 {"position": "remote", "bet": "pair_plus", "amount": "5", "player": ANN},
                 {"position": "remote", "bet": "ante", "amount": "20", "player": BOB},
                 {"position": "2", "bet": "ante", "amount": "15", "player": CAT},
                 {"position": "4", "bet": "ante", "amount": "25"}):
        ok(s.post("/api/bets", body))
    betting = ok(s.get("/api/table"))
    assert betting["bets"] == {"remote": {"ante": "30", "pair_plus": "5"}, "2": {"ante": "15"}, "4": {"ante": "25"}}
    assert betting["players_count"] == 4 and "players" not in betting and betting["total_bet"] == "75"
    no_player_in(json.dumps(betting), "GET /api/table while betting")
    ok(s.post("/api/actions/close_betting"))
    ok(s.post("/api/actions/deal"))
    s.wait_state("decisions", timeout=60)
    ok(s.post("/api/actions/decide", {"box": "remote", "decision": "play", "player": ANN}))
    ok(s.post("/api/actions/decide", {"box": "remote", "decision": "fold", "player": BOB}))
    ok(s.post("/api/actions/decide", {"box": "2", "decision": "play", "player": CAT}))
    ok(s.post("/api/actions/decide", {"box": "4", "decision": "fold"}))
    done = s.wait_state("complete", timeout=60)
    live.until(result_of)
    each.until(result_of)
    live.close()
    each.close()

    # every open route and both streams: no player's id
    for route in OPEN_ROUTES:
        res = s.get(route)
        assert res.status_code == 200, (route, res.status_code)
        no_player_in(res.text, route)
    rid = done["round_id"]
    no_player_in(s.get("/api/history", params={"round": rid}).text, "GET /api/history?round=")
    for frames, name in ((live, "the stream"), (each, "the stream with bets=each")):
        no_player_in("".join(frames.texts), name)

    # no player's own stake or decision: single bets and the remote players' decisions are not said
    for frames in (live, each):
        events = [m for m in frames.messages() if m.get("type") == "event"]
        assert all(set(e["data"]) <= {"position", "bet"} for e in events if e["kind"] in ("bet", "bet_withdrawn"))
        decisions = [e["data"] for e in events if e["kind"] == "decision"]
        assert sorted(decisions, key=str) == sorted([{"box": "remote"}, {"box": "remote"},
                                                     {"box": "2", "decision": "play"},
                                                     {"box": "4", "decision": "fold"}], key=str)
    assert [m for m in each.messages() if m.get("kind") == "bet"]  # (bets=each: every bet said, not whose)

    # the totals are right: the dealer's own book (its token) sums to them
    mine = s.book()
    assert set(mine["result"]["players"]) >= {ANN, BOB, CAT}
    shown = done["result"]
    assert "players" not in shown
    assert shown["outcome"]["remote"]["decisions"] == {"play": 1, "fold": 1}
    assert shown["outcome"]["remote"]["timed_out"] == 0
    players = mine["result"]["players"]
    for position, stakes in shown["stakes"].items():
        for bet, amount in stakes.items():
            parts = [Decimal(p["stakes"].get(position, {}).get(bet, "0")) for p in players.values()]
            assert Decimal(amount) == sum(parts), (position, bet)
    assert shown["stakes"]["remote"] == {"ante": "30", "pair_plus": "5", "play": "10"}
    (board,) = ok(s.get("/api/results", params={"last": 1}))
    assert "players" not in board and board["net"] == shown["net"]
    (recalled,) = ok(s.get("/api/history", params={"round": rid}))
    assert "player_bets" not in recalled and recalled["bets"] == betting["bets"]

    # each player's part is the dealer's: behind the token
    assert s.get("/api/book").status_code == 401
    assert mine["players"] == {"remote": {ANN: {"ante": "10", "pair_plus": "5"}, BOB: {"ante": "20"}},
                               "2": {CAT: {"ante": "15"}}, "4": {"4": {"ante": "25"}}}


def test_wheel_open_views_show_totals_per_bet_never_a_player(serve):
    """At the wheel the positions are the players: the open book is the totals per bet."""
    s = serve("wheel")
    live = Frames(s, "batch=1&since=")
    ok(s.post("/api/actions/open_round"))
    for player, bet, amount in ((ANN, "1", "10"), (BOB, "1", "5"), (BOB, "joker", "2"), (CAT, "5", "3")):
        ok(s.post("/api/bets", {"position": player, "bet": bet, "amount": amount}))
    betting = ok(s.get("/api/table"))
    assert betting["bets"] == {"all": {"1": "15", "joker": "2", "5": "3"}} and betting["players_count"] == 3
    ok(s.post("/api/actions/close_betting"))
    for _ in range(20):  # a short spin is a no-spin: the dealer spins again
        ok(s.post("/api/actions/spin"))
        snap = s.wait_state("complete", "void", "bets_closed", timeout=60)
        while snap["state"] == "bets_closed" and snap["view"]["spin_requested"]:
            time.sleep(0.01)
            snap = s.state()
        if snap["state"] != "bets_closed":
            break
    done = s.wait_state("complete", "void")
    live.until(result_of)
    live.close()
    for route in OPEN_ROUTES:
        no_player_in(s.get(route).text, route)
    no_player_in("".join(live.texts), "the stream")
    full = s.book()["result"]
    shown = done["result"]
    assert "players" not in shown
    assert shown["net"] == {"all": str(sum(Decimal(v) for v in full["net"].values()))}
    assert shown["stakes"] == {"all": {"1": "15", "joker": "2", "5": "3"}}
    # the coalesced bets: a ``bets`` message, or carried by a snapshot that came first (on a loaded
    # machine the runner's snapshot can come before the coalescing's turn, and carry them all)
    bets = [m for m in live.messages() if m.get("type") == "bets"] + \
        [m["bets"] for m in live.messages() if m.get("type") == "snapshot" and "bets" in m]
    assert bets and all(set(m["spots"] or {}) <= {"all"} for m in bets)
