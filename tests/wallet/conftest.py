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
    yield from _serve(files)


@pytest.fixture(scope="module")
def shared_wallet(tmp_path_factory):
    """One reference wallet for a module whose tests each use players of their own."""
    folder = tmp_path_factory.mktemp("wallet")
    secret, players = walletproc.write_files(folder)
    yield from _serve({"secret": secret, "players": players, "db": folder / "wallet.db"}, reaped=False)


def _serve(files, reaped: bool = True):
    proc = walletproc.reference(files["db"], files["secret"], files["players"], reaped=reaped)
    proc.db = files["db"]
    proc.secret = files["secret"]
    try:
        yield proc
    finally:
        rc, err = proc.stop()
    assert rc == 0 and "Traceback" not in err, err  # Ctrl-C (SIGINT) stops it cleanly
