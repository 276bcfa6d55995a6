"""``tablesim serve`` on devices: ``--emulated`` (the game's emulators on
ptys, opened with the real serial drivers) and ``--config FILE`` (a table
configuration's devices, limits, table id and operators).

The dealer's actions drive the devices: the shoe is armed and its cards
arrive from the emulator, the shuffler dispenses hands, the display reads
the draw back, the wheel sensor reports the spin the emulator makes when
armed. The emulators run at time scale 0 (as fast as the link allows)."""

from __future__ import annotations

import json
import signal
import socket
import sqlite3
import stat
import threading
import time
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from websockets.sync.client import connect

from tablesim.cli.main import cli
from tablesim.server.process import ServerThread
from tablesim.server.auth import ROLES, TokenStore
from tablesim.harness.devicetables import emulated_table
from tablesim.server.runner import TableRunner
from tablesim.harness.tableconfig import OPERATOR_ROLES, load_table_config

from gamehost import option_refusal
from server_helpers import Served, ok
from server_process import Serve
import webclient

ROOT = Path(__file__).resolve().parents[2]
F3_MOCK = ROOT / "config" / "tables" / "fortune3-mock.toml"
#: a device report takes at most this long (emulators at time scale 0)
WAIT = 60.0  # pure waiting: generous on a loaded machine


# --- an emulated table served in this process --------------------------------------------------


class Stream:
    """A WebSocket client following the table."""

    def __init__(self, served: Served) -> None:
        # (every bet event, as a recorder of the round: consoles get them coalesced)
        self.ws = connect(served.url.replace("http", "ws") + "/ws?since=&bets=each", open_timeout=5).__enter__()
        self.messages: list[dict] = []
        self.hello = self.recv()

    def recv(self, timeout: float = WAIT) -> dict:
        msg = json.loads(self.ws.recv(timeout=timeout))
        self.messages.append(msg)
        return msg

    def until(self, pred, timeout: float = WAIT) -> dict:
        end = time.monotonic() + timeout
        while True:
            msg = self.recv(max(end - time.monotonic(), 0.01))
            if pred(msg):
                return msg

    def events(self, kind: str | None = None) -> list[dict]:
        return [m for m in self.messages if m["type"] == "event" and (kind is None or m["kind"] == kind)]

    def close(self) -> None:
        self.ws.close()


def subsequence(wanted: list[str], got: list[str]) -> bool:
    it = iter(got)
    return all(any(k == w for k in it) for w in wanted)


def wait_for(s: Served, pred, timeout: float = WAIT) -> dict:
    end = time.monotonic() + timeout
    while True:
        snap = s.state()
        if pred(snap):
            return snap
        assert time.monotonic() < end, f"the table stayed {snap['state']} (incident {snap['incident']})"
        time.sleep(0.01)


def device_inputs(s: Served) -> list[dict]:
    """The device reports the journal holds, decoded as JSON."""
    db = sqlite3.connect(s.journal_path)
    try:
        rows = db.execute(
            "SELECT actor, data FROM records WHERE kind='input' AND name='handle' ORDER BY seq").fetchall()
    finally:
        db.close()
    return [{"actor": actor, **json.loads(data)["args"][0]} for actor, data in rows]


BETS = {
    "fortune3": [("2", "ante", "10"), ("2", "pair_plus", "5"), ("5", "ante", "25")],
    "football": [("1", "upper", "10"), ("4", "odd", "5"), ("common", "middle", "2")],
    "wheel": [("alice", "1", "10"), ("bob", "joker", "2")],
}
EXPECTED = {
    "fortune3": ["state", "bet", "state", "state", "instruction", "card", "decision", "dealer", "settlement", "result"],
    "football": ["state", "draw_made", "draw", "bet", "state", "state", "instruction", "card", "settlement", "result"],
    "wheel": ["state", "bet", "state", "instruction", "spin_started", "revolution", "spin_result", "settlement",
              "result"],
}
DEVICE_EVENTS = {"shoe": {"CardRead"}, "shuffler": {"HandDispensed"}, "display": {"DrawShown"},
                 "wheel": {"SpinStarted", "Revolution", "SpinResult"}}


