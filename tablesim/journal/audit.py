"""Verifying a journal: the store's integrity check, the keyed chain, the seals.

Every outcome is a verdict, never an exception:

- ``intact``: every record verifies (keyed; a legacy prefix sealed by the
  chain record is reported as such);
- ``legacy``: a journal from before keyed chains whose plain hash chain
  holds: it proves only that nobody rewrote it carelessly;
- ``tampered``: a record, the head or the checkpoint does not verify
  (first bad record and why);
- ``corrupt``: SQLite's own integrity check fails (a damaged page or index);
- ``unreadable``: not a journal, no such file, or no key to check it with.

:func:`verify_recent` is the check a table makes before it replays
anything: ``integrity_check`` and the chain from the last checkpoint only.
(``quick_check`` would be faster, but it does not compare the indexes with
the records: a damaged index would hand recovery a round without its bets.)
"""

from __future__ import annotations

import hmac
import json
from dataclasses import dataclass
from pathlib import Path

from tablecore.errors import InputError
from tablesim.journal.chain import CHAIN_KIND, CHAIN_NAME, Walk, record_hash, record_link, seal_mac
from tablesim.journal.keys import TABLE_ID, default_key_path, key_id, load_key
from tablesim.journal.location import data_dir
from tablesim.journal.journal import Journal

EXIT = {"intact": 0, "legacy": 0, "tampered": 1, "corrupt": 1, "unreadable": 2}


@dataclass(frozen=True)
class AuditResult:
    ok: bool
    records: int
    first_bad: int | None = None  # sequence number of the first bad record
    reason: str = ""
    verdict: str = "intact"
    legacy: int = 0  # unkeyed records (before the chain record)
    table_id: str | None = None

    @property
    def exit_code(self) -> int:
        return EXIT[self.verdict]

    def describe(self) -> str:
        if self.verdict == "intact":
            sealed = f" ({self.legacy} legacy records sealed before the keyed chain)" if self.legacy else ""
            return f"{self.records} records, chain intact{sealed}"
        if self.verdict == "legacy":
            return (f"{self.records} records, legacy chain intact (unkeyed: written before keyed chains; "
                    "it shows no careless edit but proves nothing against a forger)")
        if self.verdict == "unreadable":
            return f"unreadable: {self.reason}"
        where = f" at record {self.first_bad}" if self.first_bad is not None else ""
        return f"{self.verdict}{where}: {self.reason}"


def _bad(verdict: str, reason: str, records: int = 0, first_bad: int | None = None, **kw) -> AuditResult:
    return AuditResult(False, records, first_bad, _plain(reason) if len(reason) > 200 or not reason.isprintable()
                       else reason, verdict, **kw)


def journal_table_id(journal: Journal) -> str | None:
    """The table id the journal's first record names (for finding its key)."""
    try:
        row = next(iter(journal.store.select(limit=1)), None)
    except journal.errors:
        return None
    row = row[2:3] if row else None
    return row[0] if row and isinstance(row[0], str) else None


def find_key(journal: Journal, key: bytes | None) -> bytes | None:
    """The key given; else the data directory's key whose id the journal's
    chain record names; else the default key of the table its first record
    names (if any of these exists)."""
    if key is not None:
        return key
    wanted = _marker_key_id(_chain_record(journal))
    table_id = journal_table_id(journal)
    default = default_key_path(table_id) if table_id is not None and TABLE_ID.fullmatch(table_id) else None
    fallback = None
    for path in ([default] if default else []) + sorted(data_dir().glob("*.key")):
        try:
            candidate = load_key(path)
        except InputError:
            continue
        if wanted is None or key_id(candidate) == wanted:
            return candidate
        if path == default:
            fallback = candidate  # the table's own key: a chain record naming another is then tampered
    return fallback


