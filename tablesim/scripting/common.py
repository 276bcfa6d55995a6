"""Parsing helpers shared by the games' script readers."""

from __future__ import annotations

from drivers.mock.faults import FAULT_KINDS, MockFault
from tablesim.cards import DealtCard, parse_dealt
from tablesim.errors import IllegalAction, InputError
from tablesim.validate import Reader


def parse_card_list(reader: Reader, key: str = "cards") -> list[DealtCard]:
    raw = reader.list(key)
    out = []
    for i, code in enumerate(raw):
        try:
            out.append(parse_dealt(code))
        except InputError as exc:
            raise reader.fail(f"{key}[{i}]", exc.message) from None
    return out


def parse_faults(reader: Reader, device_kind: str) -> list[MockFault]:
    """``faults: [{fault: jam, after: 2}, {fault: drawn_while_disarmed, card: 7H}]``."""
    out = []
    for i, raw in enumerate(reader.list("faults", [])):
        f = Reader(raw, f"{reader.at('faults')}[{i}]", file=reader.file, error=InputError)
        kind = f.str("fault", choices=[k for k, kinds in FAULT_KINDS.items() if device_kind in kinds])
        after = f.int("after", 0, lo=0, hi=1000)
        code = f.raw("card", None)
        card = None
        if code is not None:
            try:
                card = parse_dealt(code).card
            except InputError as exc:
                raise f.fail("card", exc.message) from None
        f.reject_unknown()
        out.append(MockFault(kind, after, card))
    return out


def refuse(reader: Reader, key: str, exc: IllegalAction) -> InputError:
    """A table refusal during a scripted round, located at the script field."""
    return reader.fail(key, exc.reason)
