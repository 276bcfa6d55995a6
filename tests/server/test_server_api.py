"""The HTTP API of ``tablesim serve``: every endpoint, and every refusal
leaves the table and the journal exactly as they were."""

from __future__ import annotations

import json
import time

import pytest
from click.testing import CliRunner

from drivers.mock import MockFault
from tablesim.cli.main import cli
from tablesim.games import registry
from tablesim.web import opentotals
from tablesim.server.auth import Operator, TokenStore

from server_helpers import BETS, ok, play_round

GAMES = ("fortune3", "football", "wheel")


def open_betting(s) -> dict:
    ok(s.post("/api/actions/open_round"))
    return s.wait_state("betting_open")


# --- reading ---------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_table_view_of_each_game(serve, game):
    s = serve(game)
    snap = ok(s.get("/api/table"))
    assert snap["game"] == game and snap["state"] == "idle" and snap["round_id"] == ""
    assert snap["paused"] is False and snap["incident"] is None and snap["bets"] == {}
    assert snap["mock"] is True and snap["journal"] == s.journal_path.name  # (not where it is)
    assert all(d["ok"] for d in snap["devices"]) and snap["devices"]
    assert set(snap["limits"]) == set(snap["layout"]["bets"])
    assert {"min": "1", "max": "10000"} in snap["limits"].values()
    names = {a["name"]: a for a in snap["actions"]}
    assert names["open_round"]["enabled"] and not names["close_betting"]["enabled"]
    assert names["void"]["role"] == "supervisor" and names["pause"]["role"] == "dealer"
    if game == "fortune3":
        assert snap["layout"]["positions"] == [str(b) for b in range(1, 8)] and snap["layout"]["dealer"]
        assert {"deal", "decide", "misdeal"} <= set(names)
    elif game == "football":
        assert snap["layout"]["positions"] == [str(b) for b in range(1, 11)] + ["common"]
        assert "deal" in names and snap["view"]["draw"] is None
    else:
        assert [s["name"] for s in snap["layout"]["symbols"]] == ["1", "3", "5", "10", "20", "joker", "logo"]
        assert len(snap["layout"]["wheel"]) == 52 and {"spin", "no_spin"} <= set(names)


def test_pages_and_static_files_are_served(serve):
    s = serve("fortune3", journal=False)
    for path, kind in (("/", "text/html"), ("/board", "text/html"), ("/static/console.js", "javascript"),
                       ("/static/board.js", "javascript"), ("/static/common.js", "javascript"),
                       ("/static/style.css", "text/css")):
        res = s.get(path)
        assert res.status_code == 200 and kind in res.headers["content-type"], path
    assert "default-src 'self'" in s.get("/").headers["content-security-policy"]
    assert ok(s.get("/api/health")) == {"ok": True, "table_id": "F3-MOCK", "game": "fortune3", "journal": None}
    assert "/api/bets" in ok(s.get("/api/openapi.json"))["paths"]


@pytest.mark.parametrize("game", GAMES)
def test_the_table_serves_its_games_own_piece(serve, game):
    s = serve(game, journal=False)
    res = s.get("/static/game.js")
    assert res.status_code == 200 and "javascript" in res.headers["content-type"]
    assert res.text == registry.spec(game).console_piece_file().read_text()


def test_whoami_names_the_operator(serve):
    s = serve("wheel", journal=False)
    assert ok(s.client.get("/api/whoami", headers=s.auth("supervisor"))) == {
        "name": "mock-supervisor", "role": "supervisor", "actor": "supervisor:mock-supervisor"}
    assert s.client.get("/api/whoami").status_code == 401


# --- bets ------------------------------------------------------------------------------------