def _refused_key(journal: Journal) -> str | None:
    """Why the key file of the journal's table was not taken (e.g. open to
    others), or None if it is missing or fine."""
    table_id = journal_table_id(journal)
    if table_id is None or not TABLE_ID.fullmatch(table_id):
        return None
    path = default_key_path(table_id)
    if not path.exists():
        return None
    try:
        load_key(path)
    except InputError as exc:
        return f"{exc.where}: {exc.message}" if exc.where else exc.message
    return None


def journal_is_keyed(journal: Journal) -> bool:
    return _chain_record(journal) is not None


def _chain_record(journal: Journal) -> tuple | None:
    try:
        row = next(iter(journal.store.select(kind=CHAIN_KIND, names=(CHAIN_NAME,), limit=1)), None)
    except (*journal.errors, UnicodeDecodeError):
        return None
    return row[7:8] if row else None


def database_problem(journal: Journal) -> str | None:
    """The store's own integrity check (SQLite's: pages, records and every
    index agreeing with them), as one line, or None if the file is sound."""
    return journal.store.damage()


def _schema_problem(journal: Journal) -> str | None:
    """An altered table, or an object (a trigger, a view) no journal has."""
    return journal.store.schema_problem()


def _plain(value: object) -> str:
    """A value from a damaged file, fit for a one-line message."""
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    return "".join(c if c.isprintable() else "?" for c in text)[:200]


class BadSeal(Exception):
    """A head or checkpoint row that is not what the journal writes."""


def seal_row(journal: Journal, table: str) -> tuple[int, str, str | None] | None:
    """(seq, link, mac) of the ``head`` or ``checkpoint`` row as stored;
    None if there is none; BadSeal if it is not numbers and text."""
    rows = journal.store.seal_rows(table)
    if not rows:
        return None
    if len(rows) > 1:
        raise BadSeal(f"the {table} has {len(rows)} rows")
    seq, link, mac = rows[0]
    try:
        if type(seq) is not int or not isinstance(link, bytes) or not (mac is None or isinstance(mac, bytes)):
            raise ValueError
        return seq, link.decode("ascii"), None if mac is None else mac.decode("ascii")
    except (ValueError, UnicodeDecodeError):
        raise BadSeal(f"the {table} row is damaged") from None


def foreign_key(journal: Journal, key: bytes) -> str | None:
    """Why ``key`` is not this journal's key (another table's key put over
    the key file), or None. The chain record names the journal's key by its
    id; a chain record altered to name another would still leave the head's
    MAC verifying under the right key, so a key under which neither the
    chain record's id nor the head matches is another key, not an edit."""
    wanted = _marker_key_id(_chain_record(journal))
    if wanted is None or key_id(key) == wanted:
        return None
    try:
        head = seal_row(journal, "head")
    except BadSeal:
        head = None
    if head is not None and isinstance(head[2], str) and hmac.compare_digest(
            seal_mac(key, "head", head[0], head[1]), head[2]):
        return None
    return f"the key is not this journal's: the journal is keyed with key {wanted}, the key is {key_id(key)}"


def verify(journal: Journal, key: bytes | None = None, *, integrity: bool = True) -> AuditResult:
    """The whole journal, from its first record (``key``: default: the
    journal's table's key in the data directory, if present)."""
    try:
        found = find_key(journal, key)
        if found is None:
            refused = _refused_key(journal)
            if refused is not None and journal_is_keyed(journal):
                return _bad("unreadable", f"the table's key cannot be used: {refused}")
        elif key is None and (other := foreign_key(journal, found)) is not None:  # (a key given: told below)
            return _bad("unreadable", f"{other} (another table's key?): no key here to check it with",
                        table_id=journal_table_id(journal))
        return _verify(journal, found, integrity, given=key is not None)
    except journal.errors as exc:
        return _bad("corrupt", f"the database cannot be read: {exc}")


