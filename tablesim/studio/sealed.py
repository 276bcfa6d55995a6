"""Face-down cards go out sealed: no reader of the bus sees a card before its reveal.

The stream is read by the floor, the platform and whoever may subscribe to
``tablesim.<table>.>``. A table's records name every card as the devices
read it, the dealer's face-down cards among them, so a record is published
with what is still face down **sealed**: the value is ``??`` (what the
table's open interfaces show), and the message says, beside the record,
what was sealed where and a commitment to it::

    {"v": 1, "record": {..., "data": "<the data, sealed values as ??>"},
     "sealed": [{"path": ["card"], "commit": "<64 hex>"}]}

``commit`` is SHA-256 of ``COMMIT || salt || value`` (``value`` the
field's original value as canonical JSON), its ``salt`` an HMAC-SHA256
under the round's seal of ``[seq, path]``. The round's seal is a secret the
journal keeps in the round's first record (``meta``/``round``), which goes
out with the seal itself replaced by its SHA-256 (``"seal": "sha256:..."``).
The round's ``result`` record, once the round is over, opens them all: it
goes out with the seal and every value sealed in the round::

    {"v": 1, "record": {...}, "opened": {"seal": "<64 hex>",
     "values": [{"seq": 16, "path": ["card"], "value": "6D"}, ...]}}

so anyone can check that what the table showed at the reveal is what it
had committed to when the card was dealt (:func:`check_opened`).

What is sealed (while the round is not over; records of rounds without a
seal, written before it existed, go out as the journal holds them):

- a card dealt to the dealer (``card`` event, ``to: dealer``), and the
  cards set aside face down (``card_set_aside``: an exposed card, ``^``,
  is face up);
- an incident's card (``incident``, ``incident_resolved``) and the card
  codes in free texts (``text``, ``why``, a text's ``say`` values), as the
  open interfaces hide them (``tablesim.web.redaction``);
- every card a device reported (an input's ``$card``/``$dealt`` values:
  the input does not say where the card went) and the cards an operator
  named (``stray``, ``resolve_incident``).

Everything the journal holds is needed to make these bytes, so the anchor
(``tablesim.studio.anchor``) and the outbox's holding make exactly the
bytes the table published from the journal alone.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections import OrderedDict
from typing import Any, Callable, Iterable

from tablecore import betbatch
from tablesim.journal.canonical import canonical as data_text
from tablesim.studio import wire

#: what a sealed value shows (what the table's open interfaces show for a face-down card)
HIDDEN = "??"
#: what a commitment's hash is prefixed with: a commitment never stands for another hash of the same bytes
COMMIT = b"tablesim seal v1\x00"
#: a card code inside a text (AS, TD, 10H, 7C^), not part of a longer word
CARD_CODE = re.compile(r"(?<![A-Za-z0-9])(?:10|[2-9TJQKA])[SHDC]\^?(?![A-Za-z0-9])")
_WHOLE_CODE = re.compile(r"(?:10|[2-9TJQKA])[SHDC]\^?")
TEXT_FIELDS = ("text", "why")
CARD_TAGS = ("$card", "$dealt")
#: inputs whose plain arguments may name a card (a stray, the card a supervisor names)
CARD_INPUTS = ("stray", "resolve_incident")
INCIDENTS = ("incident", "incident_resolved")
#: the round's first record, and the field of its seal
ROUND = ("meta", "round")
SEAL = "seal"
#: the round's last record, which opens what was sealed in it
RESULT = ("event", "result")
#: a group of bets' one record: refs, positions, bets, amounts and players, never a card (its texts are
#: not searched for card codes: thousands of bets a round, and a player or a ref may well look like one)
BETS = (betbatch.KIND, betbatch.NAME)
#: rounds whose seal and end a sealer keeps at hand
_KEPT = 64

Path = list  # a field's place in the data: keys and list indices


def hide_codes(text: str) -> str:
    return CARD_CODE.sub(HIDDEN, text)


def _face_down(codes: str) -> str:
    """Cards set aside as the table shows them before the reveal: exposed (``^``) ones face up."""
    return " ".join(c if c.endswith("^") else HIDDEN for c in codes.split())


def seal_fields(kind: str, name: str, data: dict) -> tuple[dict, list[tuple[Path, Any]]]:
    """``data`` with what is face down replaced, and each sealed field's (path, original value)."""
    sealed: list[tuple[Path, Any]] = []
    out = _walk(data, [], kind, name, sealed)
    if kind == "event" and isinstance(out, dict):
        card = out.get("card")
        if isinstance(card, str):
            if name == "card" and out.get("to") == "dealer" and card != HIDDEN:
                sealed.append((["card"], card))
                out["card"] = HIDDEN
            elif name == "card_set_aside" and _face_down(card) != card:
                sealed.append((["card"], card))
                out["card"] = _face_down(card)
            elif name in INCIDENTS and CARD_CODE.search(card):
                sealed.append((["card"], card))
                out["card"] = HIDDEN
    return out, sealed


