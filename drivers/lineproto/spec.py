"""A line-protocol device as a table configuration describes it.

``[devices.<kind>]`` with ``backend = "line"`` says how the device frames
its lines, which lines it sends (a regex with named groups per message,
mapped to one of the device's typed events), what the host sends it (a
template per command, with the answer it expects and how long to wait) and
how often to poll it. :func:`line_settings` checks all of it on load, each
error one line naming the field and the value; nothing here opens a port or
imports pyserial.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from drivers.lineproto.checksum import CHECKSUMS, checksum
from drivers.lineproto.codec import LineFormat, Template, TemplateError, group_takes
from drivers.lineproto.faultmap import FaultMap, MappedFault
from drivers.lineproto.turns import SOURCES, TurnsSpec, flag_bits
from drivers.registry import BAUDRATES
from tablecore.cards import parse_dealt
from tablecore.errors import InputError
from tablecore.validate import Reader

#: the events each kind's lines may carry
KIND_EVENTS: dict[str, tuple[str, ...]] = {
    "shoe": ("card", "fault", "fault_cleared", "ignore"),
    "wheel": ("spin", "spin_started", "revolution", "fault", "fault_cleared", "ignore"),
    "display": ("shown", "fault", "fault_cleared", "ignore"),
}
#: the commands each kind's host may send, with the fields their templates may use
KIND_COMMANDS: dict[str, dict[str, tuple[str, ...]]] = {
    "shoe": {"arm": ("round_id", "max_cards"), "disarm": (), "load": ("shoe_id", "decks"), "poll": ()},
    "wheel": {"arm": ("round_id", "min_turns", "max_seconds"), "disarm": (), "poll": ()},
    "display": {"show": ("round_id", "draw_id", "draw", "upper", "lower"), "clear": (), "poll": ()},
}
#: sample values that every template of a command must render with
SAMPLES: dict[str, Any] = {"round_id": "R-000001", "max_cards": 7, "shoe_id": "P1", "decks": 1,
                           "min_turns": 3, "max_seconds": 60, "draw_id": "D1", "draw": 3,
                           "upper": "3456", "lower": "7812"}
#: named groups an event needs (any one of the alternatives)
NEEDS: dict[str, tuple[tuple[str, ...], ...]] = {
    "card": (("rank", "suit"), ("code",)),
    "fault": (("code",),),
    "fault_cleared": (("code",),),
    "spin": (("segment",),),  # the turns: see [turns] (drivers.lineproto.turns)
    "spin_started": ((),),
    "revolution": ((),),
    "shown": (("draw",), ("upper", "lower")),
    "ignore": ((),),
}
SEVERITIES = ("W", "E", "C")
DIRECTIONS = ("CW", "CCW")
MIN_POLL = 0.1  # seconds: no line device here wants polling faster (the SS2 rule)
MAX_MESSAGES = 32


@dataclass(frozen=True)
class Message:
    name: str
    pattern: re.Pattern[str]
    event: str
    format: Template | None = None  # how the device writes it (its emulator)
    severity: str = "E"  # fault: when the line names none
    cards: dict[str, str] = field(default_factory=dict)  # card: device code -> card code
    ranks: dict[str, str] = field(default_factory=dict)  # card: device rank -> rank (2-9 T J Q K A)
    suits: dict[str, str] = field(default_factory=dict)  # card: device suit -> suit (S H D C)
    directions: dict[str, str] = field(default_factory=dict)  # spin: device value -> CW / CCW
    spinning_state: tuple[str, ...] = ()  # spin: values of {state} while the wheel turns
    result_state: tuple[str, ...] = ()  # spin: values of {state} at rest, showing the last result
    waiting_state: tuple[str, ...] = ()  # spin: values of {state} at rest before a spin (its emulator shows them)
    bare: bool = False  # written without the start character (and without a checksum)
    duplicate_window: float | None = None  # seconds: the same line again, no arm between, is one read

    def groups(self) -> set[str]:
        return set(self.pattern.groupindex)


@dataclass(frozen=True)
class Command:
    name: str
    send: Template
    expect: Template | None = None  # the answer awaited (None: none)
    refused: re.Pattern[str] | None = None  # an answer that says no
    timeout: float = 1.0


@dataclass(frozen=True)
class LineSpec:
    kind: str
    fmt: LineFormat
    messages: tuple[Message, ...]
    commands: dict[str, Command]
    poll_interval: float | None = None
    poll_misses: int = 3  # polls without a line before the link counts as lost
    turns: TurnsSpec = TurnsSpec()
    faults: FaultMap = FaultMap()
    status_interval: float | None = None  # the device writes a line by itself this often (seconds)
    resync: bool = True  # a line's leading noise is dropped to reach a frame that matches
    emulate_faults: tuple[str, ...] = ()  # how its emulator misbehaves, as the real device does

    def message(self, event: str) -> Message | None:
        return next((m for m in self.messages if m.event == event), None)


def _text(reader: Reader, key: str, default: str) -> str:
    value = reader.str(key, default)
    if any(not 0 <= ord(c) <= 0x7E for c in value):
        raise reader.fail(key, f"{value!r} must be ASCII")
    return value


def _seconds(reader: Reader, key: str, default: float | None, lo: float = 0.001) -> float | None:
    if not reader.has(key):
        reader.raw(key, None)
        return default
    value = reader.decimal(key)
    if value <= 0 and key == "duplicate_window":
        raise reader.fail(key, f"{value} must be more than 0 seconds (the same line within it is one read)")
    if value < Decimal(str(lo)) or value > 3600:
        raise reader.fail(key, f"{value} is outside {lo}..3600 seconds")
    return float(value)


def _format(reader: Reader) -> LineFormat:
    terminator = _text(reader, "terminator", "\r\n")
    if not terminator or len(terminator) > 4:
        raise reader.fail("terminator", f"{terminator!r} must be 1 to 4 characters (e.g. \"\\r\\n\")")
    start = _text(reader, "start", "")
    if len(start) > 1 or (start and not 0x20 < ord(start) <= 0x7E and start not in "\x02\x01"):
        raise reader.fail("start", f"{start!r} must be one character (or none)")
    name = reader.str("checksum", "none")
    try:
        cs = checksum(name)
    except KeyError:
        raise reader.fail("checksum", f"{name!r} is not one of {', '.join(CHECKSUMS)}") from None
    separator = _text(reader, "checksum_separator", "")
    if separator and not cs.digits:
        raise reader.fail("checksum_separator", "needs a checksum")
    max_length = reader.int("max_length", 256, lo=8, hi=4096)
    return LineFormat(terminator.encode("ascii"), start.encode("ascii"), cs, separator.encode("ascii"), max_length)


def _choices(reader: Reader, key: str) -> tuple[str, ...]:
    value = reader.raw(key, [])
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise reader.fail(key, f"expected a string or a list of strings, got {value!r}")
    return tuple(values)


def _mapping(reader: Reader, key: str, check: Any) -> dict[str, str]:
    if not reader.has(key):
        return {}
    sub = reader.sub(key)
    out = {}
    for device_value in sub.data:
        value = sub.str(device_value)
        try:
            out[device_value] = check(value)
        except (InputError, ValueError):
            raise sub.fail(device_value, f"{value!r} is not {getattr(check, 'what', 'valid')}") from None
    return out


def _card(value: str) -> str:
    return parse_dealt(value).card.code


def _rank(value: str) -> str:
    if value not in tuple("23456789TJQKA"):
        raise ValueError(value)
    return value


def _suit(value: str) -> str:
    if value not in tuple("SHDC"):
        raise ValueError(value)
    return value


def _direction(value: str) -> str:
    if value not in DIRECTIONS:
        raise ValueError(value)
    return value


_card.what, _rank.what, _suit.what, _direction.what = ("a card code (e.g. QH)", "a rank (2-9 T J Q K A)",
                                                       "a suit (S H D C)", "CW or CCW")


def _message(reader: Reader, kind: str, seen: set[str]) -> Message:
    name = reader.str("name")
    if not name.isidentifier() or name in seen:
        raise reader.fail("name", f"{name!r} must be a name (letters, digits, _) used once")
    seen.add(name)
    event = reader.str("event", choices=KIND_EVENTS[kind])
    text = reader.str("pattern")
    if len(text) > 500:
        raise reader.fail("pattern", "longer than 500 characters")
    try:
        pattern = re.compile(text)
    except re.error as exc:
        raise reader.fail("pattern", f"{text!r} is not a regular expression: {exc}") from None
    groups = set(pattern.groupindex)
    if not any(set(need) <= groups for need in NEEDS[event]):
        want = " or ".join("+".join(f"(?P<{g}>...)" for g in need) for need in NEEDS[event])
        raise reader.fail("pattern", f"{text!r}: a {event} line needs the named group(s) {want}")
    fmt = None
    if reader.has("format"):
        try:
            fmt = Template(reader.str("format"))
        except TemplateError as exc:
            raise reader.fail("format", str(exc)) from None
    severity = reader.str("severity", "E", choices=SEVERITIES) if event == "fault" else "E"
    bare = reader.bool("bare", False)
    window = _seconds(reader, "duplicate_window", None, lo=0.001) if reader.has("duplicate_window") else None
    message = Message(
        name, pattern, event, fmt, severity,
        cards=_mapping(reader, "cards", _card) if event == "card" else {},
        ranks=_mapping(reader, "ranks", _rank) if event == "card" else {},
        suits=_mapping(reader, "suits", _suit) if event == "card" else {},
        directions=_mapping(reader, "directions", _direction) if event in ("spin", "spin_started") else {},
        spinning_state=_choices(reader, "spinning_state") if event == "spin" else (),
        result_state=_choices(reader, "result_state") if event == "spin" else (),
        waiting_state=_choices(reader, "waiting_state") if event == "spin" else (),
        bare=bare, duplicate_window=window,
    )
    if event == "spin" and "state" in groups and not message.result_state:
        raise reader.fail("result_state", f"missing: {text!r} has a state group, so say which states show a result")
    if event == "card" and "code" in groups and not message.cards:
        raise reader.fail("cards", "missing: a card line with a code needs the table of codes to cards")
    reader.reject_unknown()
    return message


def _command(reader: Reader, name: str, fields: tuple[str, ...]) -> Command:
    def template(key: str) -> Template:
        try:
            t = Template(reader.str(key), fields)
            t.render(SAMPLES)
            return t
        except TemplateError as exc:
            raise reader.fail(key, str(exc)) from None

    send = template("send")
    expect = template("expect") if reader.has("expect") else None
    refused = None
    if reader.has("refused"):
        text = reader.str("refused")
        try:
            refused = re.compile(text)
        except re.error as exc:
            raise reader.fail("refused", f"{text!r} is not a regular expression: {exc}") from None
    timeout = _seconds(reader, "timeout", 1.0, lo=0.01)
    reader.reject_unknown()
    return Command(name, send, expect, refused, timeout)  # type: ignore[arg-type]


def parse_spec(kind: str, reader: Reader) -> LineSpec:
    """The line protocol of a ``[devices.<kind>]`` table (keys read: see the module doc)."""
    if kind not in KIND_EVENTS:
        raise reader.fail(None, f"the line backend has no {kind} (it offers: {', '.join(KIND_EVENTS)})")
    fmt = _format(reader)
    items = reader.list("messages")
    if not items or len(items) > MAX_MESSAGES:
        raise reader.fail("messages", f"give 1 to {MAX_MESSAGES} messages ([[devices.{kind}.messages]])")
    seen: set[str] = set()
    messages = tuple(_message(Reader(item, f"{reader.at('messages')}[{i}]", file=reader.file, error=reader.error),
                              kind, seen) for i, item in enumerate(items))
    commands: dict[str, Command] = {}
    if reader.has("commands"):
        sub = reader.sub("commands")
        for name in sub.data:
            if name not in KIND_COMMANDS[kind]:
                raise sub.fail(name, f"a {kind} takes no {name!r} command (commands: {', '.join(KIND_COMMANDS[kind])})")
            commands[name] = _command(sub.sub(name), name, KIND_COMMANDS[kind][name])
        sub.reject_unknown()
    poll_interval = _seconds(reader, "poll_interval", None, lo=MIN_POLL)
    if poll_interval is not None and "poll" not in commands:
        raise reader.fail("poll_interval", "needs a [commands.poll] to send")
    poll_misses = reader.int("poll_misses", 3, lo=1, hi=100)
    status_interval = _seconds(reader, "status_interval", None, lo=0.01)
    resync = reader.bool("resync", True)
    emulate_faults = _choices(reader, "emulate_faults")
    if any(m.bare for m in messages) and not fmt.start:
        raise reader.fail("messages", "a message is bare (no start character), but the lines have no start to "
                          "leave out: drop bare, or give start")
    turns = _turns(reader, kind, messages)
    faults = _fault_map(reader, kind, messages)
    spec = LineSpec(kind, fmt, messages, commands, poll_interval, poll_misses, turns, faults, status_interval,
                    resync, emulate_faults)
    if emulate_faults:
        from drivers.lineproto.emulator import check_faults

        try:
            check_faults(emulate_faults)
        except ValueError as exc:
            raise reader.fail("emulate_faults", str(exc)) from None
    return spec


def _groups(messages: tuple[Message, ...], *events: str) -> set[str]:
    return set().union(*(m.groups() for m in messages if m.event in events)) if messages else set()


def _turns(reader: Reader, kind: str, messages: tuple[Message, ...]) -> TurnsSpec:
    """``[turns]`` of a wheel: where its turns come from, checked against what its lines carry."""
    spin = _groups(messages, "spin")
    if kind != "wheel":
        if reader.has("turns"):
            raise reader.fail("turns", f"a {kind} has no turns (only a wheel)")
        return TurnsSpec()
    sub = reader.sub("turns", {})
    source = sub.str("source", "field", choices=SOURCES)
    unit = sub.decimal("speed_unit", Decimal(1)) if sub.has("speed_unit") else Decimal(1)
    if not unit.is_finite() or unit <= 0:
        raise sub.fail("speed_unit", f"{unit} must be more than 0 (rpm per unit of the speed field)")
    error = sub.decimal("error", Decimal(0)) if sub.has("error") else Decimal(0)
    if not error.is_finite() or not 0 <= error < 100:
        raise sub.fail("error", f"{error} is not a number of turns 0 to 100")
    no_state = _choices(sub, "no_spin_state")
    flags_text = sub.str("no_spin_flags", "")
    no_flags = flag_bits(flags_text.removeprefix("0x").removeprefix("0X")) if flags_text else 0
    if no_flags is None:
        raise sub.fail("no_spin_flags", f"{flags_text!r} is not a hex bit mask (e.g. \"0x0010\")")
    need = {"field": ("turns", "a (?P<turns>...) group on a spin line"),
            "rotor_speed": ("speed", "a (?P<speed>...) group on a spin line"),
            "controller": ("segment", "a spin line")}.get(source)
    if need is not None and need[0] not in spin:
        raise sub.fail("source", f"{source!r} needs {need[1]}, which no message has")
    if source == "revolutions" and not any(m.event == "revolution" for m in messages):
        raise sub.fail("source", "'revolutions' needs a message with event = \"revolution\" (a line per pass of "
                       "the index mark), which none is")
    if source == "rotor_speed" and not any("state" in m.groups() and m.spinning_state for m in messages
                                           if m.event == "spin"):
        raise sub.fail("source", "'rotor_speed' needs a spin line with a (?P<state>...) group and its "
                       "spinning_state, to know when the wheel turns")
    if no_state and not any("state" in m.groups() for m in messages if m.event == "spin"):
        raise sub.fail("no_spin_state", "needs a spin line with a (?P<state>...) group")
    if no_flags and "flags" not in spin:
        raise sub.fail("no_spin_flags", "needs a spin line with a (?P<flags>...) group")
    if source == "controller" and not (no_state or no_flags):
        raise sub.fail("source", "'controller' needs no_spin_state or no_spin_flags: how the controller says "
                       "\"no spin\"")
    sub.reject_unknown()
    return TurnsSpec(source, unit, error, no_state, no_flags)


def _mapped(reader: Reader, key: str) -> MappedFault:
    sub = reader.sub(key)
    code = sub.int("code", lo=100, hi=999)
    severity = sub.str("severity", "E", choices=SEVERITIES)
    text = sub.str("text")
    if not text.strip() or len(text) > 200:
        raise sub.fail("text", "must say what the fault is (1 to 200 characters)")
    sub.reject_unknown()
    return MappedFault(code, severity, text)


def _fault_map(reader: Reader, kind: str, messages: tuple[Message, ...]) -> FaultMap:
    """``[fault_codes]`` and ``[fault_flags]``: the device's codes and bits as the table's faults."""
    codes: dict[str, MappedFault] = {}
    if reader.has("fault_codes"):
        sub = reader.sub("fault_codes")
        takers = [m for m in messages if m.event in ("fault", "fault_cleared")]
        for raw in sub.data:
            if not any(group_takes(m.pattern, "code", raw) for m in takers):
                raise sub.fail(raw, f"no fault line's (?P<code>...) group captures {raw!r}")
            codes[raw] = _mapped(sub, raw)
    flags: dict[int, MappedFault] = {}
    if reader.has("fault_flags"):
        sub = reader.sub("fault_flags")
        if not any("flags" in m.groups() for m in messages):
            raise reader.fail("fault_flags", "no message has a (?P<flags>...) group to read the bits from")
        for raw in sub.data:
            bit = flag_bits(raw.removeprefix("0x").removeprefix("0X"))
            if bit is None or bit & (bit - 1) or not bit:
                raise sub.fail(raw, f"{raw!r} is not one bit in hex (e.g. \"0x04\")")
            flags[bit] = _mapped(sub, raw)
    return FaultMap(codes, flags)


def line_settings(kind: str, reader: Reader) -> dict[str, Any]:
    """A line device's constructor arguments from its settings (``backend`` removed)."""
    out: dict[str, Any] = {}
    if reader.has("name"):
        out["name"] = reader.str("name")
    out["url"] = reader.str("url")
    if not out["url"].strip():
        raise reader.fail("url", "must name a port (e.g. /dev/ttyUSB0 or socket://192.168.1.20:4001)")
    baudrate = reader.int("baudrate", 9600)
    if baudrate not in BAUDRATES:
        raise reader.fail("baudrate", f"{baudrate} is not one of {', '.join(map(str, BAUDRATES))}")
    out["baudrate"] = baudrate
    out["spec"] = parse_spec(kind, reader)
    out["reconnect_interval"] = _seconds(reader, "reconnect", 1.0, lo=0.05)
    out["identify_timeout"] = _seconds(reader, "identify", 2.0, lo=0.05)
    reader.reject_unknown()
    return out
