"""What a line device's traffic says about the device itself: a line full of
garbage now and then is logged and forgotten, but many in a row is a device
(or a cable) in trouble, and more lines than any device writes is a flood.
Each becomes a named fault of the device, raised once and cleared when its
window holds fewer again; neither ever becomes a card or a result.

- 103 ``line noise``: more than :data:`NOISE_LIMIT` malformed lines within
  :data:`NOISE_WINDOW` seconds (a bad cable, a wrong baud rate, a device
  babbling);
- 104 ``line flood``: more than :data:`FLOOD_LIMIT` lines within
  :data:`FLOOD_WINDOW` second (a stuck device repeating itself).
"""

from __future__ import annotations

from collections import deque

LINE_NOISE, LINE_FLOOD = 103, 104
NOISE_LIMIT, NOISE_WINDOW = 5, 10.0
FLOOD_LIMIT, FLOOD_WINDOW = 200, 1.0


class LineWatch:
    def __init__(self) -> None:
        self._bad: deque[float] = deque()
        self._all: deque[float] = deque()
        self.raised: set[int] = set()

    def line(self, now: float, malformed: bool) -> tuple[list[tuple[int, str]], list[int]]:
        """One line heard at ``now``: (faults to raise as (code, text), codes to clear)."""
        self._all.append(now)
        if malformed:
            self._bad.append(now)
        for times, window in ((self._bad, NOISE_WINDOW), (self._all, FLOOD_WINDOW)):
            while times and now - times[0] > window:
                times.popleft()
        raise_, clear = [], []
        for code, count, limit, text in (
                (LINE_NOISE, len(self._bad), NOISE_LIMIT,
                 f"line noise: {len(self._bad)} malformed lines within {NOISE_WINDOW:g} s (cable, baud rate?)"),
                (LINE_FLOOD, len(self._all), FLOOD_LIMIT,
                 f"line flood: {len(self._all)} lines within {FLOOD_WINDOW:g} s (a device repeating itself?)")):
            if count > limit and code not in self.raised:
                self.raised.add(code)
                raise_.append((code, text))
            elif count <= limit and code in self.raised:
                self.raised.discard(code)
                clear.append(code)
        return raise_, clear
