"""``tablesim wallet reconcile``: a real nats-server holding a table's
signed records (rounds with bets under refs, withdrawals, settled and void
results), the reference wallet as its own process, debited, credited and
cancelled through the wallet client as a platform would; every kind of
discrepancy is found (one line each, exit 1), a clean stream exits 0."""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import walletproc
from tablesim.studio import natsio, signing, wire
from tablesim.wallet.client import Transaction, WalletClient
from tablesim.wallet.protocol import Status
from tablesim.wallet.reconcile import Bet, StreamRound, check_round
from tablesim.wallet.signing import load_secret

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "studio"))
from natsserver import NATS_SERVER, NatsServer  # noqa: E402

D = Decimal
KEY = Ed25519PrivateKey.generate()
ROGUE = Ed25519PrivateKey.generate()


@pytest.fixture
def world(tmp_path, shared_wallet):
    """A broker of the test's own (its stream holds only the test's table), the module's wallet."""
    if NATS_SERVER is None:
        pytest.skip("nats-server is not installed (Debian package nats-server)")
    folder = tmp_path
    server = NatsServer(folder / "nats").start()
    keys = folder / "keys.json"
    keys.write_text(json.dumps({"v": 1, "tables": {t: signing.public_hex(KEY) for t in ("CLEAN-1", "BAD-1")}}))
    try:
        yield {"nats": server.url, "wallet": shared_wallet, "keys": keys}
    finally:
        server.stop()


class Table:
    """A table's journal as its studio link publishes it: chained, signed records."""

    def __init__(self, table_id: str) -> None:
        self.table_id, self.seq, self.prev, self.messages = table_id, 0, "0" * 64, []

    def record(self, round_id: str, kind: str, name: str, data: dict, key=KEY) -> None:
        self.seq += 1
        digest = hashlib.sha256(f"{self.table_id}{self.seq}{name}".encode()).hexdigest()
        body = wire.canonical({"v": 1, "record": {
            "seq": self.seq, "ts": "2026-12-01T20:00:00+00:00", "table_id": self.table_id, "round_id": round_id,
            "kind": kind, "name": name, "actor": "bus", "data": json.dumps(data), "prev_hash": self.prev,
            "hash": digest}})
        self.prev = digest
        headers = {wire.MSG_ID: wire.msg_id(self.table_id, self.seq), wire.SIG_HEADER: signing.sign(key, body)}
        self.messages.append((wire.record_subject(self.table_id, kind), body, headers))

    def bets(self, round_id: str, *bets: tuple[str, str, str, str]) -> None:
        """(ref, position, amount, player) each, on the ante."""
        self.record(round_id, "meta", "bet_refs", {"refs": [[r, pos, "ante", a, p] for r, pos, a, p in bets]})

    def withdrawn(self, round_id: str, position: str, player: str) -> None:
        self.record(round_id, "event", "bet_withdrawn", {"position": position, "bet": "ante", "player": player})

    def result(self, round_id: str, status: str, nets: dict[str, tuple[str, str]] | None = None) -> None:
        """``nets``: player -> (position, net)."""
        players = {p: {"results": {pos: {"ante": net}}, "net": net} for p, (pos, net) in (nets or {}).items()}
        self.record(round_id, "event", "result", {"game": "fortune3", "status": status, "void_reason": None,
                                                  "results": {}, "players": players})

    async def publish(self, url: str) -> None:
        nc = await natsio.connect(url, "test")
        try:
            js = nc.jetstream(timeout=5)
            await natsio.ensure_stream(js)
            for subject, body, headers in self.messages:
                await js.publish(subject, body, headers=headers)
        finally:
            await nc.close()


async def money(wallet, table: str, *acts) -> None:
    """("debit"|"credit"|"cancel", ...) as a platform would send them."""
    async with WalletClient(wallet.url, load_secret(wallet.secret)) as w:
        for act, tx, player, round_id, *rest in acts:
            if act == "debit":
                out = await w.debit(tx, player=player, currency="MOP", amount=D(rest[0]), table=table,
                                    round=round_id)
            elif act == "credit":
                out = await w.credit(tx, player=player, currency="MOP", amount=D(rest[0]), table=table,
                                     round=round_id, debits=rest[1])
            else:
                out = await w.cancel(tx, player=player, table=table, round=round_id, debit=rest[0])
            assert out.ok, (act, tx, out)


def reconcile(world, *more):
    return walletproc.cli("wallet", "reconcile", "--nats", world["nats"], "--wallet", world["wallet"].url,
                          "--secret", world["wallet"].secret, "--keys", world["keys"], *more)


