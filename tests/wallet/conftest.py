"""Fixtures of the wallet tests: the reference wallet as its own process,
with its secret, players and ledger in the test's folder."""

from __future__ import annotations

import pytest

import walletproc


@pytest.fixture
def files(tmp_path):
    secret, players = walletproc.write_files(tmp_path)
    return {"secret": secret, "players": players, "db": tmp_path / "wallet.db"}


@pytest.fixture
def wallet(files):
    proc = walletproc.reference(files["db"], files["secret"], files["players"])
    proc.db = files["db"]
    proc.secret = files["secret"]
    yield proc
    proc.stop()
