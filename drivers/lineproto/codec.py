"""Lines on the wire: framing, checksums and templates.

A line is ``[start] payload [separator checksum] terminator``: the payload
is printable ASCII, the checksum (``drivers.lineproto.checksum``) covers the
payload and is written as uppercase hex. :class:`LineDecoder` cuts a byte
stream into payloads and says why a line is malformed (never guessing at
it); :meth:`LineFormat.encode` writes one. A :class:`Template` is a line
with ``{name}`` fields (``{{`` and ``}}`` for braces), what the host sends
and what an emulator writes.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from drivers.lineproto.checksum import NONE, Checksum


@dataclass(frozen=True)
class BadLine:
    """A line that cannot be taken, and why (logged, never an event)."""

    reason: str
    raw: bytes


@dataclass(frozen=True)
class LineFormat:
    terminator: bytes = b"\r\n"
    start: bytes = b""
    checksum: Checksum = NONE
    separator: bytes = b""  # between the payload and its checksum
    max_length: int = 256  # the longest line, start to terminator

    def encode(self, payload: str) -> bytes:
        body = payload.encode("ascii")
        return self.start + body + (self.separator + self.checksum.text(body) if self.checksum.digits else b"") \
            + self.terminator

    def check(self, raw: bytes) -> str | BadLine:
        """The payload of one line (without its terminator), or why it is malformed."""
        if self.start:
            at = raw.rfind(self.start)
            if at < 0:
                return BadLine(f"no start character {self.start!r}", raw)
            raw = raw[at + len(self.start):]
        return self.check_body(raw)

    def check_body(self, raw: bytes, *, checksum: bool = True) -> str | BadLine:
        """The payload of a line after its start character, or why it is malformed."""
        if any(b < 0x20 or b > 0x7E for b in raw):
            return BadLine("not printable ASCII", raw)
        body = raw
        if self.checksum.digits and checksum:
            tail = len(self.separator) + self.checksum.digits
            if len(raw) < tail or raw[len(raw) - tail:len(raw) - self.checksum.digits] != self.separator:
                return BadLine(f"no {self.checksum.name} checksum", raw)
            body, given = raw[:-tail], raw[-self.checksum.digits:]
            if given.upper() != given or given != self.checksum.text(body):
                return BadLine(f"{self.checksum.name} checksum {given.decode('ascii')!r} does not match", raw)
        return body.decode("ascii")


@dataclass(frozen=True)
class Frame:
    """One well-formed frame found in a line: its payload, the noise before it, and
    whether it came without the start character (a bare message's line)."""

    payload: str
    noise: bytes = b""
    bare: bool = False


def frames(fmt: LineFormat, raw: bytes, *, bare: bool = False, resync: bool = True) -> list[Frame] | BadLine:
    """The well-formed frames a line may be, the earliest first (so the first one
    a message matches wins, and what comes before it is noise); or why none is.

    With a start character, a frame begins after any of its occurrences (with
    ``resync``; else after the last, as a device that restarts its line does),
    and with ``bare`` the whole line may also be a frame without one. Without
    a start character, with ``resync``, every tail of the line is a candidate:
    stray bytes glued before a frame are skipped to reach it."""
    out: list[Frame] = []
    first_bad: BadLine | None = None
    if fmt.start:
        at = [i for i in range(len(raw)) if raw.startswith(fmt.start, i)]
        if at and not resync:
            at = at[-1:]
        starts = [(i, i + len(fmt.start), False) for i in at]
        if bare and not at:
            starts.insert(0, (0, 0, True))
        if not starts:
            return BadLine(f"no start character {fmt.start!r}", raw)
    else:
        starts = [(i, i, False) for i in (range(len(raw)) if resync else (0,))]
    for skip, begin, is_bare in starts:
        body = fmt.check_body(raw[begin:], checksum=not is_bare)
        if isinstance(body, BadLine):
            first_bad = first_bad or body
            continue
        if body:
            out.append(Frame(body, raw[:skip], is_bare))
    return out or first_bad or BadLine("empty", raw)


class LineDecoder:
    """Cuts a byte stream into lines: payloads (``str``) or :class:`BadLine`."""

    def __init__(self, fmt: LineFormat, *, raw: bool = False) -> None:
        self.fmt = fmt
        self.raw = raw  # hand out each line's bytes (the host's driver finds its frames itself)
        self._buf = bytearray()
        self._overlong = False  # dropping the rest of a line that was too long

    def feed(self, data: bytes) -> list[Any]:
        self._buf += data
        out: list[str | BadLine] = []
        term = self.fmt.terminator
        while True:
            at = self._buf.find(term)
            if at < 0:
                if len(self._buf) > self.fmt.max_length:
                    if not self._overlong:
                        out.append(BadLine(f"longer than {self.fmt.max_length} bytes", bytes(self._buf[:64])))
                    self._overlong = True
                    del self._buf[: len(self._buf) - len(term)]  # keep what may start the terminator
                return out
            raw = bytes(self._buf[:at])
            del self._buf[: at + len(term)]
            if self._overlong:
                self._overlong = False
                continue
            if len(raw) + len(term) > self.fmt.max_length:
                out.append(BadLine(f"longer than {self.fmt.max_length} bytes", raw[:64]))
                continue
            if not raw.strip(b"\r\n"):
                continue  # an empty line (a device's blank keep-alive) says nothing
            out.append(raw if self.raw else self.fmt.check(raw))


class TemplateError(ValueError):
    pass


class Template:
    """``text`` with ``{name}`` (or ``{name:spec}``) fields."""

    def __init__(self, text: str, allowed: Iterable[str] | None = None) -> None:
        self.text = text
        self.names: list[str] = []
        pattern = []
        try:
            parts = list(string.Formatter().parse(text))
        except ValueError as exc:
            raise TemplateError(f"{text!r}: {exc}") from None
        for literal, name, spec, conversion in parts:
            pattern.append(re.escape(literal))
            if name is None:
                continue
            if not name.isidentifier() or conversion:
                raise TemplateError(f"{text!r}: field {{{name}}} must be a plain name")
            if allowed is not None and name not in allowed:
                raise TemplateError(f"{text!r}: unknown field {{{name}}} (fields: {', '.join(allowed) or 'none'})")
            group = f"(?P={name})" if name in self.names else f"(?P<{name}>.*?)"
            self.names.append(name)
            pattern.append(group)
        if not all(0x20 <= ord(c) <= 0x7E for c in text):
            raise TemplateError(f"{text!r}: only printable ASCII")
        self.regex = re.compile("".join(pattern), re.DOTALL)

    def render(self, values: Mapping[str, Any]) -> str:
        try:
            return self.text.format_map({k: values[k] for k in set(self.names)})
        except (KeyError, ValueError, TypeError) as exc:
            raise TemplateError(f"{self.text!r}: cannot fill in {exc}") from None

    def match(self, line: str) -> dict[str, str] | None:
        """The fields of a line written from this template (an emulator reading a command)."""
        m = self.regex.fullmatch(line)
        return m.groupdict() if m else None

    def __repr__(self) -> str:
        return f"Template({self.text!r})"


def group_takes(pattern: re.Pattern[str], group: str, text: str) -> bool:
    """Whether the named ``group`` of ``pattern`` can be ``text`` (its sub-pattern, tried alone)."""
    source = pattern.pattern
    start = source.find(f"(?P<{group}>")
    if start < 0:
        return False
    depth, i = 0, start
    while i < len(source):
        c = source[i]
        if c == "\\":
            i += 2
            continue
        depth += c == "("
        depth -= c == ")"
        if depth == 0:
            break
        i += 1
    try:
        return re.fullmatch(source[start:i + 1], text) is not None
    except re.error:
        return False