def play(s: Served, bets) -> dict:
    """One round through the API as the dealer plays it on devices: no mock hands."""
    game = s.table.game
    ok(s.post("/api/actions/open_round"))
    s.wait_state("betting_open", timeout=WAIT)  # football: once the display read the draw back
    for position, bet, amount in bets:
        ok(s.post("/api/bets", {"position": position, "bet": bet, "amount": amount}))
    ok(s.post("/api/actions/close_betting"))  # the wheel: the sensor is armed, the emulator spins
    if game != "wheel":
        ok(s.post("/api/actions/deal"))  # the shoe is armed / the shuffler asked for hands
    if game == "fortune3":
        snap = s.wait_state("decisions", "complete", "void", timeout=WAIT)
        for box in snap["view"]["pending_decisions"]:
            ok(s.post("/api/actions/decide", {"box": box, "decision": "play"}))
    return s.wait_state("complete", "void", timeout=WAIT)["result"]


@pytest.mark.parametrize("game, options, devices", [
    ("fortune3", {}, ["shoe"]),
    ("fortune3", {"dealing": "shuffler"}, ["shuffler"]),
    ("football", {}, ["display", "shoe"]),
    ("football", {"decks": 6}, ["display", "shoe"]),
    ("wheel", {}, ["wheel"]),
], ids=["fortune3-shoe", "fortune3-shuffler", "football-1deck", "football-6decks", "wheel"])
def test_serve_emulated_plays_a_whole_round_followed_on_the_stream(emulated, game, options, devices):
    s = emulated(game, **options)
    snap = s.state()
    assert snap["mock"] is False and snap["table_id"].endswith("-EMU") and snap["state"] == "idle"
    assert sorted(d["name"] for d in snap["devices"]) == devices and all(d["link_up"] for d in snap["devices"])
    if game == "wheel":  # the spin is the device's (the dealer's hand at the wheel): no mock "spin" action
        assert "spin" not in {a["name"] for a in snap["actions"]}
        assert s.post("/api/actions/spin").status_code == 404
    c = Stream(s)
    result = play(s, BETS[game])
    c.until(lambda m: m["type"] == "event" and m["kind"] == "result")
    events = c.events()
    assert subsequence(EXPECTED[game], [e["kind"] for e in events]), [e["kind"] for e in events]
    assert result["status"] == "settled", result
    final = c.events("result")[0]["data"]
    assert final["status"] == "settled" and final["net"] == result["net"]
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    # what the table dealt came from the devices, journaled as their input
    inputs = device_inputs(s)
    for device in devices:
        assert DEVICE_EVENTS[device] <= {i["$event"] for i in inputs if i["actor"] == device}, device
    if game == "fortune3":
        dealt = [e["data"] for e in c.events("card")]
        assert [d["card"] for d in dealt if d["to"] == "dealer"] == ["??"] * 3  # face down on the open stream
        revealed = c.events("dealer")[0]["data"]["cards"]
        assert revealed == result["outcome"]["dealer"]["cards"]
        boxes = result["outcome"]["boxes"]
        assert all(len(boxes[b]["cards"]) == 3 for b in ("2", "5"))
    if game == "football":
        draw = c.events("draw")[0]["data"]
        shown = [i for i in inputs if i["$event"] == "DrawShown"][0]
        assert draw["draw"] == shown["shown"] == result["outcome"]["draw"] and draw["seeded"]
        cards = [i["card"]["$card"] for i in inputs if i["$event"] == "CardRead"]
        dealt = [card for box in result["outcome"]["boxes"].values() for card in box["cards"]]
        assert cards[:len(dealt)] == [e["data"]["card"] for e in c.events("card")]
    if game == "wheel":
        spin = c.events("spin_result")[0]["data"]
        assert spin["symbol"] == result["outcome"]["symbol"]
        assert [i["$event"] for i in inputs][-1] == "SpinResult"
    c.close()
    # a second round on the same devices
    assert play(s, BETS[game])["status"] == "settled"


