"""Linux input events of a keyboard, decoded into typed codes.

The kernel hands each event of an input device as a ``struct input_event``:
a ``timeval`` (two longs), ``type`` and ``code`` (unsigned 16 bits) and
``value`` (signed 32 bits), in the machine's own byte order: ``struct``
format ``llHHi`` (24 bytes on a 64-bit machine). They are read directly
here rather than through the ``evdev`` package: that package is a compiled
extension built against the kernel's headers, and the reader needs only
this structure and one ioctl (``EVIOCGRAB``), while reading the structure
itself lets the same code read recorded events from a pipe in the tests.

A key event is ``type`` 1 (``EV_KEY``), ``code`` the key, ``value`` 1 when
pressed, 0 released, 2 repeated (a repeat types nothing: readers send each
key once). Shift (left or right) held makes the next keys upper case; Enter
(either) ends a code. Synchronisation and scan-code events say nothing here.
"""

from __future__ import annotations

import struct

EVENT = struct.Struct("llHHi")
EV_KEY = 1
KEY_ENTER, KEY_KPENTER = 28, 96
SHIFTS = frozenset({42, 54})  # KEY_LEFTSHIFT, KEY_RIGHTSHIFT
EVIOCGRAB = 0x40044590  # _IOW('E', 0x90, int): take the device from every other reader (the console)


def _row(first: int, chars: str, shifted: str) -> dict[int, tuple[str, str]]:
    return {first + i: (c, s) for i, (c, s) in enumerate(zip(chars, shifted))}


#: key code -> (character, with shift): the US layout's letters, digits, keypad digits and a few signs
US: dict[int, tuple[str, str]] = {
    **_row(2, "1234567890-=", "!@#$%^&*()_+"),
    **_row(16, "qwertyuiop", "QWERTYUIOP"),
    **_row(30, "asdfghjkl", "ASDFGHJKL"),
    **_row(44, "zxcvbnm,./", "ZXCVBNM<>?"),
    57: (" ", " "),
    **{k: (d, d) for k, d in zip((71, 72, 73, 75, 76, 77, 79, 80, 81, 82), "7894561230")},
}
KEYMAPS = {"us": US}
#: (character) -> (key code, shifted): how an emulated reader types
KEY_OF: dict[str, tuple[int, bool]] = {}
for _code, (_plain, _shifted) in sorted(US.items(), reverse=True):  # the main row's digits win over the keypad's
    KEY_OF.setdefault(_plain, (_code, False))
    KEY_OF.setdefault(_shifted, (_code, True))


class KeyDecoder:
    """Input events (bytes, any cut) in, typed codes out (one per Enter)."""

    def __init__(self, keymap: dict[int, tuple[str, str]] = US, max_length: int = 64) -> None:
        self.keymap, self.max_length = keymap, max_length
        self._rest = b""
        self._shift: set[int] = set()
        self._typed: list[str] = []

    def feed(self, data: bytes) -> list[str]:
        data = self._rest + data
        whole = len(data) - len(data) % EVENT.size
        self._rest = data[whole:]
        codes = []
        for _sec, _usec, kind, key, value in EVENT.iter_unpack(data[:whole]):
            if kind != EV_KEY:
                continue
            if key in SHIFTS:
                (self._shift.add if value else self._shift.discard)(key)
            elif value != 1:
                continue  # a release or an auto-repeat
            elif key in (KEY_ENTER, KEY_KPENTER):
                code, self._typed = "".join(self._typed), []
                if code:
                    codes.append(code)
            elif key in self.keymap and len(self._typed) < self.max_length:
                self._typed.append(self.keymap[key][1 if self._shift else 0])
        return codes


def typed(code: str, when: float = 0.0) -> bytes:
    """The events of a keyboard typing ``code`` then Enter (what a reader sends)."""
    sec, usec = int(when), int((when % 1) * 1_000_000)
    out = []

    def key(k: int, value: int) -> None:
        out.append(EVENT.pack(sec, usec, EV_KEY, k, value))
        out.append(EVENT.pack(sec, usec, 0, 0, 0))  # EV_SYN: the report's end

    for char in code:
        k, shifted = KEY_OF[char]
        if shifted:
            key(42, 1)
        key(k, 1)
        key(k, 0)
        if shifted:
            key(42, 0)
    key(KEY_ENTER, 1)
    key(KEY_ENTER, 0)
    return b"".join(out)
