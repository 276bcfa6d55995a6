"""Options of ``tablesim run`` shared by every game."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RunOptions:
    game: str
    rounds: int = 10
    seed: int | None = None
    profile: str | None = None
    dealing: str | None = None  # fortune3: shoe | shuffler
    decks: int | None = None  # football: 1..8
    quiet: bool = False
    delay: float = 0.0  # seconds between rounds, for a watchable demo
    journal: str | None = None  # path | "none" | "memory" | None = the table's default
    studio: str | None = None  # nats://HOST:PORT: publish the journal to the studio (tablesim.studio)
