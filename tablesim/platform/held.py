"""Settlement's writes the wallet will never do: held for an operator.

A credit or cancel the wallet answered with a final refusal (``final_error``,
``unknown_transaction``, ``already_cancelled`` of a credit, ``unknown_player``,
``wrong_currency``, an ``invalid_request``...) would get the same answer at
every retry: the wallet keeps the answer under the transaction id. So it is
never retried silently: it is written here (in the platform's own database,
beside the intent log), alerted at once in the log and on ``/api/health``,
and waits for an operator's decision (``tablesim platform held`` lists them;
``tablesim platform resolve`` sends the same request again under a new id
derived from the old one, once the cause is mended in the wallet, or closes
it with the operator's reason when the player was paid another way).

The request is kept whole (its JSON), so a retry is exactly the request
that failed, under ``<id>-r<n>``; nothing is derived again from a stream that
may have moved on.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import asdict, dataclass

SCHEMA = """
CREATE TABLE IF NOT EXISTS held (
    id TEXT PRIMARY KEY, call TEXT NOT NULL, player TEXT NOT NULL, tbl TEXT NOT NULL, round TEXT NOT NULL,
    request TEXT NOT NULL, status TEXT NOT NULL, message TEXT, at REAL NOT NULL,
    tries INTEGER NOT NULL DEFAULT 0, resolved TEXT, resolved_at REAL);
"""

#: what a resolved item's ``resolved`` starts with
RETRIED, CLOSED = "retried", "closed"


@dataclass(frozen=True, slots=True)
class Held:
    id: str
    call: str  # credit or cancel
    player: str
    table: str
    round: str
    request: dict
    status: str
    message: str | None
    at: float
    tries: int
    resolved: str | None

    def as_json(self) -> dict:
        return asdict(self)


class HeldWrites:
    """The held writes of one platform database (``db``, the intent log's connection, and its ``lock``:
    SQLite is opened by the intent log alone)."""

    def __init__(self, db, lock: threading.Lock) -> None:
        self.db, self.lock = db, lock
        with self.lock:
            self.db.executescript(SCHEMA)

    def hold(self, call: str, request: dict, status: str, message: str | None) -> bool:
        """Keep a write the wallet refused for good; False if it was held before (a result read again)."""
        with self.lock:
            cur = self.db.execute(
                "INSERT INTO held (id, call, player, tbl, round, request, status, message, at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
                (request["transaction_id"], call, request["player"], request["table"], request["round"],
                 json.dumps(request, separators=(",", ":")), status, (message or "")[:500], time.time()))
            return cur.rowcount == 1

    def open(self) -> list[Held]:
        return self._rows("WHERE resolved IS NULL")

    def all(self) -> list[Held]:
        return self._rows("")

    def get(self, held_id: str) -> Held | None:
        rows = self._rows("WHERE id=?", (held_id,))
        return rows[0] if rows else None

    def count_open(self) -> int:
        with self.lock:
            return self.db.execute("SELECT COUNT(*) FROM held WHERE resolved IS NULL").fetchone()[0]

    def tried(self, held_id: str, status: str, message: str | None, done: bool) -> None:
        """A retry's outcome: resolved when the wallet did it, else held still with its new answer."""
        with self.lock:
            self.db.execute("UPDATE held SET tries=tries+1, status=?, message=?, resolved=?, resolved_at=? "
                            "WHERE id=?", (status, (message or "")[:500], f"{RETRIED}: {status}" if done else None,
                                           time.time() if done else None, held_id))

    def close(self, held_id: str, why: str) -> None:
        with self.lock:
            self.db.execute("UPDATE held SET resolved=?, resolved_at=? WHERE id=?",
                            (f"{CLOSED}: {why}", time.time(), held_id))

    def _rows(self, where: str, args: tuple = ()) -> list[Held]:
        with self.lock:
            rows = self.db.execute(f"SELECT id, call, player, tbl, round, request, status, message, at, tries, "
                                   f"resolved FROM held {where} ORDER BY at", args).fetchall()
        return [Held(r[0], r[1], r[2], r[3], r[4], json.loads(r[5]), r[6], r[7], r[8], r[9], r[10]) for r in rows]


def retry_id(held: Held) -> str:
    """The id of the next retry of ``held``: derived, so a retry sent twice is one write."""
    return f"{held.id}-r{held.tries + 1}"
