"""Options of ``tablesim run`` (and a replay of one) shared by every game."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class RunOptions:
    game: str | None
    rounds: int = 10
    seed: int | None = None
    profile: str | None = None
    #: the game's own options as given (``--dealing``, ``--decks``): name -> value, only those given
    options: dict[str, Any] = field(default_factory=dict)
    quiet: bool = False
    delay: float = 0.0  # seconds between rounds, for a watchable demo
    journal: str | None = None  # path | "none" | "memory" | None = the table's default
    studio: str | None = None  # nats://HOST:PORT: publish the journal to the studio (tablesim.studio)
    table_id: str | None = None  # --table-id: a mock or emulated table under an id of its own
    key_file: Any = None  # the journal chain's key (a table configuration's [table] key_file); None: the default
    json: bool = False  # --json: one JSON object at the end (the rounds and the summary), nothing else on stdout
    metrics_port: int | None = None  # --metrics-port: the table's Prometheus metrics on 127.0.0.1:PORT/metrics