def _walk(value: Any, path: Path, kind: str, name: str, sealed: list) -> Any:
    """A copy of ``value`` with its device cards, named cards and texts' codes sealed."""
    if isinstance(value, dict):
        if kind != "event" and len(path) >= 1 and any(t in value for t in CARD_TAGS):
            sealed.append((path, value))
            return {t: HIDDEN for t in CARD_TAGS if t in value}
        out = {}
        for key, item in value.items():
            here = path + [key]
            if key in TEXT_FIELDS and isinstance(item, str) and CARD_CODE.search(item):
                sealed.append((here, item))
                out[key] = hide_codes(item)
            elif key == "say" and isinstance(item, dict) and isinstance(item.get("args"), dict):
                out[key] = {**item, "args": {k: _text(v, here + ["args", k], sealed) for k, v in item["args"].items()}}
            else:
                out[key] = _walk(item, here, kind, name, sealed)
        return out
    if isinstance(value, list):
        return [_walk(item, path + [i], kind, name, sealed) for i, item in enumerate(value)]
    if (isinstance(value, str) and kind != "event" and name in CARD_INPUTS and path and path[0] in ("args", "kwargs")
            and _WHOLE_CODE.fullmatch(value)):
        sealed.append((path, value))
        return HIDDEN
    return value


def _text(value: Any, path: Path, sealed: list) -> Any:
    if isinstance(value, str) and CARD_CODE.search(value):
        sealed.append((path, value))
        return hide_codes(value)
    return value


def salt(seal: str, seq: int, path: Path) -> bytes:
    return hmac.new(bytes.fromhex(seal), wire.canonical([seq, path]), hashlib.sha256).digest()


def commit(seal: str, seq: int, path: Path, value: Any) -> str:
    return hashlib.sha256(COMMIT + salt(seal, seq, path) + wire.canonical(value)).hexdigest()


def seal_digest(seal: str) -> str:
    """What the round's first record shows of its seal."""
    return "sha256:" + hashlib.sha256(bytes.fromhex(seal)).hexdigest()