def test_bets_are_placed_and_withdrawn_and_journaled_with_the_operator(serve):
    s = serve("fortune3")
    open_betting(s)
    assert ok(s.post("/api/bets", {"position": 3, "bet": "ante", "amount": 10}))["bets"] == {"3": {"ante": "10"}}
    assert ok(s.post("/api/bets", {"position": "3", "bet": "ante", "amount": "2.00"}))["bets"] == {"3": {"ante": "12"}}
    ok(s.post("/api/bets", {"position": "5", "bet": "pair_plus", "amount": "5"}))
    res = s.client.delete("/api/bets/5/pair_plus", headers=s.auth())
    assert ok(res)["bets"] == {"3": {"ante": "12"}}
    assert s.state()["bets"] == {"3": {"ante": "12"}} and s.state()["total_bet"] == "12"
    inputs = [(name, actor) for _, kind, name, actor in s.records() if kind == "input"]
    assert inputs == [("open_round", "dealer:mock-dealer")] + [("place_bets", "dealer:mock-dealer")] * 3 + [
        ("withdraw_bet", "dealer:mock-dealer")]


@pytest.mark.parametrize(
    "body, reason",
    [
        ({"position": "3", "bet": "ante", "amount": "10001"}, "over the table limit 10000"),
        ({"position": "3", "bet": "ante", "amount": "2.50"}, "not a whole multiple of the table's betting unit 1"),
        ({"position": "5", "bet": "ante", "amount": "0.5"}, "under the table minimum 1"),
        ({"position": "8", "bet": "ante", "amount": "10"}, "box '8' does not exist"),
        ({"position": "3", "bet": "play", "amount": "10"}, "unknown bet 'play'"),
    ],
)
def test_a_bet_the_table_refuses_is_409_and_changes_nothing(serve, body, reason):
    s = serve("fortune3")
    open_betting(s)
    ok(s.post("/api/bets", {"position": "3", "bet": "ante", "amount": "1"}))
    before, records = s.state(), s.records()
    res = s.post("/api/bets", body)
    assert res.status_code == 409
    assert res.json()["action"] == "bet" and reason in res.json()["reason"]
    assert s.records() == records
    after = s.state()
    assert after["bets"] == before["bets"] == {"3": {"ante": "1"}} and after["seq"] == before["seq"]


def test_players_bet_on_the_common_box_each_within_their_own_limit(serve):
    """Bets name their players; each has their own limit; the
    journal and the snapshot keep whose bet is whose."""
    s = serve("football")
    open_betting(s)
    ok(s.post("/api/bets", {"position": "common", "bet": "odd", "amount": "10000", "player": "ann"}))
    ok(s.post("/api/bets", {"position": "common", "bet": "odd", "amount": "10000", "player": "bob"}))
    over = s.post("/api/bets", {"position": "common", "bet": "odd", "amount": "1", "player": "ann"})
    assert over.status_code == 409 and over.json()["reason"] == "ann: 10001 is over the table limit 10000 for odd"
    snap = s.state()
    assert snap["bets"] == {"common": {"odd": "20000"}} and snap["players_count"] == 2 and "players" not in snap
    book = ok(s.get("/api/book", headers=s.auth()))  # (whose bet is whose: the dealer's, with a token)
    assert book["players"] == {"common": {"ann": {"odd": "10000"}, "bob": {"odd": "10000"}}}
    res = s.client.delete("/api/bets/common/odd?player=ann", headers=s.auth())
    assert ok(res)["bets"] == {"common": {"odd": "10000"}}
    assert ok(s.get("/api/book", headers=s.auth()))["players"] == {"common": {"bob": {"odd": "10000"}}}
    assert s.state()["players_count"] == 1
    inputs = [json.loads(r[0]) for r in __import__("sqlite3").connect(s.journal_path).execute(
        "SELECT data FROM records WHERE kind = 'input' AND name = 'place_bets' ORDER BY seq")]
    assert [e[4] for i in inputs for e in i["bets"]] == ["ann", "bob"]  # (each bet's group's one record)


def test_a_late_bet_is_409_and_changes_nothing(serve):
    s = serve("football")
    open_betting(s)
    ok(s.post("/api/bets", {"position": "common", "bet": "odd", "amount": "10"}))
    ok(s.post("/api/actions/close_betting"))
    records, bets = s.records(), s.state()["bets"]
    for res in (s.post("/api/bets", {"position": "2", "bet": "upper", "amount": "5"}),
                s.client.delete("/api/bets/common/odd", headers=s.auth())):
        assert res.status_code == 409, res.text
        assert res.json()["reason"] == "betting is closed (the round is bets_closed)"
    assert s.records() == records and s.state()["bets"] == bets == {"common": {"odd": "10"}}


