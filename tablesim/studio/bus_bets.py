"""Remote bets over the bus: request/reply on ``tablesim.<table_id>.bets``.

A live-dealer platform sends one bet or a batch per request::

    {"v": 1, "bets": [{"ref": "p7-000123", "position": "3", "bet": "ante", "amount": "25"}, ...]}
    (or one bet object alone)

A bet may name the ``round`` it is for (the round a platform debited its
stake for): it is refused in any other round, so a stake paid for one
round never plays in the next.

and gets one result per bet, in order, only once the bets are committed to
the journal::

    {"v": 1, "results": [{"ok": true, "round_id": "...", "ref": "p7-000123"}, ...]}

(a request with ``"shared": true`` gets each group receipt's signed root,
which all the receipts of one record share, once a record: in the reply's
``shared``, by the record's seq, and not in each receipt)

Each bet goes through the table's own intake (``submit``, handed in by the
server: ``tablesim.server.intake``, with group commit, the table's rules
and refusal texts, exactly as the console's ``POST /api/bets/batch``). ``ref`` is required here: the platform's id for
the bet, journaled with it, so a retry (a lost reply, a table restarted) is
answered ``duplicate`` and never placed twice. Bad input is answered per bet
(``error: bad_input``) or, for a request that is no bet at all, with one
``error`` for the request; nothing is placed then.

Every accepted bet's result (a duplicate's too) carries a ``receipt``: its
entry in its group's one journal record (``place_bets``, committed with the
bet) and its Merkle path to the group's root, signed once per group with the
table's key (``tablesim.studio.receipts``; an older journal's bet: its
``bet_refs`` record, as published, signed), which ``tablesim receipt
verify`` checks offline against the table's public key.

The subscription lives on the studio link's connection (its thread); the
bets are handed to the table's event loop, which owns the table.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any, Awaitable, Callable

from tablecore.errors import InputError
from tablecore.money import amount_form_refusal, parse_amount
from tablecore.plainjson import quoted
from tablecore.wording import CORE_WORDS as W, message_of
from tablesim.studio import wire

log = logging.getLogger("tablesim.studio")

#: the most bets one request may carry
MAX_BETS = 1000
#: the most requests answered at once (their bets join the intake's next group)
IN_FLIGHT = 64
#: the largest request body taken (bytes)
MAX_BODY = 512 * 1024
#: the version of the bet request this table understands (docs/studio.md)
VERSION = 1
#: who the journal names for a bet that came over the bus
ACTOR = "bus"

#: places checked bets ({position, bet, amount, ref, actor}) through the table's intake; one result each
Submit = Callable[[list[dict[str, Any]]], Awaitable[list[dict[str, Any]]]]


def bad_input(detail: str, ref: str | None = None) -> dict[str, Any]:
    """A bet's bad-input result, shaped as the intake's (``BetOutcome.as_json``),
    with the detail's message id and values (``say``) when it has them."""
    out: dict[str, Any] = {"ok": False, "round_id": ""}
    if ref is not None:
        out["ref"] = ref
    out.update(error="bad_input", detail=str(detail))
    said = message_of(detail)
    if said is not None:
        out["say"] = said
    return out


def request_error(error: str, detail: str) -> dict[str, Any]:
    """The answer to a request refused whole, with its detail's message id and values."""
    said = message_of(detail)
    return {"v": 1, "error": error, "detail": str(detail), **({"say": said} if said else {})}


def parse_request(body: bytes) -> list[dict[str, Any]]:
    """The bets of a request (a bad one as its outcome); InputError for a
    request that carries no bets at all."""
    return read_request(body)[0]


def read_request(body: bytes) -> tuple[list[dict[str, Any]], bool]:
    """``parse_request``'s bets, and whether the request asks for the receipts'
    shared part once a record (``"shared": true``)."""
    if len(body) > MAX_BODY:
        raise InputError(W("bus.too_large", most=MAX_BODY))
    try:
        doc = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise InputError(W("bus.not_json")) from None
    if isinstance(doc, dict) and (type(doc.get("v", 1)) is not int or doc.get("v", 1) != VERSION):
        # (a request of a later version read as this one could place other bets than meant)
        raise InputError(W("bus.version", given=repr(doc.get("v")), version=VERSION))
    if isinstance(doc, dict) and "bets" in doc:
        items = doc["bets"]
        if not isinstance(items, list) or not 1 <= len(items) <= MAX_BETS:
            raise InputError(W("bus.bets_list", most=MAX_BETS))
    elif isinstance(doc, dict):
        items = [doc]
    else:
        raise InputError(W("bus.not_a_request"))
    return [_bet(item, i) for i, item in enumerate(items)], "bets" in doc and doc.get("shared") is True


