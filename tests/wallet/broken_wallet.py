"""A broken wallet, as its own process, to show the conformance kit catches
it: the reference wallet with its ledger's memory of transaction ids taken
away (a repeated debit is debited again, an id reused with other content is
taken as new). ``python broken_wallet.py DB SECRET PLAYERS`` prints
``wallet: URL`` like ``tablesim wallet serve``. With ``--no-batch`` it is a
correct wallet without the optional ``batch`` call instead (it answers it
``invalid_request``, as a wallet that does not know the call)."""

from __future__ import annotations

import sys
import uuid

from tablesim.wallet import protocol as p
from tablesim.wallet.app import Wallet, bind, serve
from tablesim.wallet.ledger import Ledger
from tablesim.wallet.players import load_players
from tablesim.wallet.signing import load_secret


class ForgetfulLedger(Ledger):
    def _kept(self, transaction_id):
        return None  # the fault: no idempotency

    def _insert(self, transaction_id, row, status, digest, body):
        # a repeat gets a row of its own (the reference schema keeps ids unique)
        if super()._kept(transaction_id) is not None:
            transaction_id = f"{transaction_id}#{uuid.uuid4().hex[:8]}"
        super()._insert(transaction_id, row, status, digest, body)


class NoBatchWallet(Wallet):
    async def call_async(self, name, body):
        if name == "batch":
            raise p.Refused(p.Status.INVALID_REQUEST, "no call 'batch'")
        return await super().call_async(name, body)


def main() -> None:
    db, secret, players = sys.argv[1:4]
    no_batch = "--no-batch" in sys.argv[4:]
    ledger = Ledger(db) if no_batch else ForgetfulLedger(db)
    ledger.load(load_players(players))
    sock = bind("127.0.0.1", 0)
    print(f"wallet: http://127.0.0.1:{sock.getsockname()[1]}/wallet/v1", flush=True)
    serve((NoBatchWallet if no_batch else Wallet)(ledger, load_secret(secret)), sock)


if __name__ == "__main__":
    main()