@pytest.mark.parametrize(
    "body",
    [
        {"position": "3", "bet": "ante"},  # no amount
        {"position": "3", "bet": "ante", "amount": 10.5},  # a float: money is never a float
        {"position": "3", "bet": "ante", "amount": "ten"},
        {"position": "3", "bet": "ante", "amount": "-5"},
        {"position": "3", "bet": "ante", "amount": "10", "plyer": "x"},  # unknown field
        {"position": "3", "bet": "ante", "amount": "1e1000000"},  # refused before any arithmetic
        {"position": "3", "bet": "ante", "amount": "1_000"},
        {"position": "3", "bet": "ante", "amount": "١٠٠"},
        {"position": "3", "bet": "ante", "amount": "１００"},
        {"position": "3", "bet": "ante", "amount": 10**40},
        {"position": "3", "bet": "ante", "amount": "9" * 10000},  # long, yet under the body limit
        {"position": None, "bet": "ante", "amount": "10"},
        [1, 2],
    ],
)
def test_a_bad_bet_body_is_422_and_changes_nothing(serve, body):
    s = serve("fortune3")
    open_betting(s)
    records = s.records()
    assert s.post("/api/bets", body).status_code == 422
    assert s.client.post("/api/bets", content=b"{not json", headers={**s.auth(), "Content-Type": "application/json"}).status_code == 422
    assert s.records() == records and s.state()["bets"] == {}


# --- access ----------------------------------------------------------------------------------


def test_missing_or_wrong_token_is_401_and_changes_nothing(serve):
    s = serve("fortune3")
    open_betting(s)
    records = s.records()
    bet = {"position": "3", "bet": "ante", "amount": "10"}
    for headers in ({}, {"Authorization": "Bearer not-a-token-of-this-table"}, {"Authorization": s.dealer},
                    {"Authorization": "Basic " + s.dealer}):
        for method, path, body in (("POST", "/api/bets", bet), ("POST", "/api/actions/close_betting", None),
                                   ("POST", "/api/pause", {"why": "x"}), ("DELETE", "/api/bets/3/ante", None),
                                   ("POST", "/api/void", {"why": "x"}),
                                   ("POST", "/api/incident/resolve", {"decision": "reject", "why": "x"})):
            res = s.client.request(method, path, json=body, headers=headers)
            assert res.status_code == 401, (headers, path, res.text)
            assert res.headers["www-authenticate"] == "Bearer"
    assert s.records() == records and s.state()["state"] == "betting_open" and s.state()["bets"] == {}


def test_a_dealer_may_not_void_or_resolve_incidents_403_and_nothing_changes(serve):
    s = serve("fortune3")
    open_betting(s)
    ok(s.post("/api/bets", {"position": "3", "bet": "ante", "amount": "10"}))
    records = s.records()
    res = s.post("/api/void", {"why": "dealer tries"})
    assert res.status_code == 403 and "supervisor" in res.json()["detail"]
    res = s.post("/api/incident/resolve", {"decision": "reject", "why": "dealer tries"})
    assert res.status_code == 403
    # a bad body from a dealer is still a 403: the role is checked first
    assert s.post("/api/void", {"nonsense": 1}).status_code == 403
    assert s.records() == records and s.state()["state"] == "betting_open"


def test_tokens_from_a_config(serve):
    tokens = TokenStore.from_config({"operators": [
        {"name": "ana", "role": "dealer", "token": "a" * 20},
        {"name": "rui", "role": "supervisor", "token": "r" * 20},
    ]})
    assert tokens.check("a" * 20) == Operator("ana", "dealer") and tokens.check("a" * 19) is None
    s = serve("wheel", tokens=tokens)
    open_betting(s)
    res = s.client.post("/api/bets", json={"position": "ana's player", "bet": "3", "amount": "1"},
                        headers={"Authorization": "Bearer " + "a" * 20})
    assert res.status_code == 200
    assert ("input", "place_bets", "dealer:ana") in [r[1:] for r in s.records()]
    with pytest.raises(Exception, match="too short"):
        TokenStore.from_config({"operators": [{"name": "x", "role": "dealer", "token": "short"}]})
    with pytest.raises(Exception, match="unknown role"):
        TokenStore.from_config({"operators": [{"name": "x", "role": "boss", "token": "x" * 20}]})


