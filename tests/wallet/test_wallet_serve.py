"""``tablesim wallet serve|token|secret``: bad input refused in one line
(exit 2, nothing served or written), the secret never shown or logged."""

from __future__ import annotations

import json
import time

import httpx
import pytest

import webclient
import walletproc
from tablesim.wallet import signing
from tablesim.wallet.protocol import MAX_BODY


def one_line(*args) -> str:
    rc, out, err = walletproc.cli(*args)
    assert rc == 2, (out, err)
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("tablesim: error: "), err
    assert out == ""
    return lines[0]


def serve(files, **over) -> str:
    args = {"--db": files["db"], "--secret": files["secret"], "--players": files["players"], **over}
    return one_line("wallet", "serve", *[x for kv in args.items() for x in kv], "--port", "0")


def test_a_secret_open_to_others_is_refused_and_not_shown(files):
    files["secret"].chmod(0o640)
    said = serve(files)
    assert "open to others (mode 0640): chmod 600 it" in said and "s3cr3t" not in said
    assert not files["db"].exists()


@pytest.mark.parametrize("text, said", [
    ("short\n", "not a wallet secret"),
    ("two words" * 5 + "\n", "not a wallet secret"),
])
def test_a_malformed_secret_is_refused_without_showing_it(files, text, said):
    files["secret"].write_text(text)
    line = serve(files)
    assert said in line and text.strip() not in line


@pytest.mark.parametrize("players, said", [
    ('[[players]]\nid = "a"\ncurrency = "MOP"\nbalance = "1.005"\n', "balance: '1.005' is not a whole number"),
    ('[[players]]\nid = "a"\ncurrency = "MOP"\nbalance = -5\n', "must be zero or positive"),
    ('[[players]]\nid = "a"\ncurrency = "MOP"\nbalance = 1e3\n', "exponent"),
    ('[[players]]\nid = "a"\ncurrency = "mop"\nbalance = 1\n', "is not a currency code"),
    ('[[players]]\nid = "a b"\ncurrency = "MOP"\nbalance = 1\n', "is not a player id"),
    ('[[players]]\nid = "a"\ncurrency = "MOP"\nbalance = 1\n[[players]]\nid = "a"\ncurrency = "MOP"\nbalance = 2\n',
     "listed twice"),
    ('[[players]]\nid = "a"\ncurrency = "MOP"\nbalance = 1\nbonus = 3\n', "bonus: not a field of a player"),
    ("[[players]\n", "not valid TOML"),
])
def test_a_bad_players_file_is_one_line(files, players, said):
    files["players"].write_text(players)
    assert said in serve(files)


def test_an_opening_balance_is_written_once(files):
    rc, _, err = walletproc.cli("wallet", "token", "--player", "alice", "--db", files["db"],
                                "--players", files["players"])
    assert rc == 0, err
    files["players"].write_text(files["players"].read_text().replace('"1000.00"', '"2000.00"'))
    assert "player alice: currency or opening balance differs from the ledger's" in serve(files)


def test_token_and_secret_commands(files, tmp_path):
    assert "no such ledger" in one_line("wallet", "token", "--player", "alice", "--db", files["db"])
    rc, out, err = walletproc.cli("wallet", "token", "--player", "alice", "--db", files["db"],
                                  "--players", files["players"])
    assert rc == 0 and len(out.strip()) == 32, err
    assert "no player 'carol'" in one_line("wallet", "token", "--player", "carol", "--db", files["db"])
    new = tmp_path / "new.secret"
    rc, out, _ = walletproc.cli("wallet", "secret", new)
    assert rc == 0 and new.stat().st_mode & 0o777 == 0o600
    assert new.read_text().strip() not in out
    assert "exists already" in one_line("wallet", "secret", new)
    assert signing.load_secret(new)


def _post(url: str, secret: bytes, call: str, body: bytes) -> httpx.Response:
    path = "/wallet/v1/" + call
    headers = signing.request_headers(secret, path, body, timestamp=int(time.time()))
    return webclient.post(url + "/" + call, content=body, headers=headers, timeout=10)


def test_the_secret_is_never_logged_and_hostile_bodies_are_refused(files):
    argv = walletproc.reference_argv(files["db"], files["secret"], files["players"])
    proc = walletproc.Process([*argv[:3], "--log-level", "debug", *argv[3:]], "wallet")
    secret = signing.load_secret(files["secret"])
    big = _post(proc.url, secret, "debit", b" " * (MAX_BODY + 1))
    assert (big.status_code, big.json()["status"]) == (400, "invalid_request")
    nested = _post(proc.url, secret, "debit", b"[" * 50000)
    assert nested.json()["status"] == "invalid_request"
    nocall = _post(proc.url, secret, "withdraw", b"{}")
    assert nocall.status_code == 400 and "no call 'withdraw'" in nocall.json()["message"]
    bad = _post(proc.url, b"other-secret-" * 3, "balance",
                json.dumps({"request_id": "b", "player": "alice", "currency": "MOP"}).encode())
    assert (bad.status_code, bad.json()) == (401, {"status": "bad_signature",
                                                   "message": "the signature does not match the request"})
    ok = _post(proc.url, secret, "balance", json.dumps({"request_id": "b", "player": "alice",
                                                         "currency": "MOP"}).encode())
    assert ok.json()["balance"] == "1000.00"
    rc, err = proc.stop()
    assert rc == 0 and "wallet_refused" in err  # a debug log, and the secret nowhere in it
    assert secret.decode() not in err


def test_sigterm_stops_it_cleanly(files):
    """(Ctrl-C is how every test's wallet is stopped, and checked.)"""
    import signal

    proc = walletproc.reference(files["db"], files["secret"], files["players"])
    proc.proc.send_signal(signal.SIGTERM)
    proc.proc.wait(20)
    rc, err = proc.stop()
    assert rc == 0 and "Traceback" not in err


@pytest.mark.parametrize("make", ["directory", "fifo"])
def test_a_secret_that_is_no_regular_file_is_refused_unread(files, make):
    """(A FIFO is opened without blocking and refused: never waited on.)"""
    import os

    files["secret"].unlink()
    if make == "directory":
        files["secret"].mkdir(mode=0o700)
    else:
        os.mkfifo(files["secret"], 0o600)
    assert "the secret file is not a regular file" in serve(files)
    assert not files["db"].exists()
