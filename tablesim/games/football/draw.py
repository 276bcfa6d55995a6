"""Where the host's draw comes from (Art. 3, 6(1)).

Production draws come from ``secrets`` (the operating system's CSPRNG). A
seeded draw (reproducible mock sessions) or a scripted draw (scripted
rounds) is allowed only in mock or script mode, and every draw event says
which source made it.
"""

from __future__ import annotations

import random
import secrets
from typing import Sequence

from tablecore.errors import ConfigError


class DrawSource:
    kind: str = ""
    secure: bool = False

    def draw(self, indices: Sequence[int]) -> int:
        raise NotImplementedError


class SecureDraw(DrawSource):
    """Each combination with equal chance, from a cryptographically secure source."""

    kind = "secrets"
    secure = True

    def draw(self, indices: Sequence[int]) -> int:
        return indices[secrets.randbelow(len(indices))]


class SeededDraw(DrawSource):
    """A reproducible draw for mock sessions: never in production."""

    kind = "seeded"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def draw(self, indices: Sequence[int]) -> int:
        return self.rng.choice(list(indices))


class ScriptedDraw(DrawSource):
    """The draw a script names for its next round."""

    kind = "script"

    def __init__(self) -> None:
        self.next: int | None = None

    def draw(self, indices: Sequence[int]) -> int:
        if self.next is None or self.next not in indices:
            raise ConfigError(f"the script gives no valid draw (draws are {indices[0]}-{indices[-1]})")
        value, self.next = self.next, None
        return value


MODES = ("live", "mock", "script")


def check_source(source: DrawSource, mode: str) -> None:
    """Refuse a non-secure draw outside mock and script mode."""
    if mode not in MODES:
        raise ConfigError(f"unknown table mode {mode!r} (modes: {', '.join(MODES)})")
    if mode == "live" and not source.secure:
        raise ConfigError(f"a {source.kind} draw is allowed only in mock or script mode, not on a live table")
