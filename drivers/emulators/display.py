"""Electronic draw display emulator (ADDR 03): show a draw, read it back.

``SHW|round-id|draw-id|upper|lower`` puts the draw on the display;
``show_time`` device seconds later the display reads back what it shows:
``DSA|draw-id|upper/lower``. ``CLR`` blanks it, ``HST`` sets the history
board.

Faults: ``readback[@show=N]`` (the display shows, and reads back, another
combination: the sets swapped), ``segment[@show=N]`` (``FLT|401|E``
instead of a read-back; cleared by ``RST``), ``power@show=N`` and the link
faults.
"""

from __future__ import annotations

from typing import Any

from drivers.events import DISPLAY_SEGMENT
from drivers.emulators.base import Emulator
from drivers.tdl import DeviceAddr, Frame, NakReason
from drivers.serial import parse

SHOW_TIME = 0.3


def _check_set(text: str, what: str) -> str:
    if not text or not all(c.isdigit() or c == "," for c in text):
        raise parse.fmt(f"{what} {text!r} is not a set of numbers")
    return text


class DisplayEmulator(Emulator):
    KIND = "display"
    ADDR = DeviceAddr.DISPLAY
    MODEL = "TDL-DISPLAY-EMU"

    def __init__(self, *, show_time: float = SHOW_TIME, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.show_time = show_time
        self.state = "BLANK"
        self.showing: tuple[str, str] | None = None  # (draw id, upper/lower) on the display
        self.history = ""

    def device_handlers(self) -> dict:
        return {"SHW": self._on_shw, "CLR": self._on_clr, "HST": self._on_hst}

    def status_fields(self) -> tuple[str, ...]:
        return (self.showing[1] if self.showing else "",)

    def _on_shw(self, frame: Frame) -> NakReason | None:
        _round_id, draw_id, upper, lower = parse.fields(frame, 4)
        _check_set(upper, "upper")
        _check_set(lower, "lower")
        if DISPLAY_SEGMENT in self.active_faults:
            raise parse.sta("the display has a segment fault")
        self.state = "SHOWING"
        self.after(self.show_time, lambda: self._read_back(draw_id, upper, lower))
        return None

    def _on_clr(self, frame: Frame) -> NakReason | None:
        parse.fields(frame, 0)
        self.showing = None
        self.state = "BLANK"
        return None

    def _on_hst(self, frame: Frame) -> NakReason | None:
        (self.history,) = parse.fields(frame, 1)
        return None

    def reset(self) -> None:
        self.showing = None
        self.state = "BLANK"

    def on_power_loss(self) -> None:
        self.reset()

    def _read_back(self, draw_id: str, upper: str, lower: str) -> None:
        self.count["show"] += 1
        n = self.count["show"]
        if self.plan.take("segment", "show", n) is not None:
            self._log.info("fault: segment", show=n)
            self.showing = None
            self.state = "FAULT"
            self.raise_fault(DISPLAY_SEGMENT, "E", "display segment fault")
            return
        shown = f"{upper}/{lower}"
        if self.plan.take("readback", "show", n) is not None:
            wrong = f"{lower}/{upper}" if lower != upper else f"{upper[1:]}{upper[:1]}/{lower}"
            self._log.info("fault: read-back mismatch", show=n, sent=shown, shown=wrong)
            shown = wrong
        self.showing = (draw_id, shown)
        self.emit("DSA", draw_id, shown, counter="show")
