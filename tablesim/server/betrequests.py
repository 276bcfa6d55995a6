"""The bet routes' bodies, how a bet of a batch is read, and the quick way
in for plainly well-formed bets.

``POST /api/bets`` and ``POST /api/bets/batch`` carry most of a live
table's requests (thousands of bets a second). A request whose body is
plainly what the route takes (JSON, the known fields, plain ASCII texts
within their lengths, small whole numbers) is answered by ``QuickBets``, a
plain ASGI step after the body guard (which has checked the token and the
size), without FastAPI's per-request machinery: the same intake, the same
answers. Anything else (another content type, bad JSON, an unknown field, a
long or non-ASCII text, a float...) goes on to the FastAPI routes, which
refuse it in their own words.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from pydantic import Field, StrictInt, StrictStr, ValidationError
from starlette.responses import JSONResponse

from tablecore.errors import IllegalAction, InputError
from tablecore.money import parse_amount
from tablecore.wording import message_of
from tablesim.games.console import Body
from tablesim.server.intake import BetOutcome, BetRequest, bad_input, bet_request, refused
from tablesim.journal.storage import StorageError
from tablesim.web import redaction
from tablesim.server.auth import Operator, TokenStore, bearer
from tablesim.server.bodyerrors import TOO_DEEP, TOO_DEEP_SAID, TooDeep, loads, readable


class BetBody(Body):
    position: StrictStr | StrictInt = Field(description="a position of the game's layout: a box (1.., 'common') or a player's name")
    bet: StrictStr = Field(min_length=1, max_length=40)
    amount: StrictStr | StrictInt = Field(description="a string like '12.50' or a whole number; never a float")
    ref: StrictStr | None = Field(None, min_length=1, max_length=80,
                                  description="the client's id for this bet: a retry with it is never placed twice")
    player: StrictStr | None = Field(None, min_length=1, max_length=40,
                                     description="whose bet it is; none: the position's own seat")


#: the most bets one batch request may carry
MAX_BATCH = 1000


class BatchBody(Body):
    bets: list[dict[str, Any]] = Field(min_length=1, max_length=MAX_BATCH)


#: the fields a bet of a batch may have (``BetBody``)
_BET_FIELDS = frozenset(BetBody.model_fields)
#: the largest whole number the quick look takes as it is (larger ones: ``BetBody`` says)
_QUICK_INT = 1 << 53


def _quick_text(value: Any, longest: int) -> bool:
    return type(value) is str and 0 < len(value) <= longest and value.isascii()


def _quick_bet(item: Any) -> bool:
    """Whether a bet of a batch is plainly what ``BetBody`` takes (plain
    ASCII texts within their lengths, small whole numbers, known fields):
    most are, and are read without building the model. Anything else is
    left to ``BetBody``, which refuses it with its own words."""
    if type(item) is not dict or not item.keys() <= _BET_FIELDS:
        return False
    position, amount = item.get("position"), item.get("amount")
    ref, player = item.get("ref"), item.get("player")
    return ((_quick_text(position, 1 << 20) or type(position) is int and -_QUICK_INT < position < _QUICK_INT)
            and _quick_text(item.get("bet"), 40)
            and (_quick_text(amount, 1 << 20) or type(amount) is int and -_QUICK_INT < amount < _QUICK_INT)
            and (ref is None or _quick_text(ref, 80)) and (player is None or _quick_text(player, 40)))


def _bet_request(item: dict[str, Any], index: int, actor: str) -> BetRequest | BetOutcome:
    """One bet of a batch: the request, or why it is bad input."""
    if _quick_bet(item):
        try:
            return bet_request(_position(item["position"]), item["bet"], parse_amount(item["amount"]), actor,
                               item.get("ref"), item.get("player"))
        except InputError as exc:
            return bad_input(f"bets.{index}.{exc}", item.get("ref"))
    return _bet_request_model(item, index, actor)


def _bet_request_model(item: dict[str, Any], index: int, actor: str) -> BetRequest | BetOutcome:
    """``_bet_request`` through the ``BetBody`` model (what is not plainly a bet)."""
    try:
        body = BetBody.model_validate(item)
        return BetRequest(_position(body.position), body.bet, parse_amount(body.amount), actor, body.ref, body.player)
    except ValidationError as exc:
        return bad_input(readable(exc.errors(include_url=False), f"bets.{index}."),
                         item.get("ref") if isinstance(item.get("ref"), str) else None)
    except InputError as exc:
        return bad_input(f"bets.{index}.{exc}", item.get("ref") if isinstance(item.get("ref"), str) else None)


def _position(value: str | int) -> str:
    text = str(value).strip()
    if not text or len(text) > 40:
        raise InputError("a position is 1 to 40 characters", where="position")
    return text


async def place_one(runner, op: Operator, position: str, bet: str, amount: Decimal, ref: str | None,
                    player: str | None) -> dict:
    """``POST /api/bets``'s answer: the bet book once the bet is on disk (a refusal raises);
    a ref already placed is answered ``duplicate`` (with its round), as in a batch."""
    (outcome,), bets = await runner.intake.submit([BetRequest(position, bet, amount, op.actor, ref, player)],
                                                  with_book=True)
    outcome.raise_refusal()
    if outcome.duplicate:
        return {"ok": True, "duplicate": True, "ref": ref, "round_id": outcome.round_id, "bets": bets}
    return {"ok": True, "bets": bets}


def refusal(exc: IllegalAction, journal) -> dict:
    """A 409's body (the journal named by its file only, not where it is)."""
    reason, detail = redaction.hide_path(exc.reason, journal), redaction.hide_path(str(exc), journal)
    said = message_of(exc.reason)
    if said:  # (its values name no more of where the journal is than the text does)
        said = {**said, "args": {k: redaction.hide_path(v, journal) for k, v in said["args"].items()}}
    return {"error": "refused", "action": exc.action, "reason": reason, "detail": detail,
            **({"say": said} if said else {})}  # the reason's message id and values, for a page in another language


