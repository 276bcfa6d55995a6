"""Every game's round machine, run with the lean trigger the tables use,
agrees with the stock ``transitions`` library: for every state and every
trigger, the same refusal (``MachineError``), the same destination, and the
same callbacks in the same order. The mermaid diagram shows exactly the
declared transitions."""

from __future__ import annotations

import enum

import pytest
from transitions import MachineError

from tablesim.engine.machine import build_machine
from tablesim.games.football.table import FootballTable
from tablesim.games.fortune3.table import Fortune3Table
from tablesim.games.wheel.table import WheelTable

TABLES = [Fortune3Table, FootballTable, WheelTable]


class _Recorder:
    """Stands in for the table: every callback a step names records its name."""

    def __init__(self, procedure) -> None:
        self.calls: list[str] = []
        for s in procedure.steps:
            for name in (*s.before, *s.after):
                setattr(self, name, lambda *a, _n=name, **k: self.calls.append(_n))


class _Model:
    state: enum.Enum


def _run(procedure, state, trigger, lean):
    recorder = _Recorder(procedure)
    model = _Model()
    changes: list[tuple] = []
    build_machine(model, procedure, recorder, lambda *c: changes.append(c), lean=lean)
    model.state = state  # where the case starts (the model is a plain holder)
    try:
        fired = getattr(model, trigger)()
    except MachineError:
        return ("refused", state, recorder.calls, changes)
    return (fired, model.state, recorder.calls, changes)


@pytest.mark.parametrize("table_cls", TABLES, ids=lambda c: c.game)
def test_lean_trigger_agrees_with_the_library_everywhere(table_cls):
    procedure = table_cls.PROCEDURE
    for state in procedure.states:
        for s in procedure.steps:
            lean = _run(procedure, state, s.trigger, lean=True)
            stock = _run(procedure, state, s.trigger, lean=False)
            assert lean[:3] == stock[:3], (state, s.trigger)
            allowed = state in s.sources
            assert (lean[0] != "refused") == allowed, (state, s.trigger)
            if allowed:
                assert lean[1] is s.dest
                assert lean[2] == [*s.before, *s.after]
                assert lean[3] == [(s.trigger, state, s.dest)]  # the change is announced once


@pytest.mark.parametrize("table_cls", TABLES, ids=lambda c: c.game)
def test_diagram_lists_every_declared_transition(table_cls):
    text = table_cls.diagram()
    assert text.startswith("stateDiagram-v2\n")
    edges = {line.strip() for line in text.splitlines()[1:]}
    for step in table_cls.STEPS:
        for src in step.sources:
            assert f"{src.value} --> {step.dest.value}: {step.trigger}" in edges
