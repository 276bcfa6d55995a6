"""The reference operator wallet's ledger on SQLite.

Every transaction is a row (refusals too); a balance is never stored, it is
the opening balance plus the sum of the rows' effects, kept as whole numbers
of the currency's unit so SQLite sums them exactly (the sum is kept per
player by a trigger, in the transaction of each row: ``ACCOUNTS``). A write
takes the database's write lock first (``BEGIN IMMEDIATE``), so two debits of one
player, from any thread or process, are checked and written one after the
other. An answer is written in the same transaction as its effect: a repeat
of the transaction id finds it and gets it byte for byte, whenever and
however often it comes.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import operator
import secrets
import sqlite3
import threading
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

from tablecore.errors import InputError
from tablecore.money import MONEY, fmt
from tablesim.wallet import protocol as p
from tablesim.wallet.amounts import Unit
from tablesim.wallet.players import Roster

SCHEMA = """
CREATE TABLE IF NOT EXISTS currency (code TEXT PRIMARY KEY, unit TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS player (
    id TEXT PRIMARY KEY, currency TEXT NOT NULL, opening INTEGER NOT NULL,
    max_debit TEXT, daily_stake TEXT, message TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS token (digest TEXT PRIMARY KEY, player TEXT NOT NULL, expires TEXT NOT NULL, used TEXT);
-- (seq: the row's rowid, one more than the last: rows are never deleted, so a seq is never given twice
-- without AUTOINCREMENT, which wrote its counter's row again at every row; a ledger made with it keeps it)
CREATE TABLE IF NOT EXISTS tx (
    seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,
    player TEXT NOT NULL, currency TEXT, tbl TEXT NOT NULL, round TEXT NOT NULL, amount TEXT NOT NULL,
    debits TEXT, debit TEXT, status TEXT NOT NULL, effect INTEGER NOT NULL,
    digest BLOB NOT NULL, answer BLOB NOT NULL, at TEXT NOT NULL);
-- (a round's rows in their order: the key ends in the row's number, so a group's rows go to the end of
-- their round's run of the index, a page or two a group, where an index by player put each row on a page
-- of its own: ``UNUSED_INDEXES``)
CREATE INDEX IF NOT EXISTS tx_round ON tx (tbl, round);
CREATE INDEX IF NOT EXISTS tx_debit ON tx (debit) WHERE debit IS NOT NULL;
-- (no index of the rows' times: ``UNUSED_INDEXES``)
-- (a debit asks whether its player's round is credited: this index holds only the credits, one lookup,
-- where an index of the round's rows had every row of the player's round read, the more bets the longer)
CREATE INDEX IF NOT EXISTS tx_credited ON tx (tbl, round, player) WHERE kind='credit' AND status='ok';
CREATE TABLE IF NOT EXISTS settled (debit TEXT PRIMARY KEY, credit TEXT NOT NULL);
"""

#: the accepted debits of the players with a daily stake limit, by player and time: what the limit sums
#: (``Ledger._staked_today``), written with the debit's row. Only those players' debits: an index of
#: every row by player cost a debit as much as all the rest of its writing (each row on a page of its
#: own, 5,000 players' rows apart). Filled from the rows when a player is given a limit, and when a
#: ledger written before it opens.
STAKES = "CREATE TABLE stake (player TEXT NOT NULL, at TEXT NOT NULL, id TEXT NOT NULL, " \
         "PRIMARY KEY (player, at, id)) WITHOUT ROWID"
#: a player's accepted debits as the stake table holds them (the players by ``%s``)
_STAKES_OF = ("INSERT OR IGNORE INTO stake SELECT player, at, id FROM tx "
              "WHERE kind='debit' AND status='ok' AND player IN (%s)")

#: each player's movements summed, kept by the database itself in the
#: transaction of every row written (rows are never changed or deleted),
#: so a balance is read in one lookup instead of summing a player's rows;
#: a ledger written before it gets it filled from its rows once
ACCOUNTS = (
    "CREATE TABLE account (player TEXT PRIMARY KEY, moved INTEGER NOT NULL)",
    "INSERT INTO account SELECT player, SUM(effect) FROM tx GROUP BY player",
    "CREATE TRIGGER tx_moves AFTER INSERT ON tx WHEN NEW.effect != 0 BEGIN "
    "INSERT INTO account VALUES (NEW.player, NEW.effect) "
    "ON CONFLICT (player) DO UPDATE SET moved = moved + excluded.moved; END",
)


#: indexes a ledger written before had and drops as it opens: no query reads them (the time query pages by
#: seq, its plan a range of the rowid, tx_at never looked at) and every row written paid their upkeep
UNUSED_INDEXES = ("tx_at", "tx_player", "tx_round_player")

#: what the ledger's database raises when it cannot read or write (busy, a
#: full disk): the wallet's server answers a temporary error, nothing kept
LedgerUnavailable = sqlite3.Error

#: how long a launch token opens a session: a lobby hands one out as the player opens a game
TOKEN_MINUTES = 5.0


def round_credits(path: str | Path, table: str, round_id: str) -> tuple[int, str | None]:
    """(how many credits of the round the ledger at ``path`` holds, when the
    last was made): read-only, beside the wallet that writes it."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        n, last = db.execute("SELECT COUNT(*), MAX(at) FROM tx WHERE kind='credit' AND tbl=? AND round=?",
                             (table, round_id)).fetchone()
    finally:
        db.close()
    return n, last


class Answer(Exception):
    """Ends a write early with a status (kept like any answer)."""

    def __init__(self, status: p.Status, message: str, balance: int | None = None) -> None:
        self.status, self.message, self.balance = status, message, balance


class Ledger:
    def __init__(self, path: str | Path) -> None:
        try:
            self.db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, timeout=2.0)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")  # money: a committed answer survives a power cut
            self.db.executescript(SCHEMA)
            self._accounts()
            self._stakes()
            self._token_use()
            self._unused_indexes()
        except sqlite3.Error as exc:
            raise InputError(f"cannot open the wallet's database: {exc}", where=str(path)) from None
        self.lock = threading.Lock()
        self._units: dict[str, Unit] = {}
        self._currency_of: dict[str, str] = {}  # a player's currency is written once, never changed
        self._known: _Known | None = None  # a group's first look at its ids (``write_group``)
        self._at: str | None = None  # a group's time stamp: its rows are made (and committed) together
        self._rows: list[tuple[str, tuple]] = []  # a group's rows not yet written (``_sql``): (statement, values)
        self._settled: list[tuple[str, str]] = []  # a group's (debit, credit) rows not yet written, after its ``_rows``
        self._held = self._flushed = 0  # a group's rows held back, and the changes their writing made (``_changes``)

    def close(self) -> None:
        self.db.close()

    def _accounts(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            if self.db.execute("SELECT 1 FROM sqlite_master WHERE name='account'").fetchone() is None:
                for statement in ACCOUNTS:
                    self.db.execute(statement)
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def _stakes(self) -> None:
        """The stake table, made (and filled from the rows of the players with
        a daily limit) by the first open of a ledger that has none."""
        def made() -> bool:
            return self.db.execute("SELECT 1 FROM sqlite_master WHERE name='stake'").fetchone() is not None

        if made():  # (looked for first: a ledger that has it is opened without a write)
            return
        self.db.execute("BEGIN IMMEDIATE")
        try:
            if not made():  # (another process opening the same ledger may have made it meanwhile)
                self.db.execute(STAKES)
                self.db.execute(_STAKES_OF % "SELECT id FROM player WHERE daily_stake IS NOT NULL")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def _token_use(self) -> None:
        """A ledger written before launch tokens were used once gets the
        column that marks a used one (its tokens: unused)."""
        if "used" not in {r[1] for r in self.db.execute("PRAGMA table_info(token)")}:
            self.db.execute("ALTER TABLE token ADD COLUMN used TEXT")

    def _unused_indexes(self) -> None:
        for name in UNUSED_INDEXES:  # (looked for first: a ledger without it is opened without a write)
            if self.db.execute("SELECT 1 FROM sqlite_master WHERE type='index' AND name=?", (name,)).fetchone():
                self.db.execute(f"DROP INDEX IF EXISTS {name}")

    @contextmanager
    def _write(self):
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    # --- players, currencies, tokens --------------------------------------------------

    def load(self, roster: Roster, where: str = "players file") -> int:
        """Write new currencies and players; an opening balance or a unit,
        once written, never changes (refused, one line). Returns the players."""
        with self._write():
            for code, unit in roster.units.items():
                row = self.db.execute("SELECT unit FROM currency WHERE code=?", (code,)).fetchone()
                if row is None:
                    self.db.execute("INSERT INTO currency VALUES (?, ?)", (code, fmt(unit)))
                elif Decimal(row[0]) != unit:
                    raise InputError(f"{code}'s unit {fmt(unit)} differs from the ledger's {row[0]}", where=where)
            limited = [pl.id for pl in roster.players if self._load_player(pl, roster.units[pl.currency], where)]
            for part in _parts(limited):  # (their debits before: each a full read of the rows, once for all)
                self.db.execute(_STAKES_OF % ",".join("?" * len(part)), part)
        return len(roster.players)

    def _load_player(self, pl, unit: Decimal, where: str) -> bool:
        """Whether the player has a daily stake limit now and had none (their
        debits so far are to be put in the stake table)."""
        opening = int(MONEY.divide(pl.balance, unit))
        lim = pl.limits
        row = self.db.execute("SELECT currency, opening, daily_stake FROM player WHERE id=?", (pl.id,)).fetchone()
        if row is not None and (row[0] != pl.currency or row[1] != opening):
            raise InputError(f"player {pl.id}: currency or opening balance differs from the ledger's "
                             "(written once, at the player's first load)", where=where)
        self.db.execute(
            "INSERT INTO player VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
            "max_debit=excluded.max_debit, daily_stake=excluded.daily_stake, message=excluded.message",
            (pl.id, pl.currency, opening, _opt(lim.max_debit), _opt(lim.daily_stake), lim.message))
        had = row is not None and row[2] is not None
        if had and lim.daily_stake is None:  # (its debits from now on are not written there: none kept)
            self.db.execute("DELETE FROM stake WHERE player=?", (pl.id,))
        return row is not None and not had and lim.daily_stake is not None

    def issue_token(self, player: str, minutes: float = TOKEN_MINUTES) -> str:
        """A new launch token of ``player``, good for one session within
        ``minutes`` (only its hash is kept)."""
        with self._write():
            if self.db.execute("SELECT 1 FROM player WHERE id=?", (player,)).fetchone() is None:
                raise InputError(f"no player {player!r} in the ledger (players are loaded by tablesim wallet serve "
                                 "or token --players)")
            token = secrets.token_urlsafe(24)
            expires = (datetime.now(timezone.utc) + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
            self.db.execute("INSERT INTO token VALUES (?, ?, ?, NULL)", (_digest(token.encode()), player, expires))
        return token

    def unit(self, currency: str) -> Decimal:
        return self._unit(currency).unit

    def _unit(self, currency: str) -> Unit:
        unit = self._units.get(currency)
        if unit is None:  # (a unit, once written, never changes)
            row = self.db.execute("SELECT unit FROM currency WHERE code=?", (currency,)).fetchone()
            unit = self._units[currency] = Unit(Decimal(row[0]))
        return unit

    def _player(self, player: str, currency: str | None = None):
        """(currency, balance in units, max_debit, daily_stake, message) of ``player``."""
        known = self._known
        row = known.players.get(player) if known is not None else None
        if row is None:
            row = self._sql(f"SELECT {_PLAYER_ROW} WHERE p.id=?", (player,)).fetchone()
        if row is None:
            raise Answer(p.Status.UNKNOWN_PLAYER, f"no player {player!r}")
        self._currency_of[player] = row[0]
        if currency is not None and currency != row[0]:
            raise Answer(p.Status.WRONG_CURRENCY, f"player {player!r} plays in {row[0]}, not {currency}", row[1])
        return row

    def text(self, units: int, currency: str) -> str:
        return self._unit(currency).text(units)

    def to_units(self, amount: Decimal, currency: str) -> int:
        return self._amount(amount, currency)[0]

    def _amount(self, amount: Decimal, currency: str) -> tuple[int, str]:
        """(``amount`` in units of ``currency``, their text); refused if it has more decimals than the unit."""
        unit = self._unit(currency)
        known = unit.units(amount)
        if known is None:
            raise p.Refused(p.Status.INVALID_REQUEST,
                            f"amount: {fmt(amount)} has more decimals than {currency}'s unit {fmt(unit.unit)}")
        return known

    # --- reads ------------------------------------------------------------------------

    def authenticate(self, req: p.Authenticate) -> tuple[p.Status, bytes]:
        """The token's player, the token used up by this request: a
        launch link opens one session. The same request again (its answer
        lost on the way) is answered again; any other is refused."""
        digest = _digest(req.token.encode())
        with self._write():
            row = self.db.execute("SELECT player, expires, used FROM token WHERE digest=?", (digest,)).fetchone()
            if row is None or row[1] < p.now_text():
                return p.Status.INVALID_TOKEN, p.encode(_read_answer(req.request_id, p.Status.INVALID_TOKEN,
                                                                     "the launch token is unknown or expired"))
            if row[2] is not None and row[2] != req.request_id:
                return p.Status.TOKEN_USED, p.encode(_read_answer(
                    req.request_id, p.Status.TOKEN_USED, "the launch token has opened a session already"))
            self.db.execute("UPDATE token SET used=? WHERE digest=?", (req.request_id, digest))
            return self._account(req.request_id, row[0], None)

    def balance(self, req: p.Balance) -> tuple[p.Status, bytes]:
        with self.lock:
            return self._account(req.request_id, req.player, req.currency)

    def _account(self, request_id: str, player: str, currency: str | None) -> tuple[p.Status, bytes]:
        try:
            row = self._player(player, currency)
        except Answer as answer:
            return answer.status, p.encode(_read_answer(request_id, answer.status, answer.message))
        answer = _read_answer(request_id, p.Status.OK, None)
        answer.update(player=player, currency=row[0], unit=fmt(self.unit(row[0])),
                      balance=self.text(row[1], row[0]))
        return p.Status.OK, p.encode(answer)

    def transactions(self, req: p.Transactions) -> tuple[p.Status, bytes]:
        if req.table is not None:
            where, args = "tbl=? AND round=?", (req.table, req.round)
        else:
            where, args = "at>=? AND at<?", (req.since, req.until)
        with self.lock:
            rows = self.db.execute(
                f"SELECT seq, id, kind, player, currency, tbl, round, amount, debits, debit, status, at FROM tx "
                f"WHERE {where} AND seq>? ORDER BY seq LIMIT ?", (*args, req.after, req.limit + 1)).fetchall()
        more = len(rows) > req.limit
        rows = rows[:req.limit]
        listed = [dict(seq=r[0], transaction_id=r[1], kind=r[2], player=r[3], currency=r[4], table=r[5], round=r[6],
                       amount=r[7], debits=None if r[8] is None else json.loads(r[8]), debit=r[9], status=r[10],
                       at=r[11]) for r in rows]
        answer = {"status": "ok", "request_id": req.request_id, "transactions": listed,
                  "next": rows[-1][0] if more else None}
        return p.Status.OK, p.encode(answer)

    # --- writes -----------------------------------------------------------------------

    def write(self, req) -> tuple[p.Status, bytes]:
        """A debit, credit or cancel in a transaction of its own."""
        with self._write():
            return self.write_in(req)

    def write_many(self, reqs: list) -> list:
        """Writes in one transaction (group commit: one fsync for them all),
        each in a savepoint; each one's (status, answer), or the ``Refused``
        that refused it. Nothing is answered before the commit: on a storage
        error every one of them raises it (none was kept)."""
        with self._write():
            return self.write_group(reqs)

    def begin(self) -> None:
        """Open a write transaction (waits for the write lock up to the timeout)."""
        self.db.execute("BEGIN IMMEDIATE")

    def begin_at_once(self) -> bool:
        """Open a write transaction if no other connection holds the write
        lock now (False if one does: then ``begin``, which waits)."""
        self.db.execute("PRAGMA busy_timeout=0")
        try:
            self.db.execute("BEGIN IMMEDIATE")
            return True
        except sqlite3.OperationalError:
            return False
        finally:
            self.db.execute("PRAGMA busy_timeout=2000")

    def commit(self) -> None:
        self.db.execute("COMMIT")

    def rollback(self) -> None:
        if self.db.in_transaction:
            self.db.execute("ROLLBACK")

    def write_group(self, reqs: list) -> list:
        """``write_many``'s writes inside a transaction opened by ``begin``.

        A write is refused (``Refused``) before its first statement that
        changes anything, so a refusal leaves nothing to roll back (no
        savepoint per write: two statements less each); should one ever
        come after a change, the whole group is rolled back, unanswered.
        The group's rows are held back and written together (``_flush``),
        before any statement that reads the ledger and at the group's end."""
        results: list = []
        self._known = _Known(self.db, reqs)
        self._at = p.now_text()
        try:
            for req in reqs:
                changes = self._changes()
                try:
                    results.append(self.write_in(req))
                except p.Refused as refusal:
                    if self._changes() != changes:
                        raise RuntimeError(f"a write was refused after changing the ledger: {refusal}") from None
                    results.append(refusal)
            self._flush()
        finally:
            self._known, self._at = None, None
            self._rows.clear()  # (a group that failed leaves its rows unwritten: it is rolled back)
            self._settled.clear()
            self._held = self._flushed = 0
        return results

    def _changes(self) -> int:
        """The group's changes so far: a row held back counts as made when it
        is held, not again when written (with what its trigger changed)."""
        return self.db.total_changes - self._flushed + self._held

    def write_in(self, req) -> tuple[p.Status, bytes]:
        """A debit, credit or cancel inside an open transaction: its kept
        answer if its id was seen with the same content; refused if with
        other content; else done now."""
        digest = _digest(p.canonical(req))
        if type(req) is p.Debit and self._known is not None:
            done = self._plain_debit(req, digest)
            if done is not None:
                return done
        tid = req.transaction_id
        kept = self._kept(tid)
        if kept is not None:
            if kept[0] != digest:
                raise p.Refused(p.Status.ID_REUSED, f"transaction id {tid!r} was used for another request")
            return p.Status(kept[1]), kept[2]
        kind = _KINDS.get(type(req)) or type(req).__name__.lower()
        row = {"kind": kind, "player": req.player, "currency": getattr(req, "currency", None), "debits": None,
               "debit": None, "effect": 0, "amount": "0", "tbl": req.table, "round": req.round}
        try:
            row["amount"] = p.amount_text(getattr(req, "amount", 0))
            _HANDLERS[kind](self, req, row)
            status, message, balance = _OK, None, row["balance"]
        except Answer as refusal:
            row["effect"] = 0
            status, message, balance = refusal.status, refusal.message, refusal.balance
        text = None if balance is None else self._unit(self._currency_of[req.player]).text(balance)
        if status is _OK and kind != "cancel" and p.plain(tid):
            # (most answers: the fields put in their places, the same bytes as the dict encoded)
            shown = "null" if text is None else f'"{text}"'
            body = f'{{"status":"ok","transaction_id":"{tid}","balance":{shown},"message":null}}'.encode()
        else:
            answer = {"status": _TEXT[status], "transaction_id": tid, "balance": text, "message": message}
            if kind == "cancel":
                answer["cancelled"] = row["amount"] if status is _OK else None
            body = p.encode(answer)
        known = self._known
        if known is not None:  # (what this write changes is read again, not from the group's first look)
            known.ids.discard(tid)
            known.named.discard(tid)  # (a debit a credit of the group names, written now)
            if kind == "cancel":
                known.ids.discard(req.debit)
                known.named.discard(req.debit)
        self._insert(tid, row, status, digest, body)
        if known is not None:
            known.wrote(req.player, row["effect"],
                        (req.table, req.round, req.player) if kind == "credit" and status is _OK else None)
        if status is _OK and kind == "credit":
            settled = [(d, req.transaction_id) for d in req.debits]
            if known is None:
                self._sql_many("INSERT INTO settled VALUES (?, ?)", settled)
            else:  # (held with the group's rows, written after them: ``_flush``)
                known.settled.update(req.debits)
                self._settled.extend(settled)
                self._held += len(settled)
        return status, body

    def _plain_debit(self, req: p.Debit, digest: bytes) -> tuple[p.Status, bytes] | None:
        """A debit of a group that is plainly accepted (nearly every one), read
        off the group's first look (``_Known``): a new id, a known player in its
        currency, a whole number of units, no limit, its round not credited, the
        balance enough. Its answer and row are those ``write_in``'s own way
        makes (a test holds a group against the same writes one by one, which
        go that way); None for any other debit, which goes that way."""
        known, tid, player = self._known, req.transaction_id, req.player
        if tid not in known.ids or tid in known.kept or tid in known.cancelled:
            return None
        row = known.players.get(player)
        key = (req.table, req.round, player)
        if row is None or row[0] != req.currency or row[2] is not None or row[3] is not None \
                or key not in known.asked or key in known.credited:
            return None
        unit = self._units.get(req.currency)
        got = None if unit is None else unit.units(req.amount)
        if got is None or got[0] > row[1] or not p.plain(tid):
            return None
        units, amount = got
        left = row[1] - units
        body = f'{{"status":"ok","transaction_id":"{tid}","balance":"{unit.text(left)}","message":null}}'.encode()
        self._currency_of[player] = row[0]
        known.ids.discard(tid)
        known.named.discard(tid)
        self._rows.append((_INSERT_PLAIN, (tid, "debit", player, row[0], req.table, req.round, amount, "ok", -units,
                                           bytearray(digest), bytearray(body), self._at)))
        self._held += 1
        row[1] = left
        return _OK, body

    def _kept(self, transaction_id: str):
        if self._known is not None and transaction_id in self._known.ids:
            return self._known.kept.get(transaction_id)
        return self._sql("SELECT digest, status, answer FROM tx WHERE id=?", (transaction_id,)).fetchone()

    def _insert(self, transaction_id: str, row: dict, status: p.Status, digest: bytes, body: bytes) -> None:
        # (sqlite3 binds a None or a bytes through its adapters' look-up, an exception made and dropped each
        # time: a debit's NULLs are written in its statement, and blobs bound as bytearrays, stored the same)
        at = self._at or p.now_text()
        if row["debits"] is None and row["debit"] is None and row["currency"] is not None:
            sql, values = _INSERT_PLAIN, (transaction_id, row["kind"], row["player"], row["currency"], row["tbl"],
                                          row["round"], row["amount"], _TEXT[status], row["effect"],
                                          bytearray(digest), bytearray(body), at)
        else:
            sql, values = _INSERT, (transaction_id, row["kind"], row["player"], row["currency"], row["tbl"],
                                    row["round"], row["amount"], row["debits"], row["debit"], _TEXT[status],
                                    row["effect"], bytearray(digest), bytearray(body), at)
        if self._known is None:
            self.db.execute(sql, values)
        else:  # (a group's rows are written together, by one statement, before anything reads: ``_sql``)
            self._rows.append((sql, values))
            self._held += 1
        if row.get("limited") and status is _OK:  # (a debit a daily limit sums)
            if self._known is None:
                self.db.execute(_STAKE, (row["player"], at, transaction_id))
            else:
                self._rows.append((_STAKE, (row["player"], at, transaction_id)))
                self._held += 1

    def _sql(self, sql: str, args=()) -> sqlite3.Cursor:
        """A statement of a write: the group's rows held back are written
        first, so it finds the ledger as the writes one by one left it (a
        group's reads of its own ids and players are ``_Known``'s, the rows
        need not be there for them)."""
        if self._rows or self._settled:
            self._flush()
        return self.db.execute(sql, args)

    def _sql_many(self, sql: str, rows: list) -> None:
        if self._rows or self._settled:
            self._flush()
        self.db.executemany(sql, rows)

    def _flush(self) -> None:
        """The group's rows held back, written in their order (a run of rows
        of one statement by one ``executemany``: its call, cursor and
        statement look-up once, not a row's)."""
        rows, self._rows = self._rows, []
        settled, self._settled = self._settled, []
        before = self.db.total_changes
        for sql, run in itertools.groupby(rows, key=operator.itemgetter(0)):  # (in their order: their seq)
            self.db.executemany(sql, [values for _, values in run])
        if settled:  # (no row of ``tx`` reads them: all of them after, one statement)
            self.db.executemany("INSERT INTO settled VALUES (?, ?)", settled)
        self._flushed += self.db.total_changes - before

    def _debit(self, req: p.Debit, row: dict) -> None:
        currency, balance, max_debit, daily_stake, message = self._player(req.player, req.currency)
        units, row["amount"] = self._amount(req.amount, currency)
        if self._round_settled(req.player, req.table, req.round):
            raise Answer(p.Status.ALREADY_SETTLED, f"round {req.round} of {req.table} is settled for this player",
                         balance)
        if self._cancelled(req.transaction_id):
            raise Answer(p.Status.ALREADY_CANCELLED, f"debit {req.transaction_id!r} was cancelled before it came",
                         balance)
        if max_debit is not None and req.amount > Decimal(max_debit):
            raise Answer(p.Status.LIMIT_REACHED, message, balance)
        if daily_stake is not None:
            row["limited"] = True  # (accepted, the limit sums it from now on: ``_insert``)
            if MONEY.multiply(Decimal(self._staked_today(req.player) + units), self.unit(currency)) \
                    > Decimal(daily_stake):
                raise Answer(p.Status.LIMIT_REACHED, message, balance)
        if units > balance:
            raise Answer(p.Status.INSUFFICIENT_FUNDS, f"the balance {self.text(balance, currency)} {currency} is less "
                         f"than {row['amount']}", balance)
        row["effect"] = -units
        row["balance"] = balance - units

    def _credit(self, req: p.Credit, row: dict) -> None:
        currency, balance, *_ = self._player(req.player, req.currency)
        units, row["amount"] = self._amount(req.amount, currency)
        row["debits"] = json.dumps(list(req.debits))
        # A credit settles the debits it names, and only those: a round's return may
        # come in several credits (a player with more debits than one credit names),
        # each naming debits no other credit named (``_creditable``: already_settled).
        # A standing debit a credit leaves unnamed is not an error: it is a bet the
        # table never took (an orphan), cancelled on its own before or after the
        # credit. (Requiring every standing debit to be named made one orphan of a
        # round fail its credit for good: the answer is kept under the credit's id.)
        self._creditable(req, balance)
        row["effect"] = units
        row["balance"] = balance + units

    def _creditable(self, req: p.Credit, balance: int) -> None:
        """Every debit the credit names, checked in order as one by one (the
        first that fails gives the answer): as the group's first look read them
        (``_Known``), or, when a write of the group changed one, in three
        queries for all."""
        named = list(req.debits)
        known = self._known
        if known is not None and known.named.issuperset(named):  # (read for the whole group at its start)
            cancelled, found, settled = known.named_cancelled, known.debits, known.settled
        else:
            marks = ",".join("?" * len(named))
            cancelled = {d for (d,) in self._sql(
                f"SELECT debit FROM tx WHERE debit IN ({marks}) AND kind='cancel' AND status='ok'", named)}
            found = {r[0]: r[1:] for r in self._sql(
                f"SELECT id, player, tbl, round, status FROM tx WHERE id IN ({marks}) AND kind='debit'", named)}
            settled = {d for (d,) in self._sql(f"SELECT debit FROM settled WHERE debit IN ({marks})", named)}
        for debit in named:
            if debit in cancelled:
                raise Answer(p.Status.ALREADY_CANCELLED, f"debit {debit!r} is cancelled", balance)
            row = found.get(debit)
            if row is None or row[3] != "ok" or tuple(row[:3]) != (req.player, req.table, req.round):
                raise Answer(p.Status.UNKNOWN_TRANSACTION,
                             f"no accepted debit {debit!r} of this player in round {req.round} of {req.table}",
                             balance)
            if debit in settled:
                raise Answer(p.Status.ALREADY_SETTLED, f"debit {debit!r} is credited already", balance)

    def _cancel(self, req: p.Cancel, row: dict) -> None:
        currency, balance, *_ = self._player(req.player)
        row["currency"], row["debit"] = currency, req.debit
        row["balance"] = balance
        if self._cancelled(req.debit):
            raise Answer(p.Status.ALREADY_CANCELLED, f"debit {req.debit!r} is cancelled already", balance)
        found = self._sql("SELECT kind, player, tbl, round, status, effect FROM tx WHERE id=?",
                          (req.debit,)).fetchone()
        if found is None:  # a tombstone: the debit, should it come later, is refused
            row["amount"] = self.text(0, currency)
            return
        if found[0] != "debit" or tuple(found[1:4]) != (req.player, req.table, req.round):
            raise Answer(p.Status.UNKNOWN_TRANSACTION,
                         f"{req.debit!r} is no debit of this player in round {req.round} of {req.table}", balance)
        if self._sql("SELECT 1 FROM settled WHERE debit=?", (req.debit,)).fetchone():
            raise Answer(p.Status.ALREADY_SETTLED, f"debit {req.debit!r} is credited: it cannot be cancelled",
                         balance)
        returned = -found[5] if found[4] == "ok" else 0
        row["amount"] = self.text(returned, currency)
        row["effect"] = returned
        row["balance"] = balance + returned

    def _cancelled(self, debit: str) -> bool:
        if self._known is not None and debit in self._known.ids:
            return debit in self._known.cancelled
        return self._sql("SELECT 1 FROM tx WHERE debit=? AND kind='cancel' AND status='ok'",
                         (debit,)).fetchone() is not None

    def _round_settled(self, player: str, table: str, round_id: str) -> bool:
        key = (table, round_id, player)
        if self._known is not None and key in self._known.asked:
            return key in self._known.credited
        return self._sql("SELECT 1 FROM tx WHERE tbl=? AND round=? AND player=? AND kind='credit' AND "
                         "status='ok'", (table, round_id, player)).fetchone() is not None

    def _staked_today(self, player: str) -> int:
        since = (datetime.now(timezone.utc) - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        (units,) = self._sql(
            "SELECT COALESCE(-SUM(t.effect), 0) FROM stake s JOIN tx t ON t.id = s.id WHERE s.player=? AND s.at>=? "
            "AND t.kind='debit' AND t.status='ok' "
            "AND NOT EXISTS (SELECT 1 FROM tx c WHERE c.debit = t.id AND c.kind='cancel' AND c.status='ok')",
            (player, since)).fetchone()
        return units


class _Known:
    """What a group of writes finds under its own ids, read in two queries for
    all instead of two a write: each id's kept row, and the ids a cancel
    stands for. An id a write of the group changes (its own id; a cancel's
    debit) leaves ``ids`` and is read again as it is then. The same for the
    debits the group's credits name (``named``): their rows, cancels and
    credits read once for all the group's credits (a round's settlement is a
    group of credits naming a few debits each: three queries a credit were
    about a third of the wallet's CPU a bet), the credits the group makes
    noted in ``settled`` as they are made."""

    def __init__(self, db, reqs: list) -> None:
        self.ids = {req.transaction_id for req in reqs}
        self.kept: dict[str, tuple] = {}
        self.cancelled: set[str] = set()
        #: the group's players' rows (as ``Ledger._player`` reads one), each balance moved by the group's
        #: writes as they are made (the transaction holds the write lock: no one else moves it)
        self.players: dict[str, list] = {}
        #: the (table, round, player) of the group's debits read for a credit, and those credited
        self.asked: set[tuple[str, str, str]] = set()
        self.credited: set[tuple[str, str, str]] = set()
        for part in _parts(list(self.ids)):
            marks = ",".join("?" * len(part))
            for tid, *rest in db.execute(f"SELECT id, digest, status, answer FROM tx WHERE id IN ({marks})", part):
                self.kept[tid] = tuple(rest)
            self.cancelled.update(d for (d,) in db.execute(
                f"SELECT debit FROM tx WHERE debit IN ({marks}) AND kind='cancel' AND status='ok'", part))
        for part in _parts(list({req.player for req in reqs if isinstance(getattr(req, "player", None), str)})):
            for pid, *row in db.execute(f"SELECT p.id, {_PLAYER_ROW} WHERE p.id IN ({','.join('?' * len(part))})",
                                        part):
                self.players[pid] = row
        rounds: dict[tuple[str, str], set[str]] = {}
        for req in reqs:
            if isinstance(req, p.Debit):
                rounds.setdefault((req.table, req.round), set()).add(req.player)
        for (table, round_id), who in rounds.items():
            for part in _parts(list(who)):
                self.asked.update((table, round_id, pl) for pl in part)
                self.credited.update((table, round_id, pl) for (pl,) in db.execute(
                    f"SELECT player FROM tx WHERE tbl=? AND round=? AND player IN ({','.join('?' * len(part))}) "
                    "AND kind='credit' AND status='ok'", [table, round_id, *part]))
        #: the debits the group's credits name, while what is below is theirs as the ledger has it: a debit
        #: or cancel of the group under one of them takes it out (its credit reads it again, ``_creditable``)
        self.named: set[str] = set()
        self.debits: dict[str, tuple] = {}  # a named debit's (player, table, round, status), if it is a debit
        self.named_cancelled: set[str] = set()  # the named debits an accepted cancel stands for
        self.settled: set[str] = set()  # the named debits a credit settled (before, or in the group)
        named = {d for req in reqs if isinstance(req, p.Credit) for d in req.debits}
        for part in _parts(list(named)):
            # (each debit's row with whether it is settled and cancelled, in one statement; the
            # cancels of ids that are no debit, a cancel's tombstone, read apart: nearly never any)
            for did, player, table, round_id, status, settled, cancelled in db.execute(_NAMED_DEBITS % (
                    ",".join("?" * len(part))), part):
                self.debits[did] = (player, table, round_id, status)
                if settled:
                    self.settled.add(did)
                if cancelled:
                    self.named_cancelled.add(did)
            missing = [d for d in part if d not in self.debits]
            if missing:
                marks = ",".join("?" * len(missing))
                self.named_cancelled.update(d for (d,) in db.execute(
                    f"SELECT debit FROM tx WHERE debit IN ({marks}) AND kind='cancel' AND status='ok'", missing))
                self.settled.update(d for (d,) in db.execute(f"SELECT debit FROM settled WHERE debit IN ({marks})",
                                                             missing))
        self.named = named

    def wrote(self, player: str, effect: int, credited: tuple[str, str, str] | None) -> None:
        """A write of the group was made: its player's balance moved, its round (table, round, player)
        credited when it is a credit made."""
        if effect:
            row = self.players.get(player)
            if row is not None:
                row[1] += effect
        if credited is not None:
            self.credited.add(credited)


_INSERT = ("INSERT INTO tx (id, kind, player, currency, tbl, round, amount, debits, debit, status, effect, digest, "
           "answer, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
#: a debit of a player with a daily stake limit, as the limit reads it (``STAKES``)
_STAKE = "INSERT INTO stake VALUES (?, ?, ?)"
#: a row without a credit's debits or a cancel's debit (a debit's, a credit's refused before it named them)
_INSERT_PLAIN = ("INSERT INTO tx (id, kind, player, currency, tbl, round, amount, debits, debit, status, effect, "
                 "digest, answer, at) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?, ?, ?, ?, ?)")

#: a write's kind by its record's type, and a status's text (an Enum's ``.value`` is a property: slow in a
#: write's loop)
_KINDS = {p.Debit: "debit", p.Credit: "credit", p.Cancel: "cancel"}
#: each kind's own checks (a method looked up by its name made a string and a look-up a write)
_HANDLERS = {"debit": Ledger._debit, "credit": Ledger._credit, "cancel": Ledger._cancel}
_TEXT = {status: status.value for status in p.Status}
_OK = p.Status.OK

#: a player's row as ``Ledger._player`` reads it: currency, balance, max_debit, daily_stake, message
_PLAYER_ROW = ("p.currency, p.opening + COALESCE(a.moved, 0), p.max_debit, p.daily_stake, p.message "
               "FROM player p LEFT JOIN account a ON a.player = p.id")


#: the debits a group's credits name (``_Known``): each one's row, and whether a credit settled it and an
#: accepted cancel stands for it
_NAMED_DEBITS = ("SELECT t.id, t.player, t.tbl, t.round, t.status, "
                 "EXISTS (SELECT 1 FROM settled s WHERE s.debit = t.id), "
                 "EXISTS (SELECT 1 FROM tx c WHERE c.debit = t.id AND c.kind = 'cancel' AND c.status = 'ok') "
                 "FROM tx t WHERE t.id IN (%s) AND t.kind = 'debit'")


def _parts(items: list, size: int = 500):
    """``items`` in parts of ``size`` (well within SQLite's bound on a statement's parameters)."""
    for at in range(0, len(items), size):
        yield items[at:at + size]


def _read_answer(request_id: str, status: p.Status, message: str | None) -> dict:
    return {"status": status.value, "request_id": request_id, "player": None, "currency": None, "unit": None,
            "balance": None, "message": message}


def _opt(amount: Decimal | None) -> str | None:
    return None if amount is None else fmt(amount)


def _digest(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()