# --- the game's actions ------------------------------------------------------------------------


def test_actions_refused_by_the_round_are_409(serve):
    s = serve("fortune3")
    records = s.records()
    for name, reason in (("close_betting", "betting is closed (the round is idle)"),
                         ("deal", "dealing starts after betting closes (the round is idle)"),
                         ("misdeal", "no cards are being dealt (the round is idle)")):
        res = s.post(f"/api/actions/{name}")
        assert res.status_code == 409 and res.json()["reason"] == reason
    open_betting(s)
    res = s.post("/api/actions/close_betting")
    assert res.status_code == 409 and res.json()["reason"] == "no bets on the table: nothing to deal"
    assert s.post("/api/actions/open_round").status_code == 409
    assert s.post("/api/actions/fly").status_code == 404
    assert s.post("/api/actions/spin").status_code == 404  # a wheel action
    assert s.post("/api/actions/decide", {"box": "3"}).status_code == 422
    assert s.post("/api/actions/decide", {"box": "3", "decision": "maybe"}).status_code == 422
    assert s.post("/api/actions/decide", {"box": "3", "decision": "play"}).status_code == 409
    assert [r for r in records if r[1] != "meta"] == [] and [r[2] for r in s.records() if r[1] == "input"] == ["open_round"]


@pytest.mark.parametrize("game", GAMES)
def test_a_whole_round_through_the_api(serve, game):
    s = serve(game)
    result = play_round(s)
    assert result["status"] == "settled" and result["game"] == game
    positions = {p for p, _, _ in BETS[game]}
    assert set(result["net"]) == positions
    assert s.state()["state"] == "complete"
    board = ok(s.get("/api/results"))
    assert board[0]["round_id"] == result["round_id"] and board[0]["status"] == "settled"
    # the journal's chain is intact and the history is the CLI's
    assert CliRunner().invoke(cli, ["audit", "verify", "--journal", str(s.journal_path)]).exit_code == 0


def test_a_round_dealt_by_the_automatic_shuffler(serve):
    s = serve("fortune3", dealing="shuffler")
    assert s.state()["layout"]["dealing"] == "shuffler"
    result = play_round(s)
    assert result["status"] == "settled" and set(result["net"]) == {"3", "6"}
    events = ok(s.get("/api/events", params={"since": 0}))["events"]
    assert [e["data"]["text"] for e in events if e["kind"] == "instruction"][:3] == [
        "hand 1 to box 3", "hand 2 to box 6", "hand 3 to the dealer"]


def test_football_with_a_continuous_shuffler_gets_its_cards_back(serve):
    s = serve("football", decks=2)
    for _ in range(3):
        assert play_round(s)["status"] == "settled"
    assert s.on_table(lambda: s.runner.rig.source.remaining()) == 104


def test_misdeal_voids_the_round(serve):
    s = serve("fortune3", pace=0.05)
    open_betting(s)
    ok(s.post("/api/bets", {"position": "2", "bet": "ante", "amount": "10"}))
    ok(s.post("/api/actions/close_betting"))
    ok(s.post("/api/actions/deal"))
    ok(s.post("/api/actions/misdeal"))
    if s.state()["incident"] is not None:  # a card was out: the dealer's call waits for a supervisor
        assert s.state()["incident"]["code"] == 110
        assert s.post("/api/actions/deal").status_code == 409  # the call holds the round
        ok(s.post("/api/incident/resolve", {"decision": "confirm", "why": "box 2 skipped"}, role="supervisor"))
    snap = s.wait_state("void")
    assert snap["result"]["status"] == "void" and snap["result"]["void_reason"] == "misdeal"