class Sealer:
    """Makes each record's message body from the journal (``rows``: a
    journal's ``rows(**where)``, to look up a round's seal and end)."""

    def __init__(self, rows: Callable[..., Iterable[dict[str, Any]]]) -> None:
        self._rows = rows
        self._rounds: OrderedDict[tuple[str, str], tuple[str | None, int | None]] = OrderedDict()

    def body(self, row: dict[str, Any]) -> bytes:
        """The message body of a journal row (``wire.NotARecord``: a row no table writes)."""
        round_id, kind, name = row.get("round_id"), row.get("kind"), row.get("name")
        if not round_id or not isinstance(row.get("data"), str) or (kind, name) == BETS:
            return wire.encode_row(row)
        if (kind, name) == ROUND:
            return self._round_record(row)
        is_result = (kind, name) == RESULT
        if not is_result and not CARD_CODE.search(row["data"]):  # (nothing that looks like a card: as it is)
            return wire.encode_row(row)
        seal, ended = self._round(str(row["table_id"]), str(round_id))
        if seal is None or (ended is not None and ended < row["seq"]):
            return wire.encode_row(row)
        if is_result:
            return self._result(row, seal)
        data = _data(row)
        if data is None:
            return wire.encode_row(row)
        out, sealed = seal_fields(kind, name, data)
        if not sealed:
            return wire.encode_row(row)
        wire.encode_row(row)  # (the row's own check: a BLOB is no record, sealed or not)
        return wire.canonical({"v": wire.VERSION, "record": {**row, "data": data_text(out)},
                               "sealed": [{"path": p, "commit": commit(seal, row["seq"], p, v)} for p, v in sealed]})

    def _round_record(self, row: dict[str, Any]) -> bytes:
        data = _data(row)
        seal = data.get(SEAL) if data is not None else None
        if not isinstance(seal, str) or not _is_seal(seal):
            return wire.encode_row(row)
        return wire.encode_row({**row, "data": data_text({**data, SEAL: seal_digest(seal)})})

    def _result(self, row: dict[str, Any], seal: str) -> bytes:
        values = []
        for earlier in self._rows(round_id=row["round_id"], table_id=row["table_id"], upto=row["seq"] - 1):
            if (earlier["kind"], earlier["name"]) in (ROUND, RESULT, BETS) or not isinstance(earlier.get("data"), str):
                continue
            if not CARD_CODE.search(earlier["data"]):
                continue
            data = _data(earlier)
            if data is None:
                continue
            values += [{"seq": earlier["seq"], "path": p, "value": v}
                       for p, v in seal_fields(earlier["kind"], earlier["name"], data)[1]]
        wire.encode_row(row)
        return wire.canonical({"v": wire.VERSION, "record": row, "opened": {"seal": seal, "values": values}})

    def _round(self, table_id: str, round_id: str) -> tuple[str | None, int | None]:
        """The round's seal (None: a round without one) and its result's seq (None: not over)."""
        key = (table_id, round_id)
        known = self._rounds.get(key)
        if known is not None and known[1] is not None:
            return known
        if known is None:
            first = next(iter(self._rows(round_id=round_id, table_id=table_id, kind=ROUND[0], names=(ROUND[1],),
                                         limit=1)), None)
            data = _data(first) if first is not None else None
            seal = data.get(SEAL) if data is not None else None
            known = (seal if isinstance(seal, str) and _is_seal(seal) else None, None)
        if known[0] is not None:
            # (looked up after the rows being sealed were read: a result before them is committed, so seen)
            end = next(iter(self._rows(round_id=round_id, table_id=table_id, kind=RESULT[0], names=(RESULT[1],),
                                       limit=1)), None)
            known = (known[0], end["seq"] if end is not None else None)
        self._rounds[key] = known
        self._rounds.move_to_end(key)
        while len(self._rounds) > _KEPT:
            self._rounds.popitem(last=False)
        return known


def _data(row: dict[str, Any]) -> dict | None:
    try:
        data = json.loads(row["data"])
    except (TypeError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _is_seal(text: str) -> bool:
    return len(text) == 64 and all(c in "0123456789abcdef" for c in text)


def check_opened(bodies: Iterable[bytes]) -> list[str]:
    """What does not hold in a table's messages (in seq order) between the
    commitments and their openings: every sealed value of a round opened by
    its result, each opening matching its commitment, and the seal the
    round's first record named. Empty: every opening holds."""
    problems: list[str] = []
    digests: dict[str, str] = {}
    commits: dict[str, dict[tuple[int, str], str]] = {}
    for body in bodies:
        doc = json.loads(body)
        rec = doc["record"]
        rid = rec["round_id"]
        if (rec["kind"], rec["name"]) == ROUND:
            seal = json.loads(rec["data"]).get(SEAL)
            if isinstance(seal, str):
                digests[rid] = seal
        for item in doc.get("sealed", []):
            commits.setdefault(rid, {})[(rec["seq"], json.dumps(item["path"]))] = item["commit"]
        opened = doc.get("opened")
        if opened is None:
            continue
        seal = opened["seal"]
        if digests.get(rid) != seal_digest(seal):
            problems.append(f"round {rid}: the opened seal is not the one its first record named")
        mine = commits.pop(rid, {})
        for value in opened["values"]:
            where = (value["seq"], json.dumps(value["path"]))
            if mine.pop(where, None) != commit(seal, value["seq"], value["path"], value["value"]):
                problems.append(f"round {rid}: record {value['seq']} {value['path']}: the opening is not what was sealed")
        problems += [f"round {rid}: record {seq} {path}: sealed, never opened" for seq, path in mine]
    return problems