async def place_batch(runner, op: Operator, items: list[dict[str, Any]]) -> dict:
    """``POST /api/bets/batch``'s answer: a result per bet, once they are on disk.
    A journal that cannot commit the group (a full disk) refuses each bet of it,
    with its reason: still one result per bet."""
    parsed = [_bet_request(item, i, op.actor) for i, item in enumerate(items)]
    requests = [p for p in parsed if isinstance(p, BetRequest)]
    try:
        outcomes = await runner.place_bets(requests)
    except StorageError as exc:
        exc = IllegalAction("bet", redaction.hide_path(exc.reason, runner.journal))
        outcomes = [refused(exc, r.ref, runner.table.round_id) for r in requests]
    answers = iter(outcomes)
    results = [next(answers) if isinstance(p, BetRequest) else p for p in parsed]
    accepted = sum(r.ok for r in results)
    return {"ok": accepted == len(results), "accepted": accepted, "refused": len(results) - accepted,
            "results": [r.as_json() for r in results]}


def _plain_batch(data: Any) -> list[dict] | None:
    """The bets of a body that is plainly a ``BatchBody``, else None."""
    if type(data) is not dict or len(data) != 1:
        return None
    bets = data.get("bets")
    if type(bets) is not list or not 1 <= len(bets) <= MAX_BATCH or not all(type(b) is dict for b in bets):
        return None
    return bets


class QuickBets:
    """The bet routes for plainly well-formed bodies (see the module); every
    other request goes on to ``app``. Sits after ``BodyGuard``: the token
    was checked and the body read (whole, within its limit) before."""

    ROUTES = ("/api/bets", "/api/bets/batch")

    def __init__(self, app, runner, tokens: TokenStore) -> None:
        self.app, self.runner, self.tokens = app, runner, tokens

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] not in self.ROUTES:
            await self.app(scope, receive, send)
            return
        message = await receive()
        body = message.get("body", b"") if message["type"] == "http.request" else b""
        answer = None
        if message["type"] == "http.request" and not message.get("more_body", False):
            answer = await self._answer(scope, body)
        if answer is None:  # not plainly a bet: the route itself reads it (the body handed on as it came)
            delivered = False

            async def replay() -> dict:
                nonlocal delivered
                if not delivered:
                    delivered = True
                    return message
                return await receive()

            await self.app(scope, replay, send)
            return
        await answer(scope, receive, send)

    async def _answer(self, scope, body: bytes) -> JSONResponse | None:
        op = None
        plain_json = False
        for name, value in scope["headers"]:
            name = name.lower()
            if name == b"content-type":
                plain_json = value.lower() == b"application/json"
            elif name == b"authorization":
                token = bearer(value.decode("latin-1"))
                op = self.tokens.check(token) if token is not None else None
        if op is None or not plain_json:
            return None
        try:
            data = loads(body)
        except TooDeep:
            return JSONResponse({"error": "bad_input", "detail": TOO_DEEP, "say": TOO_DEEP_SAID}, 422)
        except ValueError:
            return None
        try:
            if scope["path"] == "/api/bets/batch":
                bets = _plain_batch(data)
                if bets is None:
                    return None
                return JSONResponse(await place_batch(self.runner, op, bets))
            if not _quick_bet(data):
                return None
            amount = parse_amount(data["amount"])  # plain digits only, bounded, before any arithmetic
            return JSONResponse(await place_one(self.runner, op, _position(data["position"]), data["bet"], amount,
                                                data.get("ref"), data.get("player")))
        except IllegalAction as exc:  # (as the app's handlers answer them)
            return JSONResponse(refusal(exc, self.runner.journal), 409)
        except InputError as exc:
            return JSONResponse({"error": "bad_input", "detail": str(exc)}, 422)
