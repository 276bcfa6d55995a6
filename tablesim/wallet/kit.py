"""The conformance kit: the protocol's cases run against any wallet.

It needs the wallet's URL, the shared secret and a launch token of a test
player with no responsible-gaming limits and a balance of at least 100 of
the kit's stakes (a stake is 100 units of the player's currency). Every case
checks the answer's status and signature and, from the balance, that
nothing moved that should not have. The rounds are on table ``kit`` with
round ids of their own per run; the kit leaves the balance as it found it.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from dataclasses import dataclass, field
from decimal import Decimal

import httpx

from tablecore.errors import InputError
from tablecore.money import MONEY, fmt
from tablesim.wallet import protocol as p
from tablesim.wallet import signing

TABLE = "kit"


class CaseFailed(Exception):
    pass


@dataclass
class Reply:
    http: int
    body: bytes
    answer: dict
    signed: bool

    @property
    def status(self) -> str:
        return str(self.answer.get("status"))


@dataclass(frozen=True, slots=True)
class CaseResult:
    name: str
    ok: bool
    detail: str


@dataclass
class Probe:
    """Signed (or deliberately mis-signed) requests to one wallet."""

    url: str
    secret: bytes
    http: httpx.AsyncClient
    run: str = field(default_factory=lambda: secrets.token_hex(4))
    player: str = ""
    currency: str = ""
    unit: Decimal = Decimal(0)
    counter: int = 0
    token: str = ""  # the launch token, used up by the start's authenticate (``started``)
    started: str = ""

    def id(self, what: str) -> str:
        self.counter += 1
        return f"kit-{self.run}-{what}-{self.counter}"

    async def send(self, call: str, payload: dict | None = None, *, body: bytes | None = None,
                   secret: bytes | None = None, skew: int = 0, headers: dict | None = None) -> Reply:
        path = f"{p.PREFIX}/{call}"
        body = body if body is not None else json.dumps(payload, separators=(",", ":")).encode()
        headers = headers or signing.request_headers(secret or self.secret, path, body,
                                                     timestamp=int(time.time()) + skew)
        response = await self.http.post(self.url + "/" + call, content=body, headers=headers)
        ts, sig = response.headers.get(signing.TIMESTAMP, ""), response.headers.get(signing.SIGNATURE, "")
        signed = bool(signing.SIGNATURE_FORMAT.fullmatch(sig)) and signing.verify(
            self.secret, signing.answer_message(ts, headers[signing.NONCE], response.content), sig)
        try:
            answer = json.loads(response.content)
        except ValueError:
            answer = {}
        reply = Reply(response.status_code, response.content, answer if isinstance(answer, dict) else {}, signed)
        if not reply.signed:
            raise CaseFailed(f"the answer to {call} (HTTP {reply.http}) has no valid signature")
        return reply

    def stake(self, n: int = 1) -> str:
        return fmt(MONEY.multiply(self.unit, Decimal(100 * n)))

    def units(self, n) -> str:
        return format(MONEY.multiply(self.unit, Decimal(n)), "f")

    async def balance(self) -> Decimal:
        reply = await self.send("balance", {"request_id": self.id("b"), "player": self.player,
                                            "currency": self.currency})
        expect(reply, "ok")
        return Decimal(reply.answer["balance"])

    def debit(self, tid: str, round_id: str, amount: str, **over) -> dict:
        return {"transaction_id": tid, "player": self.player, "currency": self.currency, "amount": amount,
                "table": TABLE, "round": round_id, **over}

    def credit(self, tid: str, round_id: str, amount: str, debits: list[str]) -> dict:
        return {"transaction_id": tid, "player": self.player, "currency": self.currency, "amount": amount,
                "table": TABLE, "round": round_id, "debits": debits}

    def cancel(self, tid: str, round_id: str, debit: str) -> dict:
        return {"transaction_id": tid, "player": self.player, "table": TABLE, "round": round_id, "debit": debit}


def expect(reply: Reply, status: str, http: int | None = None) -> Reply:
    if reply.status != status:
        raise CaseFailed(f"expected {status}, got {reply.status} (HTTP {reply.http}): {reply.answer.get('message')}")
    wanted = http if http is not None else p.Status(status).http
    if reply.http != wanted:
        raise CaseFailed(f"{status} came with HTTP {reply.http}, not {wanted}")
    return reply


async def unchanged(probe: Probe, before: Decimal, what: str) -> None:
    after = await probe.balance()
    if after != before:
        raise CaseFailed(f"{what}: the balance moved from {before} to {after}")


async def moved(probe: Probe, before: Decimal, by: Decimal, what: str) -> None:
    after = await probe.balance()
    if after != MONEY.add(before, by):
        raise CaseFailed(f"{what}: the balance is {after}, expected {MONEY.add(before, by)}")


async def run_cases(url: str, secret: bytes, token: str, cases=None) -> list[CaseResult]:
    """Every case against the wallet at ``url`` (its protocol base, .../wallet/v1)."""
    from tablesim.wallet.kitcases import CASES

    async with httpx.AsyncClient(timeout=15.0) as http:
        probe = Probe(url.rstrip("/"), secret, http)
        await _start(probe, token)
        results = []
        for name, case in (cases or CASES):
            try:
                detail = await case(probe)
                results.append(CaseResult(name, True, detail or ""))
            except CaseFailed as exc:
                results.append(CaseResult(name, False, str(exc)))
            except httpx.HTTPError as exc:
                results.append(CaseResult(name, False, f"no answer: {type(exc).__name__} {exc}".strip()))
        return results


async def _start(probe: Probe, token: str) -> None:
    """The test player's account, from the token (bad input if it does not hold)."""
    probe.token, probe.started = token, probe.id("auth")
    try:
        reply = await probe.send("authenticate", {"request_id": probe.started, "token": token})
    except httpx.HTTPError as exc:
        raise InputError(f"cannot reach the wallet at {probe.url}: {type(exc).__name__} {exc}".rstrip()) from None
    except CaseFailed as exc:
        raise InputError(f"{exc} (is --secret the wallet's?)") from None
    if reply.status != "ok":
        raise InputError(f"the wallet does not authenticate --token: {reply.status}: {reply.answer.get('message')}")
    a = reply.answer
    probe.player, probe.currency, probe.unit = a["player"], a["currency"], Decimal(a["unit"])
    if Decimal(a["balance"]) < Decimal(probe.stake(100)):
        raise InputError(f"the kit's player {probe.player} needs a balance of at least {probe.stake(100)} "
                         f"{probe.currency} (has {a['balance']})")


def run(url: str, secret: bytes, token: str) -> list[CaseResult]:
    return asyncio.run(run_cases(url, secret, token))
