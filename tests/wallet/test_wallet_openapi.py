"""docs/wallet-openapi.yaml held against the reference wallet (its own
process): every documented call, HTTP status, protocol status and field is
produced, and every answer matches its schema exactly (no field more, none
less), signed."""

from __future__ import annotations

import json
import re
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import yaml

import webclient
import walletproc
from tablesim.wallet import signing
from tablesim.wallet.app import CALLS
from tablesim.wallet.protocol import PREFIX, Status

SPEC = yaml.safe_load((Path(__file__).resolve().parents[2] / "docs" / "wallet-openapi.yaml").read_text())
TYPES = {"string": str, "integer": int, "object": dict, "array": list, "null": type(None)}


def deref(node):
    if isinstance(node, dict) and "$ref" in node:
        target = SPEC
        for part in node["$ref"].split("/")[1:]:
            target = target[part]
        return deref(target)
    return node


def validate(value, schema, where="$") -> None:
    """The JSON Schema subset the file uses."""
    schema = deref(schema)
    if "enum" in schema:
        assert value in schema["enum"], f"{where}: {value!r} not in {schema['enum']}"
    kinds = schema.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else kinds
        assert any(isinstance(value, TYPES[k]) and not (k == "integer" and isinstance(value, bool))
                   for k in kinds), f"{where}: {value!r} is not {kinds}"
    if isinstance(value, str) and "pattern" in schema:
        assert re.search(schema["pattern"], value), f"{where}: {value!r} !~ {schema['pattern']}"
    if isinstance(value, int) and not isinstance(value, bool):
        assert schema.get("minimum", value) <= value <= schema.get("maximum", value), where
    if isinstance(value, dict):
        props = schema.get("properties", {})
        missing = set(schema.get("required", [])) - set(value)
        assert not missing, f"{where}: missing {missing}"
        if schema.get("additionalProperties") is False:
            assert not set(value) - set(props), f"{where}: undocumented {set(value) - set(props)}"
        for key, item in value.items():
            validate(item, props.get(key, {}), f"{where}.{key}")
    if isinstance(value, list):
        assert schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", len(value)), where
        for i, item in enumerate(value):
            validate(item, schema.get("items", {}), f"{where}[{i}]")


def documented() -> set[tuple[str, int, str]]:
    """Every (call, HTTP status, protocol status) the file documents."""
    out = set()
    for path, item in SPEC["paths"].items():
        for code, response in item["post"]["responses"].items():
            schema = deref(deref(response)["content"]["application/json"]["schema"])
            for status in deref(schema["properties"]["status"])["enum"]:
                if Status(status).http == int(code):
                    out.add((path.rsplit("/", 1)[1], int(code), status))
    return out


class Caller:
    def __init__(self, url: str, secret: bytes) -> None:
        self.url, self.secret, self.seen = url, secret, set()

    def __call__(self, call: str, body, *, skew=0, secret=None, headers=None, valid=True) -> dict:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        op = SPEC["paths"][f"{PREFIX}/{call}"]["post"]
        if valid:
            validate(json.loads(raw), op["requestBody"]["content"]["application/json"]["schema"], call)
        headers = headers or signing.request_headers(secret or self.secret, f"{PREFIX}/{call}", raw,
                                                     timestamp=int(time.time()) + skew)
        r = webclient.post(f"{self.url}/{call}", content=raw, headers=headers, timeout=20)
        response = deref(op["responses"][str(r.status_code)])
        for name, header in response["headers"].items():
            validate(r.headers[name], deref(header)["schema"], name)
        assert signing.verify(self.secret, signing.answer_message(r.headers[signing.TIMESTAMP],
                              headers[signing.NONCE], r.content), r.headers[signing.SIGNATURE])
        answer = r.json()
        validate(answer, response["content"]["application/json"]["schema"], f"{call} {r.status_code}")
        self.seen.add((call, r.status_code, answer["status"]))
        return answer


