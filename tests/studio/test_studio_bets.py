"""Remote bets over the bus: request/reply on
tablesim.<table_id>.bets, answered after the commit by the console's rules
and texts, never placed twice for one ref (also across a table restart)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
import time

import httpx
import nats
import pytest

import webclient
from natsserver import free_port

pytestmark = pytest.mark.slow  # real processes each test (started first: see tests/conftest.py)

TABLE = "F3-MOCK"


def serve(journal, url: str, port: int) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "tablesim.cli.main", "serve", "--game", "fortune3", "--mock", "--seed", "3",
         "--port", str(port), "--journal", str(journal), "--studio", url],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_table(base: str, want=lambda t: True, timeout: float = 120.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            t = webclient.get(f"{base}/api/table", timeout=2).json()
            if want(t):
                return t
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise AssertionError("the table did not come up")


def dealer_token(journal) -> str:
    tokens = json.loads(journal.with_name(journal.name.split(".")[0] + ".tokens.json").read_text())
    return next(op["token"] for op in tokens["operators"] if op["role"] == "dealer")


async def request(url: str, body: object, timeout: float = 10.0) -> dict:
    nc = await nats.connect(url)
    try:
        msg = await nc.request(f"tablesim.{TABLE}.bets", json.dumps(body).encode(), timeout=timeout)
        return json.loads(msg.data)
    finally:
        await nc.close()


def ask(url: str, body: object) -> dict:
    return asyncio.run(request(url, body))


@pytest.fixture
def table(nats_server, tmp_path):
    journal = tmp_path / f"{TABLE}.journal.sqlite"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    procs = [serve(journal, nats_server.url, port)]

    class Table:
        def __init__(self):
            self.journal, self.base, self.url, self.broker = journal, base, nats_server.url, nats_server

        def up(self):
            return wait_table(base, lambda t: (t.get("studio") or {}).get("state") == "up")

        def restart(self):
            procs[-1].terminate()
            procs[-1].wait(20)
            procs.append(serve(journal, nats_server.url, port))
            return self.up()

        def act(self, name: str, body: dict | None = None) -> dict:
            r = webclient.post(f"{base}/api/actions/{name}", json=body or {},
                           headers={"Authorization": f"Bearer {dealer_token(journal)}"})
            assert r.status_code == 200, r.text
            return r.json()

    t = Table()
    t.up()
    yield t
    for p in procs:
        if p.poll() is None:
            p.terminate()
            p.wait(20)


def bet_records(journal) -> list[dict]:
    with sqlite3.connect(f"file:{journal}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT name, data FROM records WHERE (kind='event' AND name='bet') OR "
                          "(kind='input' AND name='place_bets') ORDER BY seq")
        # (a bet event each in an older journal; a group of bets' one record now)
        return [json.loads(d) if name == "bet" else {"position": b[1], "bet": b[2], "amount": b[3]}
                for name, d in rows for b in ([None] if name == "bet" else json.loads(d)["bets"])]


def test_bets_over_the_bus_by_the_consoles_rules(table):
    table.act("open_round")
    reply = ask(table.url, {"bets": [
        {"ref": "a1", "position": "1", "bet": "ante", "amount": "10"},
        {"ref": "a2", "position": "9", "bet": "ante", "amount": "10"},
        {"ref": "a3", "position": "2", "bet": "ante", "amount": 1.5},
        {"ref": "a4", "position": "2", "bet": "ante", "amount": "999999999"},
    ]})
    ok, bad_box, flt, over = reply["results"]
    assert ok["ok"] and ok["ref"] == "a1" and ok["round_id"] == f"{TABLE}-000001"
    # the same answer the console's batch route gives for the same bets
    console = webclient.post(f"{table.base}/api/bets/batch", json={"bets": [
        {"position": "9", "bet": "ante", "amount": "10"}, {"position": "2", "bet": "ante", "amount": "999999999"}]},
        headers={"Authorization": f"Bearer {dealer_token(table.journal)}"}).json()
    c_box, c_over = console["results"]
    assert (bad_box["error"], bad_box["reason"]) == (c_box["error"], c_box["reason"]) == ("refused", c_box["reason"])
    assert over["reason"] == c_over["reason"] and "limit" in over["reason"]
    # each refusal's message id and values beside its English (the same over the bus as from the console)
    assert bad_box["say"] == c_box["say"] == {"id": "fortune3.refusal.no_such_box", "args": {"box": "'9'", "boxes": "7"}}
    assert over["say"]["id"] == "refusal.over_maximum" and over["say"] == c_over["say"]
    assert flt["error"] == "bad_input" and "never a float" in flt["detail"]
    # committed before the reply: the journal already holds the accepted bet, once
    assert [b for b in bet_records(table.journal) if b["position"] == "1"] == [
        {"amount": "10", "bet": "ante", "position": "1"}]
    again = ask(table.url, {"ref": "a1", "position": "1", "bet": "ante", "amount": "10"})
    assert again["results"][0]["duplicate"] is True
    assert len([b for b in bet_records(table.journal) if b["position"] == "1"]) == 1
    assert ask(table.url, {"position": "3", "bet": "ante", "amount": "10"})["results"][0]["error"] == "bad_input"
    assert ask(table.url, [1, 2])["error"] == "bad_input"
    # a request of another version is not read as this one (it could mean other bets): nothing placed
    for v in (2, "1", None, True):
        later = ask(table.url, {"v": v, "bets": [{"ref": f"v{v}", "position": "5", "bet": "ante", "amount": "10"}]})
        assert later["error"] == "bad_input" and "version" in later["detail"], later
        assert ask(table.url, {"v": v, "ref": f"w{v}", "position": "5", "bet": "ante", "amount": "10"})["error"] \
            == "bad_input"
    assert not [b for b in bet_records(table.journal) if b["position"] == "5"]


def test_a_ref_is_never_placed_twice_across_a_restart(table):
    table.act("open_round")
    first = ask(table.url, {"ref": "r-1", "position": "4", "bet": "pair_plus", "amount": "20"})
    assert first["results"][0]["ok"] and "duplicate" not in first["results"][0]
    table.restart()  # betting is still open in the recovered round
    again = ask(table.url, {"ref": "r-1", "position": "4", "bet": "pair_plus", "amount": "20"})
    assert again["results"][0].pop("receipt")["seq"] == first["results"][0]["receipt"]["seq"]
    assert again["results"][0] == {"ok": True, "round_id": f"{TABLE}-000001", "ref": "r-1", "duplicate": True}
    assert len([b for b in bet_records(table.journal) if b["position"] == "4"]) == 1


def test_closed_betting_is_refused_with_the_consoles_text(table):
    table.act("open_round")
    assert ask(table.url, {"ref": "x", "position": "1", "bet": "ante", "amount": "10"})["results"][0]["ok"]
    table.act("close_betting")
    late = ask(table.url, {"ref": "y", "position": "2", "bet": "ante", "amount": "10"})["results"][0]
    r = webclient.post(f"{table.base}/api/bets", json={"position": "2", "bet": "ante", "amount": "10"},
                   headers={"Authorization": f"Bearer {dealer_token(table.journal)}"})
    assert r.status_code == 409
    assert late["error"] == "refused" and late["reason"] == r.json()["reason"]
    shown = wait_table(table.base)
    assert shown["studio"]["state"] == "up" and shown["studio"]["url"] == table.url


def test_the_console_shows_the_link_through_a_broker_restart(table):
    table.act("open_round")
    table.broker.kill()
    down = wait_table(table.base, lambda t: t["studio"]["state"] == "down", timeout=20)
    assert down["studio"]["error"]
    r = webclient.post(f"{table.base}/api/bets", json={"position": "1", "bet": "ante", "amount": "10"},
                   headers={"Authorization": f"Bearer {dealer_token(table.journal)}"})
    assert r.status_code == 200, r.text  # the table goes on without the broker
    table.act("close_betting")
    behind = wait_table(table.base, lambda t: t["studio"]["pending"] > 0, timeout=20)
    assert behind["studio"]["state"] == "down"
    table.broker.start()
    up = wait_table(table.base, lambda t: t["studio"]["state"] == "up" and t["studio"]["pending"] == 0, timeout=30)
    assert up["studio"]["published"] == up["studio"]["journal_seq"]
    late = ask(table.url, {"ref": "z", "position": "1", "bet": "ante", "amount": "10"})["results"][0]
    assert late["error"] == "refused" and "betting is closed" in late["reason"]


def test_accepted_bets_carry_receipts_checked_offline(table, tmp_path):
    """Each accepted bet's result carries a receipt (its record's signature)
    that `tablesim receipt verify` checks against the table's public key,
    exported and registered with the commands an operator uses."""
    from test_studio_publish import tablesim

    table.act("open_round")
    reply = ask(table.url, {"bets": [{"ref": "r1", "position": "1", "bet": "ante", "amount": "10"},
                                     {"ref": "r2", "position": "9", "bet": "ante", "amount": "10"}]})
    ok, refused = reply["results"]
    assert ok["ok"] and "receipt" in ok and "receipt" not in refused
    again = ask(table.url, {"ref": "r1", "position": "1", "bet": "ante", "amount": "10"})["results"][0]
    assert again["duplicate"] and again["receipt"]["seq"] == ok["receipt"]["seq"]  # the bet's own record
    pub = tmp_path / "F3-MOCK.pub.json"
    out = tablesim("keys", "export-public", "--table", TABLE, "--out", str(pub))
    assert out.returncode == 0, out.stderr
    reg = tablesim("studio", "register-key", str(pub))
    assert reg.returncode == 0 and "registered" in reg.stdout, reg.stderr
    receipt = tmp_path / "receipt.json"
    receipt.write_text(json.dumps(ok["receipt"]))
    good = tablesim("receipt", "verify", str(receipt), "--key", str(pub))
    assert good.returncode == 0, good.stderr
    assert "valid" in good.stdout and "ante 10 on position 1, ref r1" in good.stdout
    assert tablesim("receipt", "verify", json.dumps(ok), "--key", str(pub)).returncode == 0  # the result as given
    # a later bet of the round: its own (newer) record, found after the round's records were read once
    later = ask(table.url, {"ref": "r3", "position": "2", "bet": "ante", "amount": "10"})["results"][0]
    assert later["ok"] and later["receipt"]["seq"] > ok["receipt"]["seq"] and later["receipt"]["ref"] == "r3"
    checked = tablesim("receipt", "verify", json.dumps(later), "--key", str(pub))
    assert checked.returncode == 0 and "ref r3" in checked.stdout, checked.stderr
    # another bet in the signed group, another key, a bad file: invalid (1) or bad input (2)
    assert ok["receipt"]["v"] == 2 and ok["receipt"]["bet"] == ["r1", "1", "ante", "10", None]
    forged = dict(ok["receipt"], bet=["r1", "1", "pair_plus", "10", None])
    bad = tablesim("receipt", "verify", json.dumps(forged), "--key", str(pub))
    assert bad.returncode == 1 and "receipt invalid" in bad.stderr
    other = tmp_path / "other.pub.json"
    assert tablesim("keys", "export-public", "--table", TABLE, "--signing-key", str(tmp_path / "x.sign.key"),
                    "--out", str(other)).returncode == 0
    assert tablesim("receipt", "verify", str(receipt), "--key", str(other)).returncode == 1
    wrong = tablesim("studio", "register-key", str(other))
    assert wrong.returncode == 2 and "--replace" in wrong.stderr  # a key is never replaced by accident
    for text in ("{", json.dumps({"v": 1}), "[" * 5000, str(tmp_path / "nowhere.json")):
        junk = tablesim("receipt", "verify", text, "--key", str(pub))
        assert junk.returncode == 2 and junk.stderr.startswith("tablesim: error: ") and "Traceback" not in junk.stderr