def test_an_emulated_misread_holds_the_cards_until_the_supervisor_names_it(emulated):
    s = emulated("fortune3", faults=["shoe:misread@card=2"])
    ok(s.post("/api/actions/open_round"))
    ok(s.post("/api/bets", {"position": "4", "bet": "ante", "amount": "10"}))
    ok(s.post("/api/actions/close_betting"))
    ok(s.post("/api/actions/deal"))
    snap = wait_for(s, lambda t: t["incident"] is not None)
    assert snap["incident"]["blocking"] and snap["state"] == "dealing", (snap["incident"], snap["state"])
    # the emulated dealer goes on drawing: those cards wait for the supervisor
    snap = wait_for(s, lambda t: t["held_reports"] == 4)  # 6 cards armed: 1 read, 1 misread
    assert len(snap["view"]["boxes"]["4"]["cards"]) == 1
    assert snap["incident"]["card"] == "??"  # the reader's guess: for the supervisor, not the open view
    detail = ok(s.get("/api/incident", headers=s.auth("supervisor")))["incident"]
    assert detail["id"] == snap["incident"]["id"] and detail["card"] not in (None, "??")
    assert s.post("/api/actions/misdeal").status_code == 409  # the incident holds the round
    misread = [i for i in device_inputs(s) if i["$event"] == "FaultRaised"][0]
    card = misread["card"]["$card"]
    ok(s.post("/api/incident/resolve", {"decision": "confirm", "why": "card turned over", "card": card},
              role="supervisor"))
    snap = s.wait_state("decisions", timeout=WAIT)
    assert snap["held_reports"] == 0
    dealer = [i["card"]["$card"] for i in device_inputs(s) if i["$event"] == "CardRead"]
    ok(s.post("/api/actions/decide", {"box": "4", "decision": "play"}))
    result = s.wait_state("complete", timeout=WAIT)["result"]
    # the named card took the misread card's place: box 4's second card, the rest in the order read
    # (cards the emulated dealer drew past the deal at time scale 0 are incidents, not the deal's)
    order = [dealer[0], card, *dealer[1:]][:6]
    assert result["outcome"]["boxes"]["4"]["cards"] == order[0::2]
    assert result["outcome"]["dealer"]["cards"] == order[1::2]


def test_an_emulated_readback_fault_voids_football_and_short_spins_are_no_spins(emulated):
    s = emulated("football", faults=["display:readback"])
    ok(s.post("/api/actions/open_round"))
    snap = s.wait_state("void", timeout=WAIT)
    assert snap["result"]["void_reason"] == "display_fault"
    w = emulated("wheel", faults=["wheel:short-spin@spin=1"])
    result = play(w, BETS["wheel"])
    assert result["status"] == "settled" and result["outcome"]["no_spins"] == 1


def test_a_jammed_shuffler_voids_the_round_and_the_next_is_dealt_once_replaced(emulated):
    s = emulated("fortune3", dealing="shuffler", faults=["shuffler:jam@hand=2"])
    result = play(s, BETS["fortune3"])
    assert result["status"] == "void" and result["void_reason"] == "shuffler_fault"
    # Art. 11(4): no round from the failed shuffler until a supervisor confirms it was replaced
    assert s.state()["view"]["shuffler_out_of_service"]["reason"] == "shuffler_fault"
    assert s.post("/api/actions/open_round").status_code == 409
    ok(s.post("/api/actions/confirm_shuffler", {"why": "spare shuffler fitted"}, role="supervisor"))
    assert s.state()["view"]["shuffler_out_of_service"] is None
    assert play(s, BETS["fortune3"])["status"] == "settled"


