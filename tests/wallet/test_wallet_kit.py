"""The conformance kit (``tablesim wallet check``) against the reference
wallet and against a broken one, each its own process."""

from __future__ import annotations

from types import SimpleNamespace

import walletproc
from tablesim.wallet.kitcases import CASES


def check(url: str, secret, token: str):
    rc, out, err = walletproc.cli("wallet", "check", url, "--secret", secret, "--token", token)
    return SimpleNamespace(returncode=rc, stdout=out, stderr=err)


def test_the_reference_wallet_passes_every_case(shared_wallet):
    wallet = shared_wallet
    out = check(wallet.url, wallet.secret, walletproc.token(wallet.db, "kit"))
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert lines[-1] == f"{len(CASES)} passed, 0 failed"
    for case in ("duplicate debit", "credit before debit", "cancel after credit", "cancel unknown debit",
                 "insufficient funds", "bad signature", "stale timestamp", "reused id", "concurrent debits",
                 "too many decimals", "negative amount", "huge amount", "unknown player", "wrong currency",
                 "batch as alone", "launch token once", "spaced amount"):
        assert any(line.startswith("pass  " + case) for line in lines), case


def test_a_wallet_that_does_not_dedupe_fails(files):
    bad = walletproc.broken(files["db"], files["secret"], files["players"])
    try:
        out = check(bad.url, files["secret"], walletproc.token(files["db"], "kit"))
    finally:
        bad.stop()
    assert out.returncode == 1, out.stdout + out.stderr
    failed = [line.split("  ")[1] for line in out.stdout.splitlines() if line.startswith("FAIL")]
    assert "duplicate debit" in failed and "reused id" in failed and "duplicate credit" in failed
    assert "bad signature" not in failed  # what the wallet does right still passes


def test_bad_input_is_one_line_exit_2(shared_wallet, tmp_path):
    wallet = shared_wallet
    token = walletproc.token(wallet.db, "kit")
    wrong = tmp_path / "other.secret"
    wrong.write_text("another-secret-" * 3 + "\n")
    wrong.chmod(0o600)
    open_secret = tmp_path / "open.secret"
    open_secret.write_text("x" * 40)
    open_secret.chmod(0o644)
    cases = [
        (wallet.url, wallet.secret, "no-such-token-at-all-xx", "does not authenticate --token: invalid_token"),
        (wallet.url, wrong, token, "is --secret the wallet's?"),
        (wallet.url, open_secret, token, "open to others (mode 0644)"),
        ("http://127.0.0.1:9/wallet/v1", wallet.secret, token, "cannot reach the wallet"),
        ("ftp://x", wallet.secret, token, "is not an http:// or https:// URL"),
    ]
    for url, secret, tok, said in cases:
        out = check(url, secret, tok)
        assert out.returncode == 2, (said, out.stdout, out.stderr)
        assert out.stderr.count("\n") == 1 and out.stderr.startswith("tablesim: error: ") and said in out.stderr
        assert "x" * 40 not in out.stderr


def test_the_kit_needs_enough_money(shared_wallet):
    wallet = shared_wallet
    out = check(wallet.url, wallet.secret, walletproc.token(wallet.db, "poor"))
    assert out.returncode == 2 and "needs a balance of at least 100 MOP" in out.stderr
