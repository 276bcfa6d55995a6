"""Launch tokens at the reference wallet's ledger: a token opens one
session (used up atomically by the authenticate that opens it, even from
two connections at once; that same request again is answered again), it
expires, a ledger written before tokens were used once gets the mark, and
``tablesim wallet token`` prints a token or a whole launch link."""

from __future__ import annotations

import json
import sqlite3
import threading

from decimal import Decimal

import walletproc
from tablesim.wallet.app import Wallet
from tablesim.wallet.ledger import Ledger
from tablesim.wallet.players import Limits, Player, Roster

ROSTER = Roster({"MOP": Decimal("0.01")}, tuple(Player(pid, "MOP", Decimal(bal), Limits())
                                                for pid, bal in (("p1", "100.00"), ("p2", "7.50"))))


def _auth(wallet: Wallet, token: str, request_id: str) -> dict:
    return json.loads(wallet.call("authenticate", json.dumps({"request_id": request_id, "token": token}).encode())[1])


def test_a_token_opens_one_session_and_its_own_request_again(tmp_path):
    ledger = Ledger(tmp_path / "w.db")
    ledger.load(ROSTER)
    wallet, token = Wallet(ledger, b"x" * 32), ledger.issue_token("p1")
    first = _auth(wallet, token, "s-1")
    assert (first["status"], first["player"], first["balance"]) == ("ok", "p1", "100.00")
    second = _auth(wallet, token, "s-2")
    assert (second["status"], second["player"]) == ("token_used", None), second
    assert _auth(wallet, token, "s-1") == first  # its answer lost on the way: the same request is answered again
    assert _auth(wallet, ledger.issue_token("p1", minutes=-1), "s-3")["status"] == "invalid_token"  # expired
    assert _auth(wallet, "n" * 32, "s-4")["status"] == "invalid_token"


def test_two_connections_at_once_open_one_session(tmp_path):
    db = tmp_path / "w.db"
    setup = Ledger(db)
    setup.load(ROSTER)
    tokens = [setup.issue_token("p2") for _ in range(20)]
    wallets = [Wallet(Ledger(db), b"x" * 32) for _ in range(2)]
    statuses: list[list[str]] = [[], []]
    start = threading.Barrier(2)

    def open_all(i: int) -> None:
        start.wait()
        statuses[i] = [_auth(wallets[i], t, f"c{i}-{n}")["status"] for n, t in enumerate(tokens)]

    threads = [threading.Thread(target=open_all, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for a, b in zip(*statuses):
        assert sorted((a, b)) == ["ok", "token_used"], statuses


def test_a_ledger_written_before_tokens_were_used_once_gets_the_mark(tmp_path):
    db = tmp_path / "old.db"
    old = sqlite3.connect(db)
    old.executescript("CREATE TABLE token (digest TEXT PRIMARY KEY, player TEXT NOT NULL, expires TEXT NOT NULL);")
    old.close()
    ledger = Ledger(db)
    ledger.load(ROSTER)
    wallet, token = Wallet(ledger, b"x" * 32), ledger.issue_token("p1")
    assert [_auth(wallet, token, r)["status"] for r in ("a", "b")] == ["ok", "token_used"]


def test_the_token_command_prints_a_token_or_a_launch_link(tmp_path):
    secret, players = walletproc.write_files(tmp_path)
    db = tmp_path / "wallet.db"
    rc, out, err = walletproc.cli("wallet", "token", "--player", "alice", "--db", db, "--players", players,
                                  "--minutes", "2", "--link", "http://127.0.0.1:9/#token=old")
    assert rc == 0, err
    link = out.strip()
    assert link.startswith("http://127.0.0.1:9/#token=") and len(link.rpartition("=")[2]) == 32, link
    ledger = Ledger(db)
    (expires,) = ledger.db.execute("SELECT expires FROM token").fetchone()
    from datetime import datetime, timedelta, timezone

    left = datetime.fromisoformat(expires.replace("Z", "+00:00")) - datetime.now(timezone.utc)
    assert timedelta(0) < left <= timedelta(minutes=2)
    assert _auth(Wallet(ledger, b"x" * 32), link.rpartition("=")[2], "r")["player"] == "alice"
    for args, said in ((["--minutes", "0"], "--minutes"), (["--link", "ftp://x"], "--link"),
                       (["--link", "nowhere"], "is not an http:// or https:// URL")):
        rc, out, err = walletproc.cli("wallet", "token", "--player", "alice", "--db", db, *args)
        assert rc == 2 and said in err and err.count("\n") == 1, (args, err)
    assert ledger.db.execute("SELECT COUNT(*) FROM token").fetchone() == (1,)  # nothing issued by a refusal