def test_the_pump_never_holds_the_table_thread_for_long(emulated):
    s = emulated("wheel")
    from tablesim.server import devicefeed as pump

    assert pump.DEVICE_WAIT <= 0.05
    # A pump that waited for the table's device timeout would hold the thread
    # for 30 s (what `tablesim run` gives real devices): set it, so a hold is
    # told from a busy machine's slowness by far more than any load makes.
    s.table.device_timeout = 30.0
    times = []
    for _ in range(9):  # every API call gets the table's thread between two pump waits
        start = time.monotonic()
        s.state()
        times.append(time.monotonic() - start)
    assert sorted(times)[len(times) // 2] < 5, times


def test_paused_table_holds_the_cards_until_resumed(emulated):
    s = emulated("fortune3")
    ok(s.post("/api/actions/open_round"))
    ok(s.post("/api/bets", {"position": "1", "bet": "ante", "amount": "10"}))
    ok(s.post("/api/actions/close_betting"))
    # the dealer deals, and the table is paused while the cards come in
    s.on_table(lambda: (s.table.start_dealing(), s.table.pause(actor="dealer:test", why="a player left")))
    snap = wait_for(s, lambda t: t["held_reports"] == 6)
    assert snap["state"] == "dealing" and all(not b["cards"] for b in snap["view"]["boxes"].values())
    ok(s.post("/api/resume", {"why": "back"}))
    snap = s.wait_state("decisions", timeout=WAIT)
    assert snap["held_reports"] == 0 and len(snap["view"]["boxes"]["1"]["cards"]) == 3


def test_a_configured_serial_table_on_an_emulator_pty(tmp_path):
    """A configuration naming a serial port (here an emulator's pty): its
    table id, limits, settings and operators, its device through the serial driver."""
    from drivers.emulators.launcher import running_emulators
    from tablesim.harness.devicetables import configured_table

    with ExitStack() as stack:
        urls = stack.enter_context(running_emulators(["display", "shoe"], seed=3, time_scale=0))
        path = tmp_path / "fb.toml"
        path.write_text(f"""
[table]
id = "FB-07"
game = "football"

[limits]
default = {{ min = 5, max = 500 }}

[settings]
decks = 2

[devices.shoe]
backend = "serial"
url = "{urls['shoe']}"

[devices.display]
backend = "serial"
url = "{urls['display']}"

[[operators.list]]
name = "ana"
role = "dealer"
token = "ana-token-0123456789"
""")
        built = configured_table(stack, path)
        assert built.description == f"table FB-07 from {path} (shoe serial, display serial)"
        tokens, created, where = TokenStore.from_operators(built.config.operators)
        assert not created and where == f"{path}: operators" and tokens.first("supervisor") is None
        runner = TableRunner(built.table)
        server = stack.enter_context(ServerThread(runner, tokens))
        client = stack.enter_context(webclient.client(base_url=server.url, timeout=10))
        s = Served(server, runner, tokens, None, client)
        snap = s.state()
        assert snap["table_id"] == "FB-07" and snap["layout"]["decks"] == 2
        assert snap["limits"]["upper"] == {"min": "5", "max": "500"}
        assert s.post("/api/bets", {"position": "1", "bet": "upper", "amount": "5"}).status_code == 409  # not open
        ok(s.post("/api/actions/open_round"))
        s.wait_state("betting_open", timeout=WAIT)
        res = s.post("/api/bets", {"position": "1", "bet": "upper", "amount": "600"})
        assert res.status_code == 409 and "500" in res.json()["reason"]
        ok(s.post("/api/bets", {"position": "1", "bet": "upper", "amount": "5"}))
        ok(s.post("/api/actions/close_betting"))
        ok(s.post("/api/actions/deal"))
        result = s.wait_state("complete", timeout=WAIT)["result"]
        assert result["status"] == "settled" and result["round_id"] == "FB-07-000001"
        assert s.post("/api/void", {"why": "x"}).status_code == 403  # ana is a dealer, nobody is a supervisor


def test_emulated_errors_are_one_line(tmp_path):
    with ExitStack() as stack:
        with pytest.raises(Exception, match="--fault: fault 'misread' is for the shoe, which is not emulated here"):
            emulated_table(stack, "wheel", faults=["shoe:misread"], time_scale=0)
        with pytest.raises(Exception, match="unknown fault 'bogus'"):
            emulated_table(stack, "wheel", faults=["wheel:bogus"], time_scale=0)
        with pytest.raises(Exception, match=option_refusal("dealing", "wheel")):
            emulated_table(stack, "wheel", dealing="shoe", time_scale=0)


# --- the command --------------------------------------------------------------------------------


def play_fortune3(s: Serve, bets=(("3", "ante", "10"),)) -> dict:
    assert s.post("/api/actions/open_round").status_code == 200
    s.wait_state("betting_open")
    for position, bet, amount in bets:
        res = s.post("/api/bets", {"position": position, "bet": bet, "amount": amount})
        assert res.status_code == 200, res.text
    assert s.post("/api/actions/close_betting").status_code == 200
    assert s.post("/api/actions/deal").status_code == 200
    snap = s.wait_state("decisions", "complete", "void")
    for box in snap["view"]["pending_decisions"]:
        assert s.post("/api/actions/decide", {"box": box, "decision": "play"}).status_code == 200
    return s.wait_state("complete", "void")["result"]


@pytest.mark.slow
def test_serve_config_with_the_mock_table_configuration(env, tmp_path):
    journal = tmp_path / "f3.journal.sqlite"
    s = Serve(env, "--config", str(F3_MOCK), "--port", "0", "--journal", str(journal))
    try:
        tokens = tmp_path / "f3.tokens.json"  # no [operators]: generated next to the journal
        assert f"operator tokens: {tokens} (new)" in s.lines
        assert stat.S_IMODE(tokens.stat().st_mode) == 0o600
        assert {(o["name"], o["role"]) for o in json.loads(tokens.read_text())["operators"]} == {
            ("dealer", "dealer"), ("supervisor", "supervisor")}
        assert any(line.startswith("F3-MOCK: fortune3, table F3-MOCK from ") and "(shoe mock)" in line
                   for line in s.lines)
        snap = s.state()
        assert snap["table_id"] == "F3-MOCK" and snap["mock"] is False
        # the configuration's limits
        assert snap["limits"]["ante"] == {"min": "10", "max": "5000"}
        assert snap["limits"]["pair_plus"] == {"min": "10", "max": "2500"}
        assert s.post("/api/actions/open_round").status_code == 200
        res = s.post("/api/bets", {"position": "1", "bet": "ante", "amount": "5"})
        assert res.status_code == 409 and "10" in res.json()["reason"]
        assert s.post("/api/void", {"why": "test"}, token=s.supervisor).status_code == 200
        result = play_fortune3(s, [("3", "ante", "10"), ("3", "pair_plus", "20")])
        assert result["status"] == "settled" and result["round_id"] == "F3-MOCK-000002"
    finally:
        assert s.stop() == 0
    assert CliRunner().invoke(cli, ["audit", "verify", "--journal", str(journal)], env={"XDG_DATA_HOME": env["XDG_DATA_HOME"]}).exit_code == 0
    # a restart keeps the tokens
    s2 = Serve(env, "--config", str(F3_MOCK), "--port", "0", "--journal", str(journal))
    try:
        assert f"operator tokens: {tokens}" in s2.lines and s2.dealer == s.dealer
    finally:
        assert s2.stop() == 0


def config_with_operators(tmp_path: Path, operators: str, name: str = "f3.toml") -> Path:
    path = tmp_path / name
    path.write_text(F3_MOCK.read_text() + "\n" + operators)
    return path


@pytest.mark.slow
def test_serve_config_with_its_operators(env, tmp_path):
    listed = config_with_operators(tmp_path, """
[[operators.list]]
name = "ana"
role = "dealer"
token = "ana-token-0123456789"

[[operators.list]]
name = "rui"
role = "supervisor"
token = "rui-token-0123456789"
""")
    s = Serve(env, "--config", str(listed), "--port", "0", "--journal", "none")
    try:
        assert s.dealer == "ana-token-0123456789" and s.supervisor == "rui-token-0123456789"
        assert f"operator tokens: {listed}: operators" in s.lines
        who = s.client.get("/api/whoami", headers={"Authorization": "Bearer rui-token-0123456789"}).json()
        assert who == {"name": "rui", "role": "supervisor", "actor": "supervisor:rui"}
        assert s.post("/api/actions/open_round", token="x" * 20).status_code == 401
        assert play_fortune3(s)["status"] == "settled"
    finally:
        assert s.stop() == 0
    # a token file named by the configuration, relative to it, generated on the first run
    filed = config_with_operators(tmp_path, '[operators]\ntokens_file = "ops/f3.tokens.json"\n', "f3file.toml")
    s = Serve(env, "--config", str(filed), "--port", "0", "--journal", "none")
    try:
        path = tmp_path / "ops" / "f3.tokens.json"
        assert f"operator tokens: {path} (new)" in s.lines and stat.S_IMODE(path.stat().st_mode) == 0o600
        assert s.client.get("/api/whoami", headers={"Authorization": f"Bearer {s.supervisor}"}).status_code == 200
    finally:
        assert s.stop() == 0
    assert not (tmp_path / "data").exists()  # no journal, no tokens next to one


def test_the_operators_section_is_checked_like_the_rest(tmp_path):
    assert OPERATOR_ROLES == ROLES
    cases = {
        '[operators]\n': "operators: needs tokens_file",
        '[operators]\ntokens_file = "a.json"\n[[operators.list]]\nname = "a"\nrole = "dealer"\ntoken = "x"\n':
            "operators: give tokens_file or list, not both",
        '[[operators.list]]\nname = "a"\nrole = "boss"\ntoken = "aaaaaaaaaaaaaaaaaaaa"\n':
            "operators.list[0].role: 'boss' is not one of dealer, supervisor",
        '[[operators.list]]\nname = "a"\nrole = "dealer"\ntoken = "short"\n':
            "operators.list[0].token: too short (5 characters, 16 at least)",
        '[[operators.list]]\nname = "a"\nrole = "dealer"\ntoken = "aaaaaaaaaaaaaaaaaaaa"\npin = 1\n':
            "operators.list[0].pin: unknown key",
        ('[[operators.list]]\nname = "a"\nrole = "dealer"\ntoken = "aaaaaaaaaaaaaaaaaaaa"\n'
         '[[operators.list]]\nname = "b"\nrole = "supervisor"\ntoken = "aaaaaaaaaaaaaaaaaaaa"\n'):
            "operators.list[1].token: the same token is given to two operators",
        '[operators]\ntokens = "a.json"\n': "operators.tokens: unknown key",
        '[operators]\nlist = []\n': "operators.list: no operators",
    }
    for text, message in cases.items():
        path = config_with_operators(tmp_path, text)
        with pytest.raises(Exception) as info:
            load_table_config(path)
        assert str(info.value) == f"{path}: {message}" or str(info.value).startswith(f"{path}: {message}"), \
            str(info.value)
    config = load_table_config(config_with_operators(tmp_path, '[operators]\ntokens_file = "t.json"\n'))
    assert config.operators.tokens_file == tmp_path / "t.json"
    assert load_table_config(F3_MOCK).operators is None
    for example in sorted((ROOT / "config" / "tables").glob("*.toml")):
        ops = load_table_config(example).operators
        assert ops is None or ops.tokens_file is not None  # no token in a shipped file


def invoke(args: list[str], monkeypatch, tmp_path) -> tuple[int, str]:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    res = CliRunner().invoke(cli, ["serve", *args])
    return res.exit_code, res.output


@pytest.mark.parametrize("args, message", [
    (["--game", "fortune3"], "choose a device mode: --mock, --emulated or --config FILE"),
    (["--game", "fortune3", "--mock", "--emulated"], "(not --mock and --emulated)"),
    (["--mock", "--config", "fortune3-mock"], "(not --mock and --config)"),
    (["--game", "wheel", "--mock", "--fault", "wheel:peg"], "--fault applies to --emulated"),
    (["--emulated"], "--game is required (or --config FILE, which names the game)"),
    (["--config", "fortune3-mock", "--dealing", "shuffler"], "--dealing does not apply to --config"),
    (["--config", "fortune3-mock", "--game", "wheel"], "table.game: the table runs fortune3, not wheel"),
    (["--config", "no-such-table"], "no table configuration 'no-such-table'"),
    (["--game", "wheel", "--emulated", "--fault", "shoe:misread"], "--fault: fault 'misread' is for the shoe"),
    (["--game", "wheel", "--emulated", "--fault", "wheel:bogus"], "--fault: unknown fault 'bogus'"),
    (["--game", "wheel", "--emulated", "--decks", "2"], option_refusal("decks", "wheel")),
    (["--config", str(F3_MOCK), "--host", "0.0.0.0"], "listening on 0.0.0.0 needs the operators"),
])
def test_mode_errors_are_one_line_exit_2_and_open_nothing(monkeypatch, tmp_path, args, message):
    journal = tmp_path / "j.sqlite"
    threads = set(threading.enumerate())
    code, output = invoke([*args, "--journal", str(journal), "--port", "0"], monkeypatch, tmp_path)
    assert code == 2 and message in output, output
    assert output.startswith("tablesim: error: ") and output.count("\n") == 1, output
    assert not journal.exists() and not (tmp_path / "j.tokens.json").exists()
    assert {t for t in threading.enumerate() if t not in threads and t.is_alive()} == set()


def test_a_configured_serial_port_that_does_not_exist_exits_2_naming_the_device(monkeypatch, tmp_path):
    path = tmp_path / "fb.toml"
    text = (ROOT / "config" / "tables" / "football-serial.toml").read_text()
    path.write_text(text.replace("/dev/ttyUSB0", str(tmp_path / "ttyNOPE0")).replace("/dev/ttyUSB1",
                                                                                      str(tmp_path / "ttyNOPE1")))
    journal = tmp_path / "j.sqlite"
    code, output = invoke(["--config", str(path), "--port", "0", "--journal", str(journal)], monkeypatch, tmp_path)
    assert code == 2 and output.count("\n") == 1, output
    assert output.startswith(f"tablesim: error: {path}: devices.shoe.url: shoe: cannot open {tmp_path / 'ttyNOPE0'}")
    assert output.rstrip().endswith("tablesim devices --probe)")
    assert not journal.exists() and not (tmp_path / "j.tokens.json").exists()


def test_a_busy_port_opens_no_device(monkeypatch, tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        code, output = invoke(["--game", "wheel", "--emulated", "--port", str(port), "--journal",
                               str(tmp_path / "j.sqlite")], monkeypatch, tmp_path)
    assert code == 2 and f"cannot listen on 127.0.0.1:{port}" in output
    assert not (tmp_path / "j.sqlite").exists()


def test_serve_emulated_as_a_process(env, tmp_path):
    journal = tmp_path / "fb.journal.sqlite"
    s = Serve(env, "--game", "football", "--emulated", "--time-scale", "0", "--seed", "4", "--port", "0",
              "--journal", str(journal))
    try:
        head = next(line for line in s.lines if line.startswith("FB-EMU: "))
        assert head.startswith("FB-EMU: football, emulated devices over the serial drivers (shoe on /dev/")
        assert "display on /dev/" in head and head.endswith("seed 4")
        assert f"operator tokens: {tmp_path / 'fb.tokens.json'} (new)" in s.lines
        assert s.post("/api/actions/open_round").status_code == 200
        s.wait_state("betting_open")
        assert s.post("/api/bets", {"position": "2", "bet": "even", "amount": "10"}).status_code == 200
        assert s.post("/api/actions/close_betting").status_code == 200
        assert s.post("/api/actions/deal").status_code == 200
        assert s.wait_state("complete")["result"]["status"] == "settled"
    finally:
        assert s.stop(signal.SIGTERM) == 0
    assert CliRunner().invoke(cli, ["audit", "verify", "--journal", str(journal)], env={"XDG_DATA_HOME": env["XDG_DATA_HOME"]}).exit_code == 0
