"""Option types shared by the commands: numbers that must be finite and
bounded, so ``nan``/``inf`` or an absurd count is refused as one line before
anything starts (click's ``FloatRange`` lets ``nan`` and ``inf`` through)."""

from __future__ import annotations

import math

import click

#: ``run`` plays rounds one after another on one table: a million is days of play.
RUN_ROUNDS_MAX = 1_000_000
#: ``simulate`` spreads rounds over processes: a billion is hours on many cores.
SIMULATE_ROUNDS_MAX = 1_000_000_000


class FiniteFloat(click.ParamType):
    """A float within [low, high]; NaN and the infinities are refused."""

    name = "number"

    def __init__(self, low: float | None = None, high: float | None = None) -> None:
        self.low = low
        self.high = high

    def convert(self, value, param, ctx):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            number = float(value)
        else:
            try:
                number = float(str(value).strip())
            except ValueError:
                self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        if self.low is not None and number < self.low:
            self.fail(f"{value!r} is below {self.low:g}", param, ctx)
        if self.high is not None and number > self.high:
            self.fail(f"{value!r} is above {self.high:g}", param, ctx)
        return number

    def __repr__(self) -> str:
        return f"FiniteFloat({self.low}, {self.high})"


def _urls_joined(ctx, param, values: tuple[str, ...]) -> str | None:
    return ",".join(values) if values else None


def nats_option(*decls: str, **kwargs):
    """A NATS URL option: a comma-separated list of a cluster's nodes, and
    repeatable (``--nats A --nats B`` is ``--nats A,B``), handed on as one
    comma-separated text (None when not given), checked where it is used.
    A plain option would keep only the last of a repeated one: the cluster
    a command was given would silently be one node."""
    kwargs.setdefault("metavar", "nats://HOST:PORT[,...]")
    return click.option(*decls, multiple=True, callback=_urls_joined, **kwargs)