def test_a_clean_stream_exits_0(world):
    t = Table("CLEAN-1")
    t.bets("C1-1", ("c1-won", "1", "10", "alice"), ("c1-lost", "2", "5", "ann"))
    t.result("C1-1", "settled", {"alice": ("1", "10"), "ann": ("2", "-5")})
    t.bets("C1-2", ("c2-void", "1", "7", "amy"))
    t.result("C1-2", "void")
    t.bets("C1-3", ("c3-gone", "1", "3", "alice"), ("c3-kept", "2", "4", "alice"))
    t.withdrawn("C1-3", "1", "alice")
    t.result("C1-3", "settled", {"alice": ("2", "4")})
    t.bets("C1-4", ("c4-open", "1", "2", "ann"))  # still open: nothing due yet
    asyncio.run(t.publish(world["nats"]))
    asyncio.run(money(world["wallet"], "CLEAN-1",
                      ("debit", "c1-won", "alice", "C1-1", "10"), ("debit", "c1-lost", "ann", "C1-1", "5"),
                      ("credit", "cr-c1-a", "alice", "C1-1", "20", ["c1-won"]),
                      ("credit", "cr-c1-b", "ann", "C1-1", "0", ["c1-lost"]),
                      ("debit", "c2-void", "amy", "C1-2", "7"), ("cancel", "x-c2", "amy", "C1-2", "c2-void"),
                      ("debit", "c3-gone", "alice", "C1-3", "3"), ("debit", "c3-kept", "alice", "C1-3", "4"),
                      ("cancel", "x-c3", "alice", "C1-3", "c3-gone"),
                      ("credit", "cr-c3", "alice", "C1-3", "8", ["c3-kept"]),
                      ("debit", "c4-open", "ann", "C1-4", "2")))
    rc, out, err = reconcile(world)
    assert rc == 0, (out, err)
    assert out.splitlines() == ["4 rounds (2 settled, 1 void, 1 open), 11 transactions: clean"]
    rc, out, _ = reconcile(world, "--json")
    doc = json.loads(out)
    assert rc == 0 and doc["clean"] and doc["findings"] == [] and doc["rounds"] == 4


def test_each_discrepancy_is_one_line_and_exit_1(world):
    t = Table("BAD-1")
    t.bets("B-1", ("b1", "1", "10", "alice"))                       # settled, never credited
    t.result("B-1", "settled", {"alice": ("1", "10")})
    t.bets("B-2", ("b2", "1", "10", "ann"))                         # credited 15 instead of 20
    t.result("B-2", "settled", {"ann": ("1", "10")})
    t.bets("B-3", ("b3", "1", "6", "amy"))                          # void, the debit stands
    t.result("B-3", "void")
    t.bets("B-4", ("b4", "1", "5", "alice"), ("b4-nodebit", "2", "5", "ann"))
    t.withdrawn("B-4", "1", "alice")                                # withdrawn, the debit stands
    t.result("B-4", "settled", {"ann": ("2", "-5")})
    t.bets("B-5", ("b5", "1", "4", "amy"))                          # paid twice
    t.result("B-5", "settled", {"amy": ("1", "-4")})
    t.record("B-5", "meta", "bet_refs", {"refs": [["b5-forged", "3", "ante", "9", "amy"]]}, key=ROGUE)
    asyncio.run(t.publish(world["nats"]))
    wallet = world["wallet"]
    asyncio.run(money(wallet, "BAD-1",
                      ("debit", "b1", "alice", "B-1", "10"),
                      ("debit", "b2", "ann", "B-2", "10"), ("credit", "cr-b2", "ann", "B-2", "15", ["b2"]),
                      ("debit", "b3", "amy", "B-3", "6"),
                      ("debit", "b4", "alice", "B-4", "5"),
                      ("debit", "b4-orphan", "alice", "B-4", "3"),  # no bet of the table's
                      ("debit", "b5", "amy", "B-5", "4"),
                      ("debit", "b5-forged", "amy", "B-5", "9"), ("cancel", "x-b5f", "amy", "B-5", "b5-forged"),
                      ("credit", "cr-b5", "amy", "B-5", "0", ["b5"])))
    _pay_twice(wallet.db, "cr-b5", "cr-b5-again")  # a wallet that paid the round twice (the reference one refuses)
    rc, out, err = reconcile(world)
    assert rc == 1, (out, err)
    lines = out.splitlines()
    assert lines[:-1] == [
        "credit_missing: table BAD-1 round B-1 player alice: no credit of the round (due: 20 for debits b1)",
        "credit_wrong_amount: table BAD-1 round B-2 player ann: credit cr-b2 paid 15, due 20 (stakes 10, net 10)",
        "void_debit_not_cancelled: table BAD-1 round B-3 player amy: the round is void and debit b3 of 6 is not "
        "cancelled",
        "withdrawn_debit_not_cancelled: table BAD-1 round B-4 player alice: bet b4 was withdrawn and its debit "
        "of 5 is not cancelled",
        "bet_without_debit: table BAD-1 round B-4 player ann: the table accepted bet b4-nodebit of 5 and no "
        "debit b4-nodebit was made",
        "debit_without_bet: table BAD-1 round B-4 player alice: debit b4-orphan of 3 in a settled round is no "
        "bet the table accepted and is not cancelled",
        "credit_doubled: table BAD-1 round B-5 player amy: debit b5 is named by credit cr-b5 and again by "
        "cr-b5-again (2 credits paying 0; due once: 0)",
    ]
    assert lines[-1].endswith("7 discrepancies; 1 stream messages not signed by their table, left out")
    rc, out, _ = reconcile(world, "--json")
    doc = json.loads(out)
    assert rc == 1 and not doc["clean"] and doc["left_out"] == 1
    assert {k: v for k, v in doc["counts"].items() if v} == {
        "credit_missing": 1, "credit_wrong_amount": 1, "void_debit_not_cancelled": 1, "bet_without_debit": 1,
        "withdrawn_debit_not_cancelled": 1, "debit_without_bet": 1, "credit_doubled": 1}
    # --since after every record and transaction: nothing to hold against anything
    rc, out, _ = reconcile(world, "--since", "2100-01-01T00:00:00Z")
    assert rc == 0 and out.startswith("0 rounds"), out


