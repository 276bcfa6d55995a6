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
"""

from __future__ import annotations

import json
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tablecore.errors import InputError
from tablesim.studio import signing, wire

VERSION = 1
FIELDS = ("v", "table_id", "seq", "ref", "message", "sig")


def make(key: Ed25519PrivateKey, table_id: str, seq: int, body: bytes, ref: str) -> dict[str, Any]:
    return {"v": VERSION, "table_id": table_id, "seq": seq, "ref": ref, "message": body.decode(),
            "sig": signing.sign(key, body), "key": signing.public_hex(key)}


def parse(doc: Any) -> dict[str, Any]:
    """The receipt's fields, checked for shape; InputError (exit 2) if it is no receipt."""
    if isinstance(doc, dict) and "receipt" in doc and isinstance(doc["receipt"], dict):
        doc = doc["receipt"]  # (a bet's whole result, as the reply carries it)
    if not isinstance(doc, dict):
        raise InputError("not a receipt (a JSON object with v, table_id, seq, message, sig)")
    missing = [f for f in FIELDS if f not in doc]
    if missing:
        raise InputError(f"not a receipt: no {', '.join(missing)}")
    if doc["v"] != VERSION:
        raise InputError(f"v: receipt version {doc['v']!r} is not understood (this tablesim reads {VERSION})")
    if not all(isinstance(doc[f], str) for f in ("message", "sig", "ref", "table_id")) or type(doc["seq"]) is not int:
        raise InputError("not a receipt: table_id, ref, message and sig are strings, seq a whole number")
    return doc


def check(doc: dict[str, Any], table_id: str, pub: Ed25519PublicKey) -> tuple[bool, str]:
    """(valid, what it proves or why not) for a parsed receipt."""
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