def test_wheel_spin_waits_for_the_dealer_and_no_spin_spins_again(serve):
    s = serve("wheel")
    open_betting(s)
    ok(s.post("/api/bets", {"position": "alice", "bet": "1", "amount": "5"}))
    assert s.post("/api/actions/spin").status_code == 409  # betting is still open
    ok(s.post("/api/actions/close_betting"))
    time.sleep(0.1)
    assert s.state()["state"] == "bets_closed"  # the mock wheel waits for the dealer's spin
    ok(s.post("/api/actions/no_spin"))
    snap = s.state()
    assert snap["state"] == "bets_closed" and snap["view"]["no_spins"] == 1
    records = s.records()
    assert ("operator", "spin", "dealer:mock-dealer") not in [r[1:] for r in records]
    ok(s.post("/api/actions/spin"))
    assert ("operator", "spin", "dealer:mock-dealer") in [r[1:] for r in s.records()]


# --- pause, resume, void, incidents ----------------------------------------------------------------


def test_pause_refuses_actions_until_resumed(serve):
    s = serve("fortune3")
    open_betting(s)
    assert s.post("/api/pause", {}).status_code == 422  # why is required
    assert s.post("/api/pause", {"why": ""}).status_code == 422
    ok(s.post("/api/pause", {"why": "dealer change"}))
    assert s.state()["paused"] is True
    assert s.post("/api/pause", {"why": "again"}).status_code == 409
    res = s.post("/api/bets", {"position": "1", "bet": "ante", "amount": "5"})
    assert res.status_code == 409 and res.json()["reason"] == "the table is paused"
    ok(s.post("/api/resume", {"why": "new dealer in"}))
    assert s.post("/api/resume", {"why": "again"}).status_code == 409
    ok(s.post("/api/bets", {"position": "1", "bet": "ante", "amount": "5"}))
    history = ok(s.get("/api/history", params={"last": 1}))[0]
    ops = [(e["kind"], e["actor"], e["why"]) for e in history["events"] if e["kind"] in ("paused", "resumed")]
    assert ops == [("paused", "dealer:mock-dealer", "dealer change"), ("resumed", "dealer:mock-dealer", "new dealer in")]


def test_a_supervisor_voids_the_round_and_every_bet_is_returned(serve):
    s = serve("football")
    open_betting(s)
    ok(s.post("/api/bets", {"position": "2", "bet": "lower", "amount": "10"}))
    assert s.post("/api/void", {"why": "x", "reason": "Not A Code"}, role="supervisor").status_code == 422
    res = ok(s.post("/api/void", {"why": "table dispute", "reason": "dispute"}, role="supervisor"))
    assert res["result"]["status"] == "void" and res["result"]["void_reason"] == "dispute"
    assert s.state()["state"] == "void"
    assert s.post("/api/void", {"why": "twice"}, role="supervisor").status_code == 409
    summary = ok(s.get("/api/history", params={"last": 1}))[0]
    void = [e for e in summary["events"] if e["kind"] == "void"][0]
    assert void["returned"] == {"2": {"lower": "10"}} and void["why"] == "table dispute"
    assert void["actor"] == "supervisor:mock-supervisor"


def test_a_misread_waits_for_the_supervisor(serve):
    s = serve("fortune3")
    open_betting(s)
    ok(s.post("/api/bets", {"position": "4", "bet": "ante", "amount": "10"}))
    s.on_table(lambda: s.table.shoe.inject(MockFault("misread", after=2)))
    assert s.post("/api/incident/resolve", {"decision": "reject", "why": "none yet"}, role="supervisor").status_code == 409
    ok(s.post("/api/actions/close_betting"))
    ok(s.post("/api/actions/deal"))
    end = time.monotonic() + 5
    while (snap := s.state())["incident"] is None:
        assert time.monotonic() < end
        time.sleep(0.01)
    assert snap["incident"]["blocking"] and snap["state"] == "dealing"
    assert snap["active_faults"]["shoe:201"]["text"] == "card 3 not recognised"
    assert not {a["name"]: a for a in snap["actions"]}["misdeal"]["enabled"]
    time.sleep(0.05)
    assert s.state()["seq"] == snap["seq"]  # the mock dealer waits
    # confirming needs the card: the misread card is in the journal's device input
    db_cards = [json.loads(r[0]) for r in __import__("sqlite3").connect(s.journal_path).execute(
        "SELECT data FROM records WHERE kind='input' AND name='handle'")]
    card = [d["args"][0]["card"]["$card"] for d in db_cards if d["args"][0]["$event"] == "FaultRaised"][0]
    assert s.post("/api/incident/resolve", {"decision": "confirm", "why": "x"}, role="supervisor").status_code == 409
    ok(s.post("/api/incident/resolve", {"decision": "confirm", "why": "card checked", "card": card}, role="supervisor"))
    s.wait_state("decisions")
    ok(s.post("/api/actions/decide", {"box": "4", "decision": "play"}))
    outcome = s.wait_state("complete")["result"]["outcome"]
    assert card in outcome["boxes"]["4"]["cards"] + outcome["dealer"]["cards"]