#: the fields a bet may carry
_FIELDS = frozenset({"ref", "position", "bet", "amount", "player", "round", "v"})


def _bet(item: Any, index: int) -> dict[str, Any]:
    """A checked bet (with ``actor``), or its bad-input result (with ``error``)."""
    # The usual bet, all its fields strings and within bounds, taken at a glance: the
    # same checks as ``_bet_checked``'s, which words what a bet of any other shape lacks.
    if type(item) is dict and _FIELDS.issuperset(item):
        get = item.get
        ref, position, bet, amount, player, round_id = (get("ref"), get("position"), get("bet"), get("amount"),
                                                        get("player"), get("round"))
        if type(ref) is str and type(position) is str and type(bet) is str and type(amount) is str \
                and 0 < len(ref) <= 80 and 0 < len(bet) <= 40 and ref.isprintable() \
                and 0 < len(spot := position.strip()) <= 40 \
                and (player is None or (type(player) is str and 0 < len(player) <= 40 and player.isprintable())) \
                and (round_id is None or (type(round_id) is str and 0 < len(round_id) <= 100)):
            try:
                value = parse_amount(amount)
            except InputError:
                return _bet_checked(item, index)
            out = {"position": spot, "bet": bet, "amount": value, "ref": ref, "actor": ACTOR}
            if player is not None:
                out["player"] = player
            if round_id is not None:
                out["round"] = round_id
            return out
    return _bet_checked(item, index)


def _bet_checked(item: Any, index: int) -> dict[str, Any]:
    """``_bet``, every check in turn: the first a bet fails is its answer."""
    where = f"bets.{index}"
    if not isinstance(item, dict):
        return bad_input(W("bus.bet_not_object", where=where))
    ref = item.get("ref")
    ref = ref if isinstance(ref, str) else None
    unknown = sorted(set(item) - {"ref", "position", "bet", "amount", "player", "round", "v"})
    if unknown:
        return bad_input(W("bus.unknown_field", where=where, field=unknown[0]), ref)
    if ref is None or not 1 <= len(ref) <= 80 or not ref.isprintable():
        return bad_input(W("bus.bad_ref", where=where), ref)
    position, bet, amount = item.get("position"), item.get("bet"), item.get("amount")
    if isinstance(position, bool) or not isinstance(position, (str, int)) or not 1 <= len(str(position).strip()) <= 40:
        return bad_input(W("bus.bad_position", where=where), ref)
    if not isinstance(bet, str) or not 1 <= len(bet) <= 40:
        return bad_input(W("bus.bad_bet", where=where), ref)
    if amount_form_refusal(amount):
        return bad_input(W("bus.amount_form", where=where), ref)
    player = item.get("player")
    if player is not None and (not isinstance(player, str) or not 1 <= len(player) <= 40 or not player.isprintable()):
        return bad_input(W("bus.bad_player", where=where), ref)
    try:
        value = parse_amount(amount)  # plain digits, bounded, before any arithmetic
    except InputError as exc:
        return bad_input(W("bus.bad_amount", where=where, problem=str(exc)), ref)
    round_id = item.get("round")
    if round_id is not None and (not isinstance(round_id, str) or not 1 <= len(round_id) <= 100):
        return bad_input(W("bus.bad_round", where=where), ref)
    out = {"position": str(position).strip(), "bet": bet, "amount": value, "ref": ref, "actor": ACTOR}
    if player is not None:
        out["player"] = player  # whose bet it is
    if round_id is not None:
        out["round"] = round_id  # the round it was paid for: refused in any other (the platform debited it for this one)
    return out


