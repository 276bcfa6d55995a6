"""The journal's chain: how a record's link is computed, and the walk that checks it.

A record's link covers its predecessor's link and every field of the record.
Keyed records (every record from the journal's ``meta/chain`` record on)
are linked with HMAC-SHA256 under the table's key; records written before
keyed chains existed ("legacy") keep their plain SHA-256 link, and are
accepted only before the ``chain`` record, which seals them (their count and
last link are in it).

The walk works on raw rows (bytes, as stored): a record that does not decode
is a bad record with a reason, never an exception.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
from dataclasses import dataclass, field

from tablecore import betbatch

GENESIS = "0" * 64
CHAIN_KIND, CHAIN_NAME = "meta", "chain"
ROUND_KIND, ROUND_NAME = "meta", "round"
ALGORITHM = "hmac-sha256"
COLUMNS = ("seq", "ts", "table_id", "round_id", "kind", "name", "actor", "data", "prev_hash", "hash")


def _message(prev: str | bytes, seq: int, *fields: str | bytes) -> bytes:
    try:  # the writer's case, every field text: one join, one encode (the same bytes)
        return "\x1f".join((prev, str(seq), *fields)).encode()  # type: ignore[arg-type]
    except TypeError:  # a reader's row as stored (bytes)
        parts = [p if isinstance(p, bytes) else p.encode() for p in (prev, str(seq), *fields)]
        return b"\x1f".join(parts)


def record_hash(prev: str, seq: int, ts: str, table_id: str, round_id: str, kind: str, name: str, actor: str,
                data: str) -> str:
    """A legacy (unkeyed) link: anyone can compute it."""
    return hashlib.sha256(_message(prev, seq, ts, table_id, round_id, kind, name, actor, data)).hexdigest()


def record_link(key: bytes, prev: str | bytes, seq: int, *fields: str | bytes) -> str:
    """A keyed link: HMAC-SHA256 under the table's key."""
    mac = _keyed(key).copy()  # the key's pads hashed once, not per record
    mac.update(_message(prev, seq, *fields))
    return mac.hexdigest()


@functools.lru_cache(maxsize=16)
def _keyed(key: bytes):
    mac = hmac.new(key, digestmod=hashlib.sha256)
    # OpenSSL's own HMAC object where hmac wraps one: its copy() is a C call,
    # not a Python object built per record (copy/update/hexdigest either way)
    return getattr(mac, "_hmac", None) or mac


def seal_mac(key: bytes, what: str, seq: int, link: str) -> str:
    """The MAC of a head or checkpoint row: (what, seq, link) under the key."""
    return hmac.new(key, f"{what}\x1f{seq}\x1f{link}".encode(), hashlib.sha256).hexdigest()


@dataclass
class RoundTally:
    records: int = 0
    last_seq: int = 0
    link: str = ""


