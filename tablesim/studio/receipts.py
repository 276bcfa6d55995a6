"""Receipts: what a remote bet's reply carries to prove, offline, that the
table journaled it.

A receipt is the journal record that holds the bet's ref with the bet (the
``bet_refs`` record committed with it: ref, position, stake, amount,
player) exactly as the table publishes it (its message body,
``tablesim.studio.wire``), with the table's Ed25519 signature of it and the
ref it is the receipt of::

    {"v": 1, "table_id": "F3-01", "seq": 1234, "ref": "p7-000123", "message": "<the record's message body>",
     "sig": "ed25519:<128 hex>", "key": "<the table's public key, 64 hex>"}

``tablesim receipt verify`` checks the signature against the table's
public key as the operator registered it (a public key file), never
against the ``key`` the receipt names (that is only a hint of which key it
needs). A valid receipt proves that the table holding that key signed that
record: a bet with this ref, position, stake and round, at that seq of its
journal; the anchor (``audit verify --anchor``) then shows whether the
journal still holds it.

A bet placed in a group of bets (a journal of format 2: the group is one
``place_bets`` record, ``tablecore.betbatch``) gets a receipt of version 2:
its entry, its place in the group and its Merkle path, with the table's
signature of the group's root statement (table, record, round, time, root,
count), made once per group::

    {"v": 2, "table_id": "F3-01", "seq": 1234, "ref": "p7-000123", "at": 17,
     "bet": ["p7-000123", "3", "ante", "25", "ann"], "path": ["<64 hex>", ...],
     "statement": "<the signed root statement>", "sig": "ed25519:<128 hex>", "key": "<64 hex>"}

so a receipt stays small whatever the group's size; the record itself
holds the same root, which the audit checks against its bets. ``bet`` is the
entry as its leaf hashed it: a sixth element names the bet's actor when it
is not the record's (a group of the console's bets and the bus's).
"""

from __future__ import annotations

import json
import threading
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tablecore import betbatch
from tablecore.errors import InputError
from tablecore.plainjson import quoted
from tablesim.studio import signing, wire

VERSION = 1
FIELDS = ("v", "table_id", "seq", "ref", "message", "sig")
#: a bet's receipt out of a group of bets' record
BATCH_VERSION = 2
BATCH_FIELDS = ("v", "table_id", "seq", "ref", "at", "bet", "path", "statement", "sig")


#: the Merkle trees of the latest groups' records, as the bet intake made their roots (by the
#: id of the entries' list, held with it): a group's receipts read that tree instead of hashing
#: every bet a second time
_TREES: dict[int, tuple[list, list, list | None]] = {}
_TREES_LOCK = threading.Lock()  # (each table's intake thread writes; a process may hold several)


def remember_tree(entries: list, tree: list, texts: list[str] | None = None) -> None:
    """Keep ``tree`` (``betbatch.levels(entries, texts)``) for the receipts of ``entries``' record,
    with each entry's text as its leaf hashed it (None: made again when asked)."""
    with _TREES_LOCK:
        if len(_TREES) >= 64:
            _TREES.pop(next(iter(_TREES)))
        _TREES[id(entries)] = (entries, tree, texts)