class BusBets:
    """Answers the bet requests of one table. ``submit`` places bets (the
    table's intake) on ``table_loop``."""

    def __init__(self, table_id: str, submit: Submit, table_loop: asyncio.AbstractEventLoop) -> None:
        self.table_id = table_id
        self.submit = submit
        self.table_loop = table_loop
        self.link = None  # the studio link (its signing key and journal reader), for receipts
        self._rounds: dict[str, _RoundRefs] = {}
        self._receipt_cache: dict[int, dict[str, Any]] = {}
        self._proofs: dict[int, Any] = {}  # seq -> its group's receipts (``receipts.GroupProof``)
        self._slots: asyncio.Semaphore | None = None  # the requests that may be under way at once
        self._tasks: set[asyncio.Task] = set()  # (held: a task only the loop refers to may be collected)

    def bind_link(self, link) -> None:
        self.link = link
        self._rounds.clear()
        self._receipt_cache.clear()
        self._proofs.clear()

    async def attach(self, nc) -> None:
        """A studio-link hook: subscribe on each new connection (a queue group,
        so a standby table process never answers twice)."""
        self._slots = asyncio.Semaphore(IN_FLIGHT)  # (this connection's loop)
        await nc.subscribe(wire.bets_subject(self.table_id), queue=f"tablesim-{self.table_id}", cb=self._on_request)

    async def _on_request(self, msg) -> None:
        """A request is answered by a task of its own, so the requests that arrive while a
        group commits join the next group: the subscription hands its messages over one
        at a time, and awaiting each answer here made every request a group of its own
        (a request's commit, signature and message each paid per request). The tasks
        start in the order the requests came, so their bets reach the intake in that
        order; at most ``IN_FLIGHT`` are under way (then the subscription waits)."""
        if not msg.reply:
            return  # a bet nobody waits for is never placed: its sender could not learn the outcome
        slots = self._slots
        if slots is None:  # (no connection's hook ran: answered in place, as before)
            await self._respond(msg)
            return
        await slots.acquire()
        task = asyncio.ensure_future(self._respond(msg))
        self._tasks.add(task)
        task.add_done_callback(lambda done: (self._tasks.discard(done), slots.release()))

    async def _respond(self, msg) -> None:
        try:
            reply = await self.reply(msg.data)
        except Exception as exc:  # the journal failed: nothing of the group stands
            log.exception("bus bets failed")
            reply = self.encoded(request_error("failed", W("bus.failed", error=str(exc))))
        try:
            await msg.respond(reply)
        except Exception as exc:  # the requester learns nothing; a retry with the same refs is safe
            log.warning("bus bets: reply lost: %s", exc)

    async def reply(self, body: bytes) -> bytes:
        """The reply's bytes: ``encoded(await answer(body))``. A request whose bets were
        all placed now (the usual one) is written straight from their groups' pieces,
        with no receipt made as a dict and taken apart again."""
        got = await self._results(body)
        if isinstance(got, dict):
            return self.encoded(got)
        parsed, compact, results = got
        if self.link is not None:
            fast = self._placed_text(results, compact)
            if fast is not None:
                return fast
        return self.encoded(self._finish(parsed, compact, results))

    async def answer(self, body: bytes) -> dict[str, Any]:
        got = await self._results(body)
        return got if isinstance(got, dict) else self._finish(*got)

    async def _results(self, body: bytes) -> dict[str, Any] | tuple[list, bool, list]:
        """The request's bets, whether it asks for the receipts' shared part apart, and each
        bet's result as the table gave it (``group``, ``at``: where a bet placed now stands);
        or the answer to a request refused whole."""
        try:
            parsed, compact = read_request(body)
        except InputError as exc:
            return request_error("bad_input", exc.message if exc.where is None else str(exc))
        requests = [p for p in parsed if "error" not in p]
        outcomes: list[dict[str, Any]] = []
        if requests:
            future = asyncio.run_coroutine_threadsafe(self.submit(requests), self.table_loop)
            outcomes = await asyncio.wrap_future(future)
        placed = iter(outcomes)
        return parsed, compact, [p if "error" in p else next(placed) for p in parsed]

    def _placed_text(self, results: list, compact: bool) -> bytes | None:
        """The reply of bets all placed now, each in its group's record (None: any other),
        written from what each group made once: the same bytes as ``encoded`` of the
        reply ``answer`` gives."""
        out, shared, proof_of = [], {}, self._proof
        for r in results:
            if type(r) is not dict or tuple(r) != _PLACED_NOW or r["ok"] is not True:
                return None
            round_id, ref, group, at = r["round_id"], r["ref"], r["group"], r["at"]
            if type(round_id) is not str or not round_id or type(ref) is not str:
                return None
            proof = proof_of(group.seq, group.round_id, group.ts, group.data["bets"])
            own = proof.own_text(at)
            if own is None:
                return None
            if compact:
                shared.setdefault(proof.seq, proof)
                out.append('{"ok":true,"round_id":%s,"ref":%s,"receipt":%s}}' % (quoted(round_id), quoted(ref), own))
            else:
                out.append('{"ok":true,"round_id":%s,"ref":%s,"receipt":%s,%s}' % (
                    quoted(round_id), quoted(ref), own, proof.shared_text))
        more = ',"shared":{%s}' % ",".join('"%d":{%s' % (seq, p.shared_text) for seq, p in shared.items()) \
            if shared else ""
        return ('{"v":%d,"results":[%s]%s}' % (VERSION, ",".join(out), more)).encode()

    def _finish(self, parsed: list, compact: bool, results: list) -> dict[str, Any]:
        """The reply (as ``answer`` gives it) of the results ``_results`` gave."""
        if self.link is not None:
            self._receipts(parsed, results)
        else:
            for result in results:  # (no link, no key to sign receipts with)
                result.pop("group", None), result.pop("at", None)
        reply = {"v": 1, "results": results}
        if compact:
            shared = _shared_apart(results)
            if shared:
                reply["shared"] = shared
        return reply

    def encoded(self, reply: dict[str, Any]) -> bytes:
        """The reply's bytes, what a receipt shares with the others of its record
        encoded once (the same JSON as the reply's, not sorted: a group's receipts
        share its signed root statement; an older journal's, a whole record each)."""
        results = reply.get("results")
        if not isinstance(results, list):
            return wire.canonical(reply)
        if all(r.get("receipt") is None or r["receipt"].get("v") == 2 for r in results):
            # (a group's receipts: each accepted bet's result written from what its group made
            # once, the entry's text and the path's hashes, the rest by the encoder in one call:
            # the same bytes as the whole reply in one encoder call, for a third of its cost)
            return self._groups_encoded(reply, results)
        out = []
        for result in results:
            receipt = result.get("receipt")
            shared = self._shared_of(receipt) if receipt else None
            if shared is None:
                out.append(_dumps(result))
                continue
            rest = _dumps({k: v for k, v in result.items() if k != "receipt"})
            if receipt.get("v") == 2:
                own = _dumps({k: receipt[k] for k in ("v", "table_id", "seq", "ref", "at", "bet", "path")})
                out.append(b"%s,\"receipt\":%s,%s}" % (rest[:-1], own[:-1], shared))
            else:
                out.append(b"%s,\"receipt\":%s,\"ref\":%s}}" % (rest[:-1], shared, _dumps(receipt["ref"])))
        more = b',"shared":%s' % _dumps(reply["shared"]) if "shared" in reply else b""
        return b'{"v":%d,"results":[%s]%s}' % (VERSION, b",".join(out), more)

    def _groups_encoded(self, reply: dict[str, Any], results: list[dict[str, Any]]) -> bytes:
        """``_encode(reply).encode()``, an accepted bet's result with its group's receipt
        (``GroupProof.receipt``, its shared part taken off or not) spliced from the
        group's pieces; anything else by the encoder."""
        if tuple(reply) not in _REPLY_KEYS or reply["v"] != VERSION or type(reply["v"]) is not int:
            return _encode(reply).encode()
        proofs, out = self._proofs, []
        for result in results:
            own = None
            receipt = result.get("receipt")
            if receipt is not None and tuple(result) == _PLACED and result["ok"] is True:
                keys = tuple(receipt)
                proof = proofs.get(receipt["seq"]) if keys in _RECEIPT_KEYS else None
                if proof is not None:
                    try:
                        own = proof.own_json(receipt)
                        if own is not None:
                            if len(keys) > len(_RECEIPT_OWN):
                                if (receipt["statement"], receipt["sig"], receipt["key"]) \
                                        != (proof.statement, proof.sig, proof.key):
                                    raise TypeError  # (not the group's shared part: by the encoder)
                                own += "," + proof.shared_text
                            else:
                                own += "}"
                            own = '{"ok":true,"round_id":%s,"ref":%s,"receipt":%s}' % (
                                quoted(result["round_id"]), quoted(result["ref"]), own)
                    except TypeError:  # (a field that is no string: by the encoder)
                        own = None
            out.append(_encode(result) if own is None else own)
        more = ',"shared":%s' % _encode(reply["shared"]) if "shared" in reply else ""
        return ('{"v":%d,"results":[%s]%s}' % (VERSION, ",".join(out), more)).encode()

    def _shared_of(self, receipt: dict[str, Any]) -> bytes | None:
        if receipt.get("v") == 2:
            proof = self._proofs.get(receipt["seq"])
            return None if proof is None or proof.sig != receipt.get("sig") else proof.shared
        made = self._receipt_cache.get(receipt["seq"])
        return None if made is None or made[0]["sig"] != receipt["sig"] else made[1]

    def _receipts(self, parsed: list[dict[str, Any]], results: list[dict[str, Any]]) -> None:
        """A receipt on each accepted bet's result: its entry in its group's one
        record (``place_bets``) and its path to the group's signed root; a bet placed
        before (``duplicate``) gets the receipt of the record that holds it."""
        for bet, result in zip(parsed, results):
            group, at = result.pop("group", None), result.pop("at", None)
            if not result.get("ok") or "error" in bet or not result.get("round_id"):
                continue
            if group is not None:  # placed now: the group's record, as the intake wrote it
                proof = self._proof(group.seq, group.round_id, group.ts, group.data["bets"])
                result["receipt"] = proof.receipt(at)
                continue
            key = (bet["ref"], bet["position"], bet["bet"], bet.get("player"))
            found = self._refs_of(result["round_id"], key)
            if found is None:
                continue
            seq, body, data = found
            if "bets" in data:  # a group's record
                rec = wire.decode(body)
                proof = self._proof(seq, rec.round_id, rec.ts, data["bets"])
                result["receipt"] = proof.receipt(proof.at[key])
            else:  # an older journal's ``bet_refs`` record
                result["receipt"] = {**self._signed(seq, body), "ref": bet["ref"]}

    def _proof(self, seq: int, round_id: str, ts: str, entries: list):
        """The receipts of record ``seq`` (its root signed once: every bet of the group shares it)."""
        proof = self._proofs.get(seq)
        if proof is None:
            if len(self._proofs) >= 256:
                self._proofs.pop(next(iter(self._proofs)))
            proof = self._proofs[seq] = self.link.group_proof(seq, round_id, ts, entries)
        return proof

    def _refs_of(self, round_id: str, key: tuple) -> tuple[int, bytes, dict] | None:
        """The (seq, body, data) of the record holding ``key``, from the round's
        records of refs read so far, reading only the newer ones (a round of
        thousands of bets is read once, not once per request)."""
        known = self._rounds.get(round_id)
        if known is None:
            if len(self._rounds) >= 4:  # (the rounds still taking bets: the oldest go)
                self._rounds.pop(next(iter(self._rounds)))
            known = self._rounds[round_id] = _RoundRefs()
        if key not in known.found:
            for seq, data, body in self.link.ref_records(round_id, after=known.last_seq):
                known.last_seq = max(known.last_seq, seq)
                for entry in data.get("refs") or data.get("bets") or []:
                    if isinstance(entry, list) and len(entry) >= 4 and entry[0] is not None:
                        player = entry[4] if len(entry) > 4 else None
                        known.found.setdefault((entry[0], str(entry[1]), entry[2], player), (seq, body, data))
        return known.found.get(key)

    def _signed(self, seq: int, body: bytes) -> dict[str, Any]:
        """The receipt of record ``seq`` (its signature made once: every ref of the record
        shares it), kept with its JSON but for the ref and the closing brace (``encoded``)."""
        made = self._receipt_cache.get(seq)
        if made is None:
            if len(self._receipt_cache) >= 256:
                self._receipt_cache.pop(next(iter(self._receipt_cache)))
            receipt = self.link.receipt(seq, body, "")
            made = self._receipt_cache[seq] = (receipt, _dumps({k: v for k, v in receipt.items() if k != "ref"})[:-1])
        return made[0]


