"""Link timing shared by the serial drivers and the emulators.

The defaults are the protocol's (docs/protocol.md, "Timing, resends, link
down"); tests and the bench scale them down with :meth:`LinkTiming.fast`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any


@dataclass(frozen=True)
class LinkTiming:
    ack_timeout: float = 0.2
    max_resends: int = 3
    heartbeat_interval: float | None = 1.0
    heartbeat_misses: int = 3
    max_gap: float = 0.1
    read_poll: float = 0.05

    def session_kwargs(self) -> dict[str, Any]:
        """The keyword arguments of ``LinkSession`` these values set."""
        return asdict(self)

    @classmethod
    def fast(cls, **changes: Any) -> "LinkTiming":
        """Scaled down for tests: 50 ms answers, 100 ms heartbeats."""
        base = cls(ack_timeout=0.05, heartbeat_interval=0.1, max_gap=0.05, read_poll=0.01)
        return replace(base, **changes)

    def with_(self, **changes: Any) -> "LinkTiming":
        return replace(self, **changes)
