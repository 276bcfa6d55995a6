"""Where a wheel's turns come from, and how a spin's turns are measured.

A wheel's spin lines name the segment; the full turns of the spin (Art.
4(3) of the wheel's regulation asks for three) come from one of four
sources, chosen by ``[devices.wheel.turns] source``:

- ``field``: a ``{turns}`` group on the spin line (the controller counts);
- ``revolutions``: ``revolution`` lines (one per pass of an index mark),
  counted between the spin's start and its result. N passes are between
  N - 1 and N + 1 full turns (the first pass may come just after the start
  or just before a whole turn), so the count is reported with an error of 1;
- ``rotor_speed``: a ``{speed}`` group (rpm, times ``speed_unit``) sampled
  on each status line, integrated over time from the last sample at rest
  before the motion states to the first sample of the result (trapezoids).
  Between two samples the speed is taken as monotone (a wheel's speed
  changes smoothly), so the true integral lies between the lower and the
  upper sums: the error reported is half their difference plus half the
  speed's resolution over the spin's time;
- ``controller``: the controller judges the spin itself; a state in
  ``no_spin_state`` or a bit of ``no_spin_flags`` set on the result says
  "no spin", any other result counts (reported as the profile's minimum).

With any source, ``no_spin_state`` and ``no_spin_flags`` may say "no spin"
too. The driver reports turns (or no spin); the game applies the rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_HALF_EVEN, Decimal

SOURCES = ("field", "revolutions", "rotor_speed", "controller")
CENT = Decimal("0.01")


@dataclass(frozen=True)
class TurnsSpec:
    source: str = "field"
    speed_unit: Decimal = Decimal(1)  # rpm per unit of the {speed} group
    error: Decimal = Decimal(0)  # field: the controller's own stated error
    no_spin_state: tuple[str, ...] = ()
    no_spin_flags: int = 0


def flag_bits(text: str) -> int | None:
    """A hex field of flags as an int (None: not hex)."""
    text = text.strip()
    if not text or len(text) > 8 or any(c not in "0123456789abcdefABCDEF" for c in text):
        return None
    return int(text, 16)


@dataclass
class SpeedIntegral:
    """Rotor speed samples of one spin, (seconds, rpm), turned into turns and their error."""

    unit: Decimal
    samples: list[tuple[Decimal, Decimal]]

    def result(self) -> tuple[Decimal, Decimal]:
        turns = lower = Decimal(0)
        for (t0, v0), (t1, v1) in zip(self.samples, self.samples[1:]):
            dt = max(t1 - t0, Decimal(0))
            turns += (v0 + v1) / 2 * dt
            lower += min(v0, v1) * dt
        span = self.samples[-1][0] - self.samples[0][0] if len(self.samples) > 1 else Decimal(0)
        error = (turns - lower) + self.unit / 2 * span
        # rpm x seconds / 60 = turns; the count is rounded, its error never rounded down
        return ((turns / 60).quantize(CENT, rounding=ROUND_HALF_EVEN),
                (error / 60).quantize(CENT, rounding=ROUND_CEILING))
