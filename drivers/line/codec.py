"""Lines on the wire: framing, checksums and templates.

A line is ``[start] payload [separator checksum] terminator``: the payload
is printable ASCII, the checksum (``drivers.line.checksum``) covers the
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

from drivers.line.checksum import NONE, Checksum


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
        if any(b < 0x20 or b > 0x7E for b in raw):
            return BadLine("not printable ASCII", raw)
        body = raw
        if self.checksum.digits:
            tail = len(self.separator) + self.checksum.digits
            if len(raw) < tail or raw[len(raw) - tail:len(raw) - self.checksum.digits] != self.separator:
                return BadLine(f"no {self.checksum.name} checksum", raw)
            body, given = raw[:-tail], raw[-self.checksum.digits:]
            if given.upper() != given or given != self.checksum.text(body):
                return BadLine(f"{self.checksum.name} checksum {given.decode('ascii')!r} does not match", raw)
        return body.decode("ascii")


class LineDecoder:
    """Cuts a byte stream into lines: payloads (``str``) or :class:`BadLine`."""

    def __init__(self, fmt: LineFormat) -> None:
        self.fmt = fmt
        self._buf = bytearray()
        self._overlong = False  # dropping the rest of a line that was too long

    def feed(self, data: bytes) -> list[str | BadLine]:
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
            out.append(self.fmt.check(raw))


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