def _shared_apart(results: list[dict[str, Any]]) -> dict[str, dict[str, str]]:
    """The group receipts' shared part taken off them, once per record (by its
    seq, as text); a receipt whose shared part is not its record's first keeps its own."""
    shared: dict[str, dict[str, str]] = {}
    for result in results:
        receipt = result.get("receipt")
        if receipt is None or receipt.get("v") != 2:
            continue
        part = {k: receipt[k] for k in wire.RECEIPT_SHARED}
        seq = str(receipt["seq"])
        if shared.setdefault(seq, part) == part:
            for k in wire.RECEIPT_SHARED:
                del receipt[k]
    return shared


#: compact JSON, the encoder made once (``json.dumps`` with arguments makes one a call)
_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
#: the keys of a reply, of a placed bet's result with its receipt, and of a group's receipt
#: (without and with its shared part), in the order they are made: written from pieces
_REPLY_KEYS = (("v", "results"), ("v", "results", "shared"))
_PLACED = ("ok", "round_id", "ref", "receipt")
_PLACED_NOW = ("ok", "round_id", "ref", "group", "at")  # (a result as the table gives a bet placed now)
_RECEIPT_OWN = ("v", "table_id", "seq", "ref", "at", "bet", "path")
_RECEIPT_KEYS = (_RECEIPT_OWN, _RECEIPT_OWN + wire.RECEIPT_SHARED)


def _dumps(value: Any) -> bytes:
    return _encode(value).encode()


class _RoundRefs:
    """The refs of one round's records of refs read so far."""

    def __init__(self) -> None:
        self.last_seq = 0
        self.found: dict[tuple, tuple[int, bytes, dict]] = {}
