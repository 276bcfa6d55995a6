"""Receipts: what a remote bet's reply carries to prove, offline, that the
table journaled it.

A receipt is the bet's journal record exactly as the table publishes it
(its message body, ``tablesim.studio.wire``) with the table's Ed25519
signature of it::

    {"v": 1, "table_id": "F3-01", "seq": 1234, "message": "<the record's message body>",
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
FIELDS = ("v", "table_id", "seq", "message", "sig")


def make(key: Ed25519PrivateKey, table_id: str, seq: int, body: bytes) -> dict[str, Any]:
    return {"v": VERSION, "table_id": table_id, "seq": seq, "message": body.decode(),
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
    if not isinstance(doc["message"], str) or not isinstance(doc["sig"], str) or type(doc["seq"]) is not int:
        raise InputError("not a receipt: message and sig are strings, seq a whole number")
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
    d = rec.data
    what = (f"{rec.name} {d.get('bet')} {d.get('amount')} on {d.get('position')}, ref {d.get('ref')}"
            + (f", player {d['player']}" if d.get("player") else "")) if rec.name == "bet" else rec.name
    ts = json.loads(body)["record"].get("ts")
    return True, f"valid: record {rec.seq} of table {table_id} (round {rec.round_id}, {ts}): {what}"
