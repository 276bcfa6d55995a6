"""The fast, checked transitions agree with the transitions library's own
``may_<trigger>`` for every state and trigger of every game, and the mermaid
diagram shows exactly the declared transitions."""

from __future__ import annotations

import pytest

from tablesim.engine.machine import RoundMachine
from tablesim.games.football.table import FootballTable
from tablesim.games.fortune3.table import Fortune3Table
from tablesim.games.wheel.table import WheelTable


class _Model:
    pass


@pytest.mark.parametrize("table_cls", [Fortune3Table, FootballTable, WheelTable], ids=lambda c: c.game)
def test_lookup_agrees_with_transitions_everywhere(table_cls):
    model = _Model()
    machine = RoundMachine(model, table_cls.States, table_cls.STEPS, table_cls.INITIAL)
    triggers = {step.trigger for step in table_cls.STEPS}
    for state in table_cls.States:
        machine.machine.set_state(state, model=model)
        for trigger in triggers:
            assert machine.allowed(trigger) == getattr(model, f"may_{trigger}")(), (state, trigger)
            if machine.allowed(trigger):
                getattr(model, trigger)()  # the library's own trigger
                expected = model.state
                machine.machine.set_state(state, model=model)
                machine.fire(trigger)  # ours
                assert model.state is expected
                machine.machine.set_state(state, model=model)


@pytest.mark.parametrize("table_cls", [Fortune3Table, FootballTable, WheelTable], ids=lambda c: c.game)
def test_diagram_lists_every_declared_transition(table_cls):
    text = table_cls.diagram()
    assert text.startswith("stateDiagram-v2\n")
    edges = {line.strip() for line in text.splitlines()[1:]}
    for step in table_cls.STEPS:
        for src in step.sources:
            assert f"{src.value} --> {step.dest.value}: {step.trigger}" in edges