# --- history, results, events --------------------------------------------------------------------


def test_history_is_the_cli_history(serve):
    s = serve("wheel")
    rounds = [play_round(s)["round_id"] for _ in range(2)]
    api = ok(s.get("/api/history", params={"last": 5}))
    res = CliRunner().invoke(cli, ["history", "--journal", str(s.journal_path), "--last", "5", "--json"])
    assert res.exit_code == 0, res.output
    # (the open history: the CLI's, each round's players' parts as totals)
    assert api == [opentotals.summary(json.loads(line), spots=False) for line in res.output.splitlines()]
    assert [r["round_id"] for r in api] == rounds
    one = ok(s.get("/api/history", params={"round": rounds[0]}))
    assert one == api[:1]
    assert s.get("/api/history", params={"round": "WHEEL-MOCK-999999"}).status_code == 404
    assert s.get("/api/history", params={"round": rounds[0], "last": 1}).status_code == 422
    assert s.get("/api/history", params={"last": 0}).status_code == 422
    results = ok(s.get("/api/results", params={"last": 1}))
    assert [r["round_id"] for r in results] == rounds[-1:]
    assert results[0]["outcome"]["symbol"] == api[-1]["outcome"]["symbol"]


def test_history_hides_the_dealer_cards_of_a_round_in_progress(serve):
    s = serve("fortune3")
    open_betting(s)
    ok(s.post("/api/bets", {"position": "1", "bet": "ante", "amount": "10"}))
    ok(s.post("/api/actions/close_betting"))
    ok(s.post("/api/actions/deal"))
    s.wait_state("decisions")
    cards = [e for e in ok(s.get("/api/history", params={"last": 1}))[0]["events"] if e["kind"] == "card"]
    assert [e["card"] for e in cards if e["to"] == "dealer"] == ["??"] * 3
    assert all(e["card"] != "??" for e in cards if e["to"] != "dealer")
    assert s.state()["view"]["dealer"]["cards"] == ["??"] * 3
    ok(s.post("/api/actions/decide", {"box": "1", "decision": "play"}))
    done = ok(s.get("/api/history", params={"last": 1}))[0]
    assert "??" not in [e["card"] for e in done["events"] if e["kind"] == "card"]


def test_no_journal_no_history(serve):
    s = serve("fortune3", journal=False)
    assert s.get("/api/history").status_code == 404
    result = play_round(s)
    assert ok(s.get("/api/results"))[0]["round_id"] == result["round_id"]


def test_events_since(serve):
    s = serve("football")
    seq0 = s.state()["seq"]
    play_round(s)
    got = ok(s.get("/api/events", params={"since": seq0}))
    kinds = [e["kind"] for e in got["events"]]
    assert got["complete"] and kinds[0] == "state" and "draw" in kinds and kinds.count("result") == 1
    seqs = [e["seq"] for e in got["events"]]
    assert seqs == sorted(set(seqs)) and seqs[-1] == got["seq"]
    assert s.get("/api/events").status_code == 422


# --- the bet timer --------------------------------------------------------------------------------