def _verify(journal: Journal, key: bytes | None, integrity: bool, given: bool = True) -> AuditResult:
    if integrity:
        problem = database_problem(journal)
        if problem:
            return _bad("corrupt", problem)
    problem = _schema_problem(journal)
    if problem:
        return _bad("tampered", problem)
    table_id = journal_table_id(journal)
    try:
        cp = seal_row(journal, "checkpoint")
        seal_row(journal, "head")
    except BadSeal as exc:
        return _bad("tampered", str(exc), table_id=table_id)
    walk = Walk(key, cp=(cp[0], cp[1]) if cp else None)
    for row in journal.raw_rows():
        problem = walk.feed(row)
        if problem:
            if walk.needs_key:
                return _bad("unreadable", f"{problem}: the journal's links need its table's key", walk.seq,
                            walk.seq + 1, table_id=table_id)
            if given and walk.keyed and walk.seq < (walk.chain_seq or 0) and key is not None \
                    and walk.key_id != key_id(key):
                return _bad("unreadable", f"the journal is keyed with key {walk.key_id}, not the key given "
                            f"({key_id(key)}): wrong key (or its chain record was altered)", walk.seq,
                            walk.seq + 1, table_id=table_id)
            return _bad("tampered", problem, walk.seq, walk.seq + 1, legacy=walk.legacy, table_id=table_id)
    return _seals(journal, walk, key, cp, table_id)


def _seals(journal: Journal, walk: Walk, key: bytes | None, cp: tuple | None, table_id: str | None) -> AuditResult:
    n = walk.seq
    end = n + 1

    def tampered(reason: str, at: int = end) -> AuditResult:
        return _bad("tampered", reason, n, at, legacy=walk.legacy, table_id=table_id)

    if n == 0:
        return tampered("the journal holds no record: a journal begins with its chain record "
                        "(every record was deleted, or the file was never used: then remove it)", 1)
    head = seal_row(journal, "head")
    if not walk.keyed:
        if key is not None:
            return tampered("no keyed record, although the table has a key: the journal was re-chained "
                            "without its key (or never opened by this version: open it with its table once)", 1)
        if head is not None and (head[0] != n or head[1] != walk.prev):
            return tampered(f"the journal ends at record {n} but its head names record {head[0]}: "
                            "records were removed from the end")
        return AuditResult(True, n, verdict="legacy", legacy=walk.legacy, table_id=table_id)
    if key is not None and walk.key_id != key_id(key):
        return _bad("unreadable", f"the journal is keyed with key {walk.key_id}, not the key given ({key_id(key)})",
                    n, table_id=table_id)
    if head is None:
        return tampered("the head (the journal's last record, under the key) is missing: records were cut off "
                        "the end and the head removed")
    hseq, hlink, hmac_ = head
    if not isinstance(hmac_, str) or not hmac.compare_digest(seal_mac(key, "head", hseq, hlink), hmac_):
        return tampered("the head does not verify under the key: it was rewritten (records cut off the end?)")
    if (hseq, hlink) != (n, walk.prev):
        return tampered(f"the journal ends at record {n} but its head names record {hseq}: "
                        "records were removed from the end")
    if cp is not None:
        cseq, clink, cmac = cp
        if not isinstance(cmac, str) or not hmac.compare_digest(seal_mac(key, "checkpoint", cseq, clink), cmac):
            return tampered("the checkpoint does not verify under the key: it was rewritten")
        if cseq > n:
            return tampered(f"the checkpoint names record {cseq}, beyond the last record {n}: records were removed")
    return AuditResult(True, n, legacy=walk.legacy, table_id=table_id)


