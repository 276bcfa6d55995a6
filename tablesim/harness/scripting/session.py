"""What a game provides to play scripted rounds."""

from __future__ import annotations

from typing import Any, Protocol

from tablesim.engine.result import RoundResult
from tablecore.validate import Reader


class ScriptSession(Protocol):
    """One table of a game, fed by mock devices from a script file."""

    def parse_round(self, reader: Reader) -> Any:
        """Read and statically validate one round (all but name/expect)."""

    def play(self, spec: Any) -> RoundResult:
        """Play a parsed round; raises InputError (with a field path) when the
        script is impossible at play time (too few cards, cards unused)."""