def test_the_bet_timer_closes_betting(serve):
    s = serve("wheel", bet_seconds=0.4)
    snap = open_betting(s)
    assert snap["bet_timer"]["seconds"] == 0.4 and snap["bet_timer"]["running"]
    time.sleep(0.6)  # no bets: betting stays open and the timer starts again
    assert s.state()["state"] == "betting_open"
    ok(s.post("/api/bets", {"position": "carol", "bet": "20", "amount": "1"}))
    snap = s.wait_state("bets_closed", timeout=3)
    assert snap["bet_timer"]["remaining"] is None
    assert ("input", "close_betting", "timer") in [r[1:] for r in s.records()]


def test_the_bet_timer_is_frozen_while_paused(serve):
    s = serve("fortune3", bet_seconds=60)
    open_betting(s)
    ok(s.post("/api/bets", {"position": "1", "bet": "ante", "amount": "5"}))
    ok(s.post("/api/pause", {"why": "check"}))
    # The timer's last tenth of a second, set once the table is paused (a timer of 0.3 s ran out
    # before the pause reached a loaded machine's table): it would run out at the next count.
    s.on_table(lambda: setattr(s.runner.timer, "remaining", 0.05))
    time.sleep(0.5)
    snap = s.state()
    assert snap["state"] == "betting_open" and snap["bet_timer"]["running"] is False
    assert s.on_table(lambda: s.runner.timer.remaining) == 0.05  # (not counted down while paused)
    ok(s.post("/api/resume", {"why": "ok"}))
    s.wait_state("bets_closed", timeout=10)


def test_a_pause_between_the_timers_count_and_its_close_holds_betting_until_the_resume(serve):
    # The timer counts down in one call on the table's thread and closes betting in the next; a
    # dealer's pause can land between the two. Betting must stay open while paused, then close.
    s = serve("fortune3", bet_seconds=60)
    open_betting(s)
    ok(s.post("/api/bets", {"position": "1", "bet": "ante", "amount": "5"}))
    timer = s.runner.timer

    def count_then_pause():
        timer.remaining = 0.0
        assert timer.tick() is True  # due to close
        s.table.pause(actor="dealer", why="check")
        timer.close()  # (the close that follows the count)
        return s.table.state.value, timer.remaining

    state, remaining = s.on_table(count_then_pause)
    assert state == "betting_open" and remaining is not None
    assert s.state()["state"] == "betting_open"
    ok(s.post("/api/resume", {"why": "ok"}))
    s.wait_state("bets_closed", timeout=10)


def test_a_loopback_server_answers_only_to_loopback_names(serve):
    s = serve("wheel", journal=False)
    assert s.get("/api/table", headers={"Host": "evil.example"}).status_code == 400
    assert s.get("/api/table", headers={"Host": f"localhost:{s.server.port}"}).status_code == 200


def test_a_boxs_decision_may_name_its_player_and_only_the_seated_one_decides(serve):
    """Art. 9(1): the API's play/fold may name the player; a
    player other than the one seated at the box is refused (409), and the
    journaled decision names the seated player."""
    s = serve("fortune3")
    open_betting(s)
    ok(s.post("/api/bets", {"position": "1", "bet": "ante", "amount": "10", "player": "ann"}))
    ok(s.post("/api/bets", {"position": "2", "bet": "ante", "amount": "10"}))
    ok(s.post("/api/actions/close_betting"))
    ok(s.post("/api/actions/deal"))
    s.wait_state("decisions")
    bob = s.post("/api/actions/decide", {"box": "1", "decision": "play", "player": "bob"})
    assert bob.status_code == 409 and "belongs to ann" in bob.json()["reason"]
    ok(s.post("/api/actions/decide", {"box": "1", "decision": "play", "player": "ann"}))
    ok(s.post("/api/actions/decide", {"box": "2", "decision": "fold"}))
    s.wait_state("complete")
    decisions = [e for e in ok(s.get("/api/history", params={"last": 1}))[0]["events"] if e["kind"] == "decision"]
    # (the open history names no player: the journal does)
    assert [(e["box"], e["decision"], e.get("player")) for e in decisions] == [("1", "play", None), ("2", "fold", None)]
    named = [json.loads(r[0]) for r in __import__("sqlite3").connect(s.journal_path).execute(
        "SELECT data FROM records WHERE kind = 'event' AND name = 'decision' ORDER BY seq")]
    assert [d.get("player") for d in named] == ["ann", None]
    # the open board has each box's net; each player's part is the dealer's console's (a token's)
    (board,) = ok(s.get("/api/results", params={"last": 1}))
    assert "players" not in board and board["net"]["2"] == "-10"
    players = ok(s.get("/api/book", headers=s.auth()))["result"]["players"]
    assert set(players) == {"ann", "2"} and players["2"]["net"] == "-10"