def verify_recent(journal: Journal, key: bytes) -> AuditResult:
    """The start-up check: ``integrity_check``, then the chain from the last
    checkpoint to the end, the checkpoint and the head. Records behind the
    checkpoint were verified when the table that wrote them started (a full
    check is ``tablesim audit verify``)."""
    try:
        problem = database_problem(journal)
        if problem:
            return _bad("corrupt", problem)
        problem = _schema_problem(journal)
        if problem:
            return _bad("tampered", problem)
        try:
            cp = seal_row(journal, "checkpoint")
            seal_row(journal, "head")
        except BadSeal as exc:
            return _bad("tampered", str(exc))
        if cp is None:
            return _verify(journal, key, integrity=False)
        cseq, clink, cmac = cp
        if not isinstance(cmac, str) or not hmac.compare_digest(seal_mac(key, "checkpoint", cseq, clink), cmac):
            return _bad("tampered", "the checkpoint does not verify under the key: it was rewritten")
        if (journal.store.link(cseq) if cseq else clink) != clink:
            return _bad("tampered", f"record {cseq}, the last checkpoint, is missing or altered", cseq, cseq)
        marker = _chain_record(journal)
        walk = Walk(key, prev=clink, seq=cseq, keyed=True, cp=(cseq, clink), partial=True,
                    key_id=_marker_key_id(marker))
        for raw in journal.raw_rows(after=cseq):
            problem = walk.feed(raw)
            if problem:
                return _bad("tampered", problem, walk.seq, walk.seq + 1)
        return _seals(journal, walk, key, cp, journal_table_id(journal))
    except journal.errors as exc:
        return _bad("corrupt", f"the database cannot be read: {exc}")


def first_forged(journal: Journal, round_ids: list[str], key: bytes | None = None) -> int | None:
    """The first record of ``round_ids`` whose keyed link does not verify
    under the table's key (found as the audit finds it), or None: every one
    verifies, or there is no key here to check them with (a legacy journal,
    or the audit on a machine without the key). Cheap: each record is held
    against its own link, not the whole chain (that is ``audit verify``)."""
    if not round_ids or not journal_is_keyed(journal):
        return None
    given, key = key is not None, find_key(journal, key)
    if key is None:
        return None
    wanted = _marker_key_id(_chain_record(journal))
    if wanted is not None and key_id(key) != wanted:
        if given:
            raise InputError(f"the journal is keyed with key {wanted}, not the key given ({key_id(key)})",
                             where=journal.path)
        return None  # (not its key: the audit tells a wrong key apart)
    rows = journal.raw_rounds(round_ids)
    row = next(iter(journal.store.select(kind=CHAIN_KIND, names=(CHAIN_NAME,), limit=1)), None)
    chain_seq = row[0] if row and isinstance(row[0], int) else 0
    for seq, *fields, prev, link in rows:
        try:
            # records before the chain record are a legacy journal's, sealed with their plain hash
            expected = record_link(key, prev, seq, *fields) if seq >= chain_seq else record_hash(prev, seq, *fields)
            if not hmac.compare_digest(expected, link.decode("ascii")):
                return seq
        except (TypeError, AttributeError, UnicodeDecodeError):
            return seq if isinstance(seq, int) else -1
    return None


def legacy_check(journal: Journal) -> AuditResult:
    """A journal with no keyed record, checked whole (its plain chain and head)."""
    try:
        problem = database_problem(journal)
        if problem:
            return _bad("corrupt", problem)
        return _verify(journal, None, integrity=False)
    except journal.errors as exc:
        return _bad("corrupt", f"the database cannot be read: {exc}")


def _marker_key_id(row: tuple | None) -> str | None:
    try:
        return str(json.loads(row[0]).get("key_id")) if row else None
    except (ValueError, AttributeError):
        return None


def verify_file(path: str | Path, key: bytes | None = None) -> AuditResult:
    """Open ``path`` read-only and verify it: a verdict whatever the file holds."""
    try:
        journal = Journal(path, readonly=True)
    except InputError as exc:
        return _bad("unreadable", exc.message)
    except Exception as exc:  # noqa: BLE001 - a damaged file may fail in any way: still a verdict
        return _bad("unreadable", _text(exc))
    try:
        return verify(journal, key)
    except Exception as exc:  # noqa: BLE001 - (as above) e.g. sqlite's own message not decoding
        return _bad("corrupt", f"the database cannot be read: {_text(exc)}")
    finally:
        try:
            journal.close()
        except Exception:  # noqa: BLE001
            pass


def _text(exc: Exception) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return "malformed database (" + exc.object.decode("utf-8", "replace") + ")"
    return str(exc) or type(exc).__name__
