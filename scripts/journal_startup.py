#!/usr/bin/env python3
"""Measure a table's start-up check on a large journal.

    python scripts/journal_startup.py [--records 1000000] [--journal PATH] [--keep]

Writes a keyed journal of about ``--records`` records for a mock Fortune 3
table (rounds of 30 records, each ending with its result, so there is
nothing to replay), then times, on the closed file:

- the start-up verification: ``integrity_check``, the chain from the last
  checkpoint, the checkpoint and the head (what every start does before
  recovering anything);
- the whole start of a table on it (open, lock, verify, recover);
- for comparison, the full audit (``integrity_check`` and every record).

The key and the journal go to a temporary data directory unless
``--journal`` names a file (``--keep`` keeps them).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROUND = 30  # records per round, about a real Fortune 3 round


def build(path: Path, records: int, table_id: str) -> int:
    from tablesim.games.fortune3.profile import load_profile
    from tablesim.journal.journal import Journal
    from tablesim.profiles import profile_stamp

    journal = Journal(path, durable=False)
    journal.profile = profile_stamp(load_profile())
    rounds = 0
    try:
        while journal.seq < records:
            with journal.transaction():
                for _ in range(200):
                    rounds += 1
                    rid = f"{table_id}-{rounds:06d}"
                    journal.append(table_id, rid, "input", "open_round", {"args": [], "kwargs": {"round_id": rid}},
                                   "dealer")
                    for box in range(1, 7):
                        journal.append(table_id, rid, "input", "place_bet",
                                       {"args": [str(box), "ante", {"$dec": "10"}], "kwargs": {}}, "player")
                        journal.append(table_id, rid, "event", "bet",
                                       {"position": str(box), "bet": "ante", "amount": "10"}, "table")
                    for n in range(ROUND - 15):
                        journal.append(table_id, rid, "event", "card", {"card": "AS", "to": str(n % 7)}, "table")
                    journal.append(table_id, rid, "event", "result",
                                   {"status": "settled", "round_id": rid, "results": {}, "net": {}, "outcome": {}},
                                   "table")
                    if journal.seq >= records:
                        break
    finally:
        journal.close()
    return rounds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--journal", type=Path, default=None)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args(argv)
    tmp = str(args.journal.parent) if args.journal else tempfile.mkdtemp(prefix="tablesim-startup-")
    os.environ["XDG_DATA_HOME"] = tmp  # the table's key lives beside the journal here
    path = args.journal or Path(tmp) / "F3-MOCK.journal.sqlite"
    table_id = "F3-MOCK"

    from tablesim.journal.attach import check_before_recovery
    from tablesim.journal.audit import verify_file
    from tablesim.journal.journal import Journal
    from tablesim.games.rig import mock_rig
    from tablesim.journal.attach import attach_and_recover

    if not path.exists():
        started = time.perf_counter()
        rounds = build(path, args.records, table_id)
        print(f"built {path}: {rounds} rounds in {time.perf_counter() - started:.1f} s")
    size = path.stat().st_size
    journal = Journal(path)
    print(f"journal: {journal.seq} records, {size / 1e6:.0f} MB")

    started = time.perf_counter()
    check_before_recovery(journal, table_id)
    verify_s = time.perf_counter() - started
    started = time.perf_counter()
    journal.store.damage()
    quick_s = time.perf_counter() - started
    journal.close()
    print(f"start-up verification (integrity_check + chain from the checkpoint): {verify_s:.2f} s "
          f"(integrity_check alone: {quick_s:.2f} s)")

    rig = mock_rig("fortune3", seed=1)
    started = time.perf_counter()
    attach_and_recover(rig.table, str(path))
    start_s = time.perf_counter() - started
    rig.table.journal.close()
    print(f"table start (open, lock, verify, recover): {start_s:.2f} s")

    started = time.perf_counter()
    result = verify_file(path)
    print(f"full audit ({result.describe()}): {time.perf_counter() - started:.2f} s")
    if not args.keep and args.journal is None:  # (a journal named is kept, with its key)
        import shutil

        shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