@dataclass
class Walk:
    """The state of a walk along the chain; ``feed`` each row in storage order.

    ``key``: the table's key (None: keyed records cannot be checked, and the
    first one met is reported as such). ``cp``: the checkpoint (seq, link)
    the walk must pass through, if any.
    """

    key: bytes | None
    prev: str = GENESIS
    seq: int = 0
    keyed: bool = False
    key_id: str | None = None
    legacy: int = 0  # legacy records seen
    cp: tuple[int, str] | None = None
    rounds: dict[str, RoundTally] = field(default_factory=dict)
    started_rounds: set[str] = field(default_factory=set)
    needs_key: bool = False
    chain_seq: int | None = None  # the chain record's sequence number, once met
    partial: bool = False  # the walk starts at a checkpoint: earlier rounds are not in ``rounds``

    def feed(self, row: tuple) -> str | None:
        """None if the row is a good next record, else why it is not."""
        expected = self.seq + 1
        if len(row) != len(COLUMNS):
            return f"record {expected}: the record has {len(row)} fields, not {len(COLUMNS)}"
        seq = row[0]
        if type(seq) is not int:
            return f"record {expected}: its sequence number is not a number ({_show(seq)})"
        for name, value in zip(COLUMNS[1:], row[1:]):
            if type(value) is not bytes:
                return f"record {seq}: its {name} is not text ({_show(value)})"
        ts, table_id, round_id, kind, name, actor, data, prev_hash, link = row[1:]
        if seq != expected:
            if seq > expected:
                return f"record {expected} is missing (the next record is {seq}): records were deleted"
            return f"record {expected} has sequence number {seq}: records were moved or duplicated"
        try:
            prev_text, link_text = prev_hash.decode("ascii"), link.decode("ascii")
        except UnicodeDecodeError:
            return f"record {seq}: its link is not a hash"
        if prev_text != self.prev:
            return f"record {seq} does not follow record {seq - 1} (chain broken)"
        is_chain = kind == CHAIN_KIND.encode() and name == CHAIN_NAME.encode()
        if is_chain:
            problem = self._open_keyed(seq, data)
            if problem:
                return problem
        if self.keyed:
            if self.key is None:
                self.needs_key = True
                return f"record {seq} is keyed and no key was given (--key FILE)"
            if not hmac.compare_digest(record_link(self.key, prev_hash, seq, ts, table_id, round_id, kind, name,
                                                   actor, data), link_text):
                if is_chain:
                    return f"record {seq}: the journal's chain record does not verify under key {self.key_id}" \
                           " (wrong key, or the record was altered)"
                return f"record {seq} was altered or forged (its keyed link does not verify)" + _batch_note(kind, name,
                                                                                                             data)
        else:
            if hashlib.sha256(_message(prev_hash, seq, ts, table_id, round_id, kind, name, actor, data)).hexdigest() \
                    != link_text:
                return f"record {seq} was altered (hash mismatch)"
            self.legacy += 1
        if kind == _BATCH[0] and name == _BATCH[1]:
            problem = _batch_problem(data)
            if problem:
                return f"record {seq}: {problem}"
        if self.cp is not None and seq == self.cp[0] and link_text != self.cp[1]:
            return f"record {seq} is not the record the checkpoint names (altered or replaced)"
        if kind == ROUND_KIND.encode() and name == ROUND_NAME.encode():
            problem = self._round_start(seq, round_id, data)
            if problem:
                return problem
        if round_id:
            tally = self.rounds.setdefault(round_id.decode("utf-8", "replace"), RoundTally())
            tally.records += 1
            tally.last_seq, tally.link = seq, link_text
        self.seq, self.prev = seq, link_text
        return None

    def _open_keyed(self, seq: int, data: bytes) -> str | None:
        if self.keyed:
            return f"record {seq}: a second chain record (the chain starts once)"
        info = _json(data)
        if not isinstance(info, dict) or info.get("chain") != ALGORITHM:
            return f"record {seq}: the chain record does not name the {ALGORITHM} chain"
        sealed = info.get("legacy", {"records": 0, "link": GENESIS})
        if not isinstance(sealed, dict) or sealed.get("records") != seq - 1 or sealed.get("link") != self.prev:
            return f"record {seq}: the chain record seals {sealed!r}, but {seq - 1} records precede it"
        self.keyed = True
        self.chain_seq = seq
        self.key_id = str(info.get("key_id"))
        return None

    def _round_start(self, seq: int, round_id: bytes, data: bytes) -> str | None:
        info = _json(data)
        if not isinstance(info, dict) or not isinstance(info.get("closed"), list):
            return f"record {seq}: the round's first record does not list the rounds closed before it"
        for entry in info["closed"]:
            if not isinstance(entry, dict):
                return f"record {seq}: a closed round's entry is not a table"
            rid = entry.get("round_id")
            tally = self.rounds.get(rid) if isinstance(rid, str) else None
            if self.partial and rid not in self.started_rounds:
                continue  # the round began behind the checkpoint: the keyed links vouch for it
            if tally is None:
                return f"record {seq}: it names closed round {rid!r}, which has no records"
            if (entry.get("records"), entry.get("last_seq"), entry.get("link")) != (tally.records, tally.last_seq,
                                                                                   tally.link):
                return (f"record {seq}: round {rid} closed with {entry.get('records')} records ending at "
                        f"{entry.get('last_seq')}, but the journal holds {tally.records} ending at {tally.last_seq}")
        self.started_rounds.add(round_id.decode("utf-8", "replace"))
        return None


_BATCH = (betbatch.KIND.encode(), betbatch.NAME.encode())


def _batch_problem(data: bytes) -> str | None:
    """Why a group of bets' record does not hold the bets its root was made of (None: it does)."""
    info = _json(data)
    bets = info.get("bets") if isinstance(info, dict) else None
    if not isinstance(bets, list) or not all(isinstance(e, list) and len(e) >= 5 for e in bets):
        return "a group of bets' record whose bets are not a list of bets"
    if info.get("root") != betbatch.root(bets):
        return f"its {len(bets)} bets do not match their Merkle root (a bet of the group was edited)"
    return None


def _batch_note(kind: bytes, name: bytes, data: bytes) -> str:
    """What an altered record's bets say, for a group of bets' record."""
    if (kind, name) != _BATCH:
        return ""
    problem = _batch_problem(data)
    return f": {problem}" if problem else ""


def _json(data: bytes) -> object:
    try:
        return json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return None


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