class GroupProof:
    """The receipts of one group of bets' record: its root statement signed once,
    each bet's path to the root made once."""

    def __init__(self, key: Ed25519PrivateKey, table_id: str, seq: int, round_id: str, ts: str,
                 entries: list) -> None:
        self.table_id, self.seq, self.entries = table_id, seq, entries
        held = _TREES.get(id(entries))
        # (made once, by the intake when it can: the root and every path read it)
        if held is not None and held[0] is entries:
            tree, texts = held[1], held[2]
        else:
            texts = []
            tree = betbatch.levels(entries, texts)
        #: each entry's compact JSON (what its leaf hashed), or None
        self.texts = texts
        root = betbatch.root(entries, tree)
        self.statement = betbatch.root_statement(table_id, seq, round_id, ts, root, len(entries)).decode()
        self.sig = signing.sign(key, self.statement.encode(), betbatch.ROOT_SIGNED)
        self.key = signing.public_hex(key)
        self.table_quoted = quoted(table_id)
        #: their shared part as a reply's JSON writes it (without its opening brace)
        self.shared_text = json.dumps({"statement": self.statement, "sig": self.sig, "key": self.key},
                                      separators=(",", ":"), ensure_ascii=False)[1:]
        self.shared = self.shared_text.encode()
        self.paths = betbatch.paths(entries, tree)
        self._at: dict[tuple, int] | None = None

    @property
    def at(self) -> dict[tuple, int]:
        """Where each bet stands in the group, by (ref, position, bet, player): its first
        entry. (Made when first asked, for a bet asked again: a group placed now knows
        where each of its bets stands.)"""
        if self._at is None:
            at: dict[tuple, int] = {}
            for i, e in enumerate(self.entries):
                at.setdefault((e[0], str(e[1]), e[2], e[4]), i)
            self._at = at
        return self._at

    def own_json(self, receipt: dict[str, Any]) -> str | None:
        """``receipt``'s JSON up to its shared part (no closing brace), as the reply's encoder
        writes it, made of what this group made once (the entry's text, the path's hashes);
        None when ``receipt`` is not this group's, as :meth:`receipt` made it."""
        at = receipt["at"]
        text = self.own_text(at)  # (None: no entry ``at``)
        if text is None:
            return None
        e = self.entries[at]
        if receipt["path"] is not self.paths[at] or receipt["ref"] != e[0] or receipt["table_id"] != self.table_id \
                or receipt["seq"] != self.seq or receipt["bet"] != e or receipt["v"] != BATCH_VERSION:
            return None
        return text

    def own_text(self, at: int) -> str | None:
        """The receipt of entry ``at`` (:meth:`receipt`) as JSON up to its shared part (no
        closing brace), as the reply's encoder writes it; None when there is no entry ``at``."""
        if type(at) is not int or not 0 <= at < len(self.entries):
            return None
        path, e = self.paths[at], self.entries[at]
        bet = self.texts[at] if self.texts is not None else betbatch.text(e)
        return '{"v":%d,"table_id":%s,"seq":%d,"ref":%s,"at":%d,"bet":%s,"path":%s' % (
            BATCH_VERSION, self.table_quoted, self.seq, "null" if e[0] is None else quoted(e[0]), at, bet,
            '["%s"]' % '","'.join(path) if path else "[]")

    def receipt(self, at: int) -> dict[str, Any]:
        e = self.entries[at]
        return {"v": BATCH_VERSION, "table_id": self.table_id, "seq": self.seq, "ref": e[0], "at": at,
                "bet": e[:], "path": self.paths[at], "statement": self.statement, "sig": self.sig, "key": self.key}


def make(key: Ed25519PrivateKey, table_id: str, seq: int, body: bytes, ref: str) -> dict[str, Any]:
    return {"v": VERSION, "table_id": table_id, "seq": seq, "ref": ref, "message": body.decode(),
            "sig": signing.sign(key, body), "key": signing.public_hex(key)}


def parse(doc: Any) -> dict[str, Any]:
    """The receipt's fields, checked for shape; InputError (exit 2) if it is no receipt."""
    if isinstance(doc, dict) and "receipt" in doc and isinstance(doc["receipt"], dict):
        doc = doc["receipt"]  # (a bet's whole result, as the reply carries it)
    if not isinstance(doc, dict):
        raise InputError("not a receipt (a JSON object with v, table_id, seq, message, sig)")
    if doc.get("v") == BATCH_VERSION:
        return _parse_group(doc)
    missing = [f for f in FIELDS if f not in doc]
    if missing:
        raise InputError(f"not a receipt: no {', '.join(missing)}")
    if doc["v"] != VERSION:
        raise InputError(f"v: receipt version {doc['v']!r} is not understood (this tablesim reads {VERSION} "
                         f"and {BATCH_VERSION})")
    if not all(isinstance(doc[f], str) for f in ("message", "sig", "ref", "table_id")) or type(doc["seq"]) is not int:
        raise InputError("not a receipt: table_id, ref, message and sig are strings, seq a whole number")
    return doc


