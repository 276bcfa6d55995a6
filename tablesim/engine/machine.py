"""Round state machines declared as data and built with ``transitions``.

A game declares its states (an Enum) and a transition table of
``(trigger, sources, dest)`` rows. One machine is built per table (building
is the slow part of ``transitions``); the table object is its model. Every
trigger goes through ``fire``, which asks ``may_<trigger>`` first, so an
illegal action is refused with a reason and changes nothing.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from transitions import Machine

from tablesim.errors import IllegalAction


@dataclass(frozen=True)
class Step:
    trigger: str
    sources: tuple[enum.Enum, ...]
    dest: enum.Enum


def steps(rows: Iterable[tuple[str, enum.Enum | Sequence[enum.Enum], enum.Enum]]) -> tuple[Step, ...]:
    out = []
    for trigger, sources, dest in rows:
        if isinstance(sources, enum.Enum):
            sources = (sources,)
        out.append(Step(trigger, tuple(sources), dest))
    return tuple(out)


def build_machine(model: Any, states: type[enum.Enum], table: Sequence[Step], initial: enum.Enum) -> Machine:
    return Machine(
        model=model,
        states=states,
        transitions=[
            {"trigger": s.trigger, "source": list(s.sources), "dest": s.dest} for s in table
        ],
        initial=initial,
        auto_transitions=False,
        ignore_invalid_triggers=False,
    )


def fire(model: Any, trigger: str, why_not: str | None = None) -> None:
    """Run ``trigger`` on ``model`` or refuse it, naming the current state."""
    if not getattr(model, f"may_{trigger}")():
        state = model.state.value if isinstance(model.state, enum.Enum) else model.state
        raise IllegalAction(trigger.replace("_", " "), why_not or f"not allowed while the round is {state}")
    getattr(model, trigger)()


def mermaid(states: type[enum.Enum], table: Sequence[Step], initial: enum.Enum, finals: Sequence[enum.Enum] = ()) -> str:
    """The machine as a mermaid state diagram (no graphviz needed)."""
    lines = ["stateDiagram-v2", f"    [*] --> {initial.value}"]
    for step in table:
        for src in step.sources:
            lines.append(f"    {src.value} --> {step.dest.value}: {step.trigger}")
    for final in finals:
        lines.append(f"    {final.value} --> [*]")
    return "\n".join(lines) + "\n"