def test_a_supervisor_switches_a_shuffler_table_to_the_shoe_and_back(serve):
    """Art. 11(4): after a shuffler failure a supervisor deals the
    following rounds from the shoe (the mock shuffler table keeps one at hand),
    and back later; who and why are journaled; the table shows the mode."""
    s = serve("fortune3", dealing="shuffler")
    assert s.state()["view"]["dealing"] == "shuffler"
    switch = {a["name"]: a for a in s.state()["actions"]}["set_dealing"]
    assert switch["enabled"] and switch["role"] == "supervisor"
    assert s.post("/api/actions/set_dealing", {"mode": "shoe", "why": "jammed"}).status_code == 403
    ok(s.post("/api/actions/set_dealing", {"mode": "shoe", "why": "shuffler jammed"}, role="supervisor"))
    snap = s.state()
    assert snap["view"]["dealing"] == snap["layout"]["dealing"] == "shoe"
    assert [d["kind"] for d in snap["devices"]] == ["shoe"]
    result = play_round(s)
    assert result["status"] == "settled"
    kinds = {r[2] for r in s.records()}
    assert "card" in kinds and "hand" not in kinds   # dealt card by card, from the shoe
    ok(s.post("/api/actions/set_dealing", {"mode": "shuffler", "why": "new shuffler fitted"}, role="supervisor"))
    assert s.state()["view"]["dealing"] == "shuffler"
    assert play_round(s)["status"] == "settled"
    db = __import__("sqlite3").connect(s.journal_path)
    switches = [json.loads(d) for (d,) in db.execute("SELECT data FROM records WHERE name = 'dealing_mode'")]
    db.close()
    assert [(d["mode"], d["why"], d["actor"]) for d in switches] == [
        ("shoe", "shuffler jammed", s.tokens.first("supervisor")[1].actor),
        ("shuffler", "new shuffler fitted", s.tokens.first("supervisor")[1].actor)]


def test_a_stray_card_stays_face_down_until_the_reveal(serve):
    """Art. 11(3): a card dealt to a box with no bet is set aside; it was
    dealt face down, so the table, its events and its history show it as
    the dealer's cards are shown: hidden until the reveal (an exposed card,
    set aside face up, is seen by all anyway)."""
    s = serve("fortune3", pace=0.01)
    open_betting(s)
    ok(s.post("/api/bets", {"position": "1", "bet": "ante", "amount": "10"}))
    ok(s.post("/api/actions/close_betting"))
    ok(s.post("/api/actions/deal"))
    s.wait_state("decisions")
    seq = s.state()["seq"]
    ok(s.post("/api/actions/stray"))   # the dealer's third card went to an empty box
    end = time.monotonic() + 10
    while not ((snap := s.state())["state"] == "decisions" and snap["view"]["set_aside"]):
        assert time.monotonic() < end
        time.sleep(0.01)
    assert snap["view"]["set_aside"] == ["??"]
    events = ok(s.get("/api/events", params={"since": seq}))["events"]
    (aside,) = [e for e in events if e["kind"] == "card_set_aside"]
    assert aside["data"]["card"] == "??"
    (summary,) = ok(s.get("/api/history", params={"last": 1}))
    assert [e["card"] for e in summary["events"] if e["kind"] == "card_set_aside"] == ["??"]
    ok(s.post("/api/actions/decide", {"box": "1", "decision": "play"}))
    done = s.wait_state("complete")
    (card,) = done["view"]["set_aside"]
    assert card != "??" and done["result"]["outcome"]["set_aside"] == [card]