def _pay_twice(db: Path, credit: str, again: str) -> None:
    con = sqlite3.connect(db)
    try:
        with con:
            con.execute("INSERT INTO tx (id, kind, player, currency, tbl, round, amount, debits, debit, status, "
                        "effect, digest, answer, at) SELECT ?, kind, player, currency, tbl, round, amount, debits, "
                        "debit, status, effect, digest, answer, at FROM tx WHERE id=?", (again, credit))
    finally:
        con.close()


def test_bad_input_is_one_line(world):
    rc, out, err = reconcile(world, "--since", "yesterday")
    assert rc == 2 and err.startswith("tablesim: error: ") and "--since" in err and out == ""
    rc, out, err = walletproc.cli("wallet", "reconcile", "--nats", "http://x", "--wallet", world["wallet"].url,
                                  "--secret", world["wallet"].secret)
    assert rc == 2 and "is not a NATS URL" in err


def test_credits_paid_twice_or_in_a_void_round_and_credits_without_bets():
    """(The reference wallet refuses these: the finding is held on transactions as another wallet lists them.)"""
    def tx(tid, kind, player, amount, debits=None, debit=None):
        return Transaction(1, tid, kind, player, "MOP", "T", "R", D(amount), debits, debit, Status.OK,
                           "2026-12-01T20:00:00.000Z")

    void = StreamRound("T", "R", "void", {"d1": Bet("d1", "alice", D(5))})
    found = check_round(void, "T", "R", [tx("d1", "debit", "alice", "5"), tx("x1", "cancel", "alice", "5",
                                                                              debit="d1"),
                                         tx("c1", "credit", "alice", "10", ("d1",))], now=_now(), grace=60)
    assert [f.kind for f in found] == ["credit_in_void_round"]
    settled = StreamRound("T", "R", "settled", {"d1": Bet("d1", "alice", D(5))}, {"alice": D(5)})
    found = check_round(settled, "T", "R", [tx("d1", "debit", "alice", "5"), tx("c1", "credit", "alice", "10",
                                                                                ("d1", "d9")),
                                            tx("c2", "credit", "bob", "3", ("d7",))], now=_now(), grace=60)
    assert [f.kind for f in found] == ["credit_wrong_debits", "credit_without_bet"]


def _now():
    from datetime import datetime, timezone

    return datetime(2026, 12, 1, 21, tzinfo=timezone.utc)


def test_remote_plays_are_debits_of_their_own_and_a_missing_credit_is_still_found(world):
    """Fortune 3's shared remote hand: a Play is a debit taken at the
    decision (the decision's ref and stake), a fold none; a round paid right
    is clean, a round whose credit never came is found, its Play named."""
    t = Table("CLEAN-1")
    for rid in ("R-1", "R-2"):
        t.bets(rid, (f"{rid}-ante-a", "remote", "10", "alice"), (f"{rid}-ante-b", "remote", "5", "ann"))
        t.record(rid, "event", "decision", {"box": "remote", "decision": "play", "player": "alice",
                                            "ref": f"{rid}-play-a", "stake": "10"})
        t.record(rid, "event", "decision", {"box": "remote", "decision": "fold", "player": "ann"})
        t.result(rid, "settled", {"alice": ("remote", "20"), "ann": ("remote", "-5")})
    asyncio.run(t.publish(world["nats"]))
    acts = []
    for rid in ("R-1", "R-2"):
        acts += [("debit", f"{rid}-ante-a", "alice", rid, "10"), ("debit", f"{rid}-ante-b", "ann", rid, "5"),
                 ("debit", f"{rid}-play-a", "alice", rid, "10"),
                 ("credit", f"cr-{rid}-b", "ann", rid, "0", [f"{rid}-ante-b"])]
    acts.append(("credit", "cr-R-1-a", "alice", "R-1", "40", ["R-1-ante-a", "R-1-play-a"]))
    asyncio.run(money(world["wallet"], "CLEAN-1", *acts))
    rc, out, _ = reconcile(world, "--json")
    findings = json.loads(out)["findings"]
    assert rc == 1 and [(f["kind"], f["round"], f["player"]) for f in findings] == [
        ("credit_missing", "R-2", "alice")], findings
    assert "due: 40 for debits R-2-ante-a, R-2-play-a" in findings[0]["text"], findings