def _parse_group(doc: dict[str, Any]) -> dict[str, Any]:
    missing = [f for f in BATCH_FIELDS if f not in doc]
    if missing:
        raise InputError(f"not a receipt: no {', '.join(missing)}")
    bet, path = doc["bet"], doc["path"]
    if not all(isinstance(doc[f], str) for f in ("statement", "sig", "ref", "table_id")) \
            or type(doc["seq"]) is not int or type(doc["at"]) is not int \
            or not isinstance(bet, list) or len(bet) not in (5, 6) or not isinstance(path, list) \
            or not all(isinstance(p, str) for p in path):
        raise InputError("not a receipt: table_id, ref, statement and sig are strings, seq and at whole numbers, "
                         "bet a list of 5 (or 6, naming its actor) and path a list of hashes")
    return doc


def check(doc: dict[str, Any], table_id: str, pub: Ed25519PublicKey) -> tuple[bool, str]:
    """(valid, what it proves or why not) for a parsed receipt."""
    if doc["v"] == BATCH_VERSION:
        return _check_group(doc, table_id, pub)
    body = doc["message"].encode()
    why = signing.verify(pub, body, doc["sig"])
    if why is not None:
        return False, f"the receipt is {why}: table {table_id}'s key did not sign this record"
    try:
        rec = wire.decode(body)
    except ValueError as exc:
        return False, f"the signed message is no record: {exc}"
    if rec.table_id != table_id or doc["table_id"] != table_id or rec.seq != doc["seq"]:
        return False, (f"the receipt names table {doc['table_id']} record {doc['seq']}, the signed record is "
                       f"table {rec.table_id} record {rec.seq}, the key is table {table_id}'s")
    entry = next((e for e in rec.data.get("refs") or [] if isinstance(e, list) and len(e) >= 4 and e[0] == doc["ref"]),
                 None) if rec.name == "bet_refs" else None
    if entry is None:
        return False, f"the signed record {rec.seq} ({rec.name}) holds no bet under ref {doc['ref']!r}"
    player = entry[4] if len(entry) > 4 and entry[4] else None
    ts = json.loads(body)["record"].get("ts")
    return True, (f"valid: table {table_id} journaled bet {entry[2]} {entry[3]} on position {entry[1]}, ref {entry[0]}"
                  + (f", player {player}" if player else "") + f", in round {rec.round_id} (record {rec.seq}, {ts})")


def _check_group(doc: dict[str, Any], table_id: str, pub: Ed25519PublicKey) -> tuple[bool, str]:
    """A bet's receipt out of a group's record: the root statement signed by the table, and the
    bet's path leading to that root."""
    statement = doc["statement"].encode()
    why = signing.verify(pub, statement, doc["sig"], betbatch.ROOT_SIGNED)
    if why is not None:
        return False, f"the receipt is {why}: table {table_id}'s key did not sign this group of bets"
    try:
        said = json.loads(statement)
        seq, count, root, round_id = said["seq"], said["count"], said["root"], said["round_id"]
    except (ValueError, KeyError, TypeError):
        return False, "the signed statement is no group of bets' root"
    if said.get("table_id") != table_id or doc["table_id"] != table_id or seq != doc["seq"]:
        return False, (f"the receipt names table {doc['table_id']} record {doc['seq']}, the signed group is "
                       f"table {said.get('table_id')} record {seq}, the key is table {table_id}'s")
    bet = doc["bet"]
    if bet[0] != doc["ref"] or type(count) is not int \
            or betbatch.root_of_path(bet, doc["at"], count, doc["path"]) != root:
        return False, (f"the bet under ref {doc['ref']!r} is not in the signed group of record {seq} "
                       "(its path does not lead to the group's root)")
    player = bet[4] or None
    return True, (f"valid: table {table_id} journaled bet {bet[2]} {bet[3]} on position {bet[1]}, ref {bet[0]}"
                  + (f", player {player}" if player else "")
                  + f", in round {round_id} (record {seq}, bet {doc['at'] + 1} of {count}, {said.get('ts')})")
