"""Playing script files: parse every round first, then play them in order."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablesim.engine.result import RoundResult
from tablecore.errors import InputError
from tablesim.games import registry
from tablesim.harness.scripting.expect import mismatches, normalise_keys
from tablesim.harness.scripting.yamlload import load_yaml
from tablecore.validate import Reader


@dataclass
class PlayedRound:
    file: str
    number: int
    name: str | None
    result: RoundResult
    expect: dict[str, Any] | None
    failures: list[tuple[str, Any, Any]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        out = {"file": self.file, "round": self.number}
        out.update(self.result.as_json())
        return out


def run_file(path: str | Path) -> list[PlayedRound]:
    """Play every round of one file. Raises InputError for an invalid file."""
    path = str(path)
    top = Reader(load_yaml(path), file=path, error=InputError)
    game = top.str("game")
    spec = registry.spec(game, where=top.locate(top.at("game")))
    table = top.sub("table", {})
    session = spec.part("script")(table)
    table.reject_unknown()
    raw_rounds = top.list("rounds")
    top.reject_unknown()
    if not raw_rounds:
        raise top.fail("rounds", "no rounds to play")
    parsed = []
    for number, raw in enumerate(raw_rounds, 1):
        reader = Reader(raw, file=f"{path}: round {number}", error=InputError)
        name = reader.raw("name", None)
        expect = reader.raw("expect", None)
        if expect is not None and not isinstance(expect, dict):
            raise reader.fail("expect", "expected a mapping of expected results")
        spec = session.parse_round(reader)
        reader.reject_unknown()
        parsed.append((number, None if name is None else str(name), spec, expect))
    played = []
    for number, name, spec, expect in parsed:
        try:
            result = session.play(spec)
        except InputError as exc:
            raise exc.located(f"{path}: round {number}") from None
        item = PlayedRound(path, number, name, result, normalise_keys(expect) if expect else None)
        if item.expect:
            item.failures = mismatches(item.expect, item.as_json())
        played.append(item)
    return played
