"""Electronic draw display (ADDR 03) over TDL/1: ``SHW``/``CLR``/``HST`` in,
``DSA`` (the read-back) and faults out.

``SHW|round-id|draw-id|upper|lower`` sends each set as its numbers written
together (``3456``; numbers above 9 separated by commas). The display reads
back what it shows as ``DSA|draw-id|upper/lower``. The driver turns that
into ``DrawShown(draw_id, shown)``, where ``shown`` is the number of the
combination read back: the draw itself when it matches, the number of the
combination it matches otherwise (from the ``draws`` table given to the
driver or learnt from earlier shows), 0 when it matches none. A mismatch
also puts fault 402 in ``health`` until the display is cleared (``CLR``)
or reads back a draw correctly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from drivers.base import DrawDisplay
from drivers.events import DISPLAY_READBACK, DeviceEvent, DrawShown
from drivers.tdl import DeviceAddr, Frame
from drivers.serial import parse
from drivers.serial.link_device import Handler, LinkDevice


def set_text(numbers: Iterable[int]) -> str:
    values = [int(n) for n in numbers]
    if any(not 0 <= n for n in values):
        raise ValueError(f"draw numbers must not be negative: {values}")
    if all(n <= 9 for n in values):
        return "".join(str(n) for n in values)
    return ",".join(str(n) for n in values)


def draw_text(upper: Sequence[int], lower: Sequence[int]) -> str:
    """What the display reads back for a draw: ``upper/lower``."""
    return f"{set_text(upper)}/{set_text(lower)}"


class SerialDisplay(LinkDevice, DrawDisplay):
    ADDR = DeviceAddr.DISPLAY

    def __init__(
        self,
        url: str | None = None,
        *,
        draws: Mapping[int, tuple[Sequence[int], Sequence[int]]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(url, **kwargs)
        self._combos: dict[str, int] = {draw_text(u, l): n for n, (u, l) in (draws or {}).items()}
        self._sent: dict[str, tuple[int, str]] = {}  # draw id -> (draw number, text sent)
        self._read: dict[str, str] = {}  # draw id -> last read-back delivered
        self.showing: tuple[str, int] | None = None

    def device_handlers(self) -> dict[str, Handler]:
        return {"DSA": self._on_dsa}

    def learn_draws(self, draws: Mapping[int, tuple[Sequence[int], Sequence[int]]]) -> None:
        with self._lock:
            self._combos.update({draw_text(u, l): n for n, (u, l) in draws.items()})

    # -- commands -----------------------------------------------------------------

    def show(self, round_id: str, draw_id: str, draw: int, upper: tuple[int, ...], lower: tuple[int, ...]) -> None:
        text = draw_text(upper, lower)
        with self._lock:
            self._sent[draw_id] = (draw, text)
            self._combos.setdefault(text, draw)
            self._read.pop(draw_id, None)
        self._command("SHW", round_id, draw_id, set_text(upper), set_text(lower))

    def clear(self) -> None:
        if self._command("CLR"):
            with self._lock:
                self.showing = None
                self.health.faults.pop(DISPLAY_READBACK, None)

    def show_history(self, history: Iterable[int]) -> None:
        """``HST``: the display's history board (the last draws' numbers)."""
        self._command("HST", ",".join(str(int(n)) for n in history))

    # -- device messages ------------------------------------------------------------

    def _on_dsa(self, frame: Frame) -> list[DeviceEvent]:
        draw_id, shown = parse.fields(frame, 2)
        upper, slash, lower = shown.partition("/")
        if not slash or not all(part and all(c.isdigit() or c == "," for c in part) for part in (upper, lower)):
            raise parse.fmt(f"read-back {shown!r} is not upper/lower")
        sent = self._sent.get(draw_id)
        if sent is None:
            raise parse.sta(f"read-back of draw {draw_id!r}, which was never shown")
        if self._read.get(draw_id) == shown:
            return []  # delivered already
        self._read[draw_id] = shown
        draw, text = sent
        if shown == text:
            self.health.faults.pop(DISPLAY_READBACK, None)
            self.showing = (draw_id, draw)
            return [DrawShown(draw_id, draw, device=self.name)]
        number = self._combos.get(shown, 0)
        self.health.faults[DISPLAY_READBACK] = f"draw {draw_id}: the display reads back {shown}, {text} was sent"
        self.showing = (draw_id, number)
        self._log.warning("read-back mismatch", draw_id=draw_id, sent=text, shown=shown)
        return [DrawShown(draw_id, number, device=self.name)]