def test_every_documented_call_status_and_field_is_the_wallets(wallet):
    assert set(SPEC["paths"]) == {f"{PREFIX}/{c}" for c in CALLS}
    c = Caller(wallet.url, signing.load_secret(wallet.secret))
    token = walletproc.token(wallet.db, "alice")
    c("authenticate", {"request_id": "a1", "token": token})
    c("authenticate", {"request_id": "a2", "token": "x" * 20})
    c("authenticate", {"request_id": "a3", "token": token})  # token_used: it opened a session already
    c("balance", {"request_id": "b1", "player": "alice", "currency": "MOP"})
    c("balance", {"request_id": "b2", "player": "nobody", "currency": "MOP"})
    c("balance", {"request_id": "b3", "player": "alice", "currency": "HKD"})
    bet = {"player": "alice", "currency": "MOP", "table": "T", "round": "R1"}
    c("debit", {"transaction_id": "d1", "amount": "10.00", **bet})
    c("debit", {"transaction_id": "d2", "amount": "5000", **bet})
    c("debit", {"transaction_id": "d3", "amount": "101", **bet, "player": "bob", "currency": "HKD"})
    c("debit", {"transaction_id": "d4", "amount": "1", **bet, "player": "nobody"})
    c("debit", {"transaction_id": "d5", "amount": "1", **bet, "currency": "HKD"})
    c("debit", {"transaction_id": "d1", "amount": "11.00", **bet})
    c("debit", {"transaction_id": "d6", "amount": "1.001", **bet}, valid=False)
    c("cancel", {"transaction_id": "x1", "player": "alice", "table": "T", "round": "R1", "debit": "d7"})
    c("debit", {"transaction_id": "d7", "amount": "1", **bet})
    c("cancel", {"transaction_id": "x2", "player": "alice", "table": "T", "round": "R1", "debit": "d7"})
    c("cancel", {"transaction_id": "x3", "player": "nobody", "table": "T", "round": "R1", "debit": "d1"})
    c("cancel", {"transaction_id": "x4", "player": "alice", "table": "T", "round": "R2", "debit": "d1"})
    c("cancel", {"transaction_id": "x1", "player": "alice", "table": "T", "round": "R1", "debit": "d8"})
    c("debit", {"transaction_id": "d8", "amount": "2", **bet})
    c("credit", {"transaction_id": "c1", "amount": "0", "debits": ["d1"], **bet})
    c("credit", {"transaction_id": "c2", "amount": "0", "debits": ["d9"], **bet})
    c("credit", {"transaction_id": "c3", "amount": "0", "debits": ["d7"], **bet})
    c("credit", {"transaction_id": "c4", "amount": "0", "debits": ["d1"], **bet, "player": "nobody"})
    c("credit", {"transaction_id": "c5", "amount": "0", "debits": ["d1"], **bet, "currency": "HKD"})
    c("credit", {"transaction_id": "c1", "amount": "1", "debits": ["d1"], **bet})
    c("credit", {"transaction_id": "c6", "amount": "30", "debits": ["d1", "d8"], **bet})
    c("credit", {"transaction_id": "c7", "amount": "30", "debits": ["d1", "d8"], **bet})
    c("debit", {"transaction_id": "d9", "amount": "1", **bet})
    c("cancel", {"transaction_id": "x5", "player": "alice", "table": "T", "round": "R1", "debit": "d1"})
    _batch(c, bet)
    c("transactions", {"request_id": "q1", "table": "T", "round": "R1"})
    c("transactions", {"request_id": "q2", "since": "2000-01-01T00:00:00.000Z", "until": "9999-01-01T00:00:00.000Z",
                       "limit": 2, "after": 1})
    c("transactions", {"request_id": "q3", "table": "T", "since": "2000-01-01T00:00:00.000Z"})
    for call in CALLS:
        c(call, b'{"request_id": 5', valid=False)
        c(call, {"request_id": "r"}, valid=False, secret=b"another-secret" * 3)
        c(call, {"request_id": "r"}, valid=False, skew=-3600)
        raw = json.dumps({"request_id": "r", "player": "alice", "currency": "MOP"}).encode()
        headers = signing.request_headers(c.secret, f"{PREFIX}/{call}", raw, timestamp=int(time.time()))
        c(call, raw, headers=headers, valid=False)
        c(call, raw, headers=headers, valid=False)
    _busy_ledger(c, wallet.db, bet, walletproc.token(wallet.db, "alice"))
    # the reference wallet's reads never wait for the write lock (SQLite WAL):
    # they have no temporary error of their own to show (authenticate writes: it uses its token up)
    reads_never_wait = {(call, 503, "temporary_error") for call in ("balance", "transactions")}
    # (final_error is what a wallet answers a credit it will never do; the reference wallet has no
    # such credit: a credit names the debits it settles, and every other refusal has its own status)
    others_only = {("credit", 500, "final_error")}
    assert documented() - reads_never_wait - others_only <= c.seen, documented() - reads_never_wait - others_only - c.seen
    assert c.seen <= documented(), c.seen - documented()


def _busy_ledger(c: Caller, db: Path, bet: dict, token: str) -> None:
    """A write lock held by another process's connection: the wallet's writes
    answer temporary_error (nothing kept)."""
    hold = sqlite3.connect(db, timeout=0, isolation_level=None)
    hold.execute("BEGIN IMMEDIATE")
    try:
        with ThreadPoolExecutor(5) as pool:  # at once: one wait for the lock, not five
            list(pool.map(lambda args: c(*args), [
                ("debit", {"transaction_id": "t1", "amount": "1", **bet, "round": "R5"}),
                ("credit", {"transaction_id": "t2", "amount": "1", "debits": ["t1"], **bet, "round": "R5"}),
                ("cancel", {"transaction_id": "t3", "player": "alice", "table": "T", "round": "R5", "debit": "t1"}),
                ("batch", {"request_id": "t4", "calls": [{"call": "debit", "request": {
                    "transaction_id": "t5", "amount": "1", **bet, "round": "R5"}}]}),
                ("authenticate", {"request_id": "t6", "token": token}),
            ]))
    finally:
        hold.execute("ROLLBACK")
        hold.close()


def _batch(c: Caller, bet: dict) -> None:
    """A batch of each write, a repeat and a bad one: each answer is the one
    its call's own schema documents for its status."""
    calls = [("debit", {"transaction_id": "e1", "amount": "3", **bet, "round": "RB"}),
             ("debit", {"transaction_id": "e1", "amount": "3", **bet, "round": "RB"}),
             ("debit", {"transaction_id": "e2", "amount": "0.001", **bet, "round": "RB"}),
             ("debit", {"transaction_id": "d1", "amount": "99", **bet}),
             ("credit", {"transaction_id": "e3", "amount": "6", "debits": ["e1"], **bet, "round": "RB"}),
             ("cancel", {"transaction_id": "e4", "player": "alice", "table": "T", "round": "RB", "debit": "e1"})]
    answer = c("batch", {"request_id": "bb", "calls": [{"call": n, "request": r} for n, r in calls]})
    assert [a["status"] for a in answer["answers"]] == ["ok", "ok", "invalid_request", "id_reused", "ok",
                                                        "already_settled"]
    for (call, _), item in zip(calls, answer["answers"]):
        response = deref(SPEC["paths"][f"{PREFIX}/{call}"]["post"]["responses"][str(Status(item["status"]).http)])
        validate(item, response["content"]["application/json"]["schema"], f"batch {call}")
    c("batch", {"request_id": "bc", "calls": []}, valid=False)
