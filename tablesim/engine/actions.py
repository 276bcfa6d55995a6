"""The table's public actions: refused by the round's rules, journaled once.

A method decorated with ``@action(...)`` is one of the table's public
actions. Calling it from outside the table:

1. refuses it, before anything changes, while the table is paused or a
   blocking incident holds the round (unless the action is one that must
   stay possible then: pause, resume, void, resolving the incident, device
   reports), and when the round's rule for it (``engine/machine.py``) names a
   reason;
2. with a journal attached, runs it as one journal transaction whose first
   record is the action as an input (``journal_input``), so the action and
   every outcome commit together or not at all.

An action called from inside another (a void after a fault, a device report
taken while an action polls) is the outer action's outcome: it is checked
by its rule but not journaled again, except a device report, which is
journaled as a *nested* input so that a replay hands it back at the same
point. Which action is which is declared where it is defined; nothing here
depends on an action's name.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from tablecore.errors import IllegalAction

if TYPE_CHECKING:
    from tablesim.engine.table import GameTable

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True, slots=True)
class ActionSpec:
    """What the engine needs to know about one public action."""

    name: str
    #: who the journal names as having done it when the caller names nobody:
    #: "dealer", "player", or "device" (the reporting device's name)
    actor: str = "dealer"
    #: the action opens a round: journaled under that round's id, drawn
    #: (peeked, not used up) before the action runs
    opens_round: bool = False
    #: allowed while the table is paused or a blocking incident holds it
    always: bool = False


def action(*, actor: str = "dealer", opens_round: bool = False, always: bool = False,
           name: str | None = None) -> Callable[[F], F]:
    """Declare a method one of the table's public actions (see the module);
    ``name``: the action's name when it is not the method's."""

    def decorate(fn: F) -> F:
        spec = ActionSpec(name or fn.__name__, actor, opens_round, always)

        aname, opens, free = spec.name, spec.opens_round, spec.always
        verb = aname.replace("_", " ")

        @functools.wraps(fn)
        def run(self: "GameTable", *args: Any, **kwargs: Any) -> Any:
            if self._acting:
                return _nested(self, spec, fn, args, kwargs)
            if opens and not args and kwargs.get("round_id") is None:
                # Peek, don't draw: a refused opening must not use up an id.
                kwargs["round_id"] = self.peek_round_id()
            if not free and (self.paused or self.incident is not None and self.incident.blocking) and not self.replaying:
                raise IllegalAction(verb, self.refusal_for(spec, args, kwargs))
            bound = self.rules.get(aname)
            if bound is not None:
                why = bound.refusal(self.machine.model.state, args, kwargs)
                if why is not None:
                    raise IllegalAction(bound.rule.verb, why)
            self._acting = True
            try:
                journal = self.journal
                if journal is None or self.replaying:
                    return fn(self, *args, **kwargs)
                with journal.transaction():
                    rid = kwargs["round_id"] if opens else self.round_id
                    self.journal_input(spec, rid, args, kwargs, nested=False)
                    return fn(self, *args, **kwargs)
            finally:
                self._acting = False

        run.__action__ = spec  # type: ignore[attr-defined]
        return run  # type: ignore[return-value]

    return decorate


def _nested(table: "GameTable", spec: ActionSpec, fn: Callable, args: tuple, kwargs: dict) -> Any:
    """An action taken inside another: the outer action's transaction holds it."""
    if spec.actor == "device" and table.journal is not None and not table.replaying:
        table.journal_input(spec, table.round_id, args, kwargs, nested=True)
    why = table.machine.refusal(spec.name, args, kwargs)
    if why is not None:
        raise IllegalAction(table.machine.verb(spec.name), why)
    return fn(table, *args, **kwargs)


def spec_of(cls: type, name: str) -> ActionSpec | None:
    return getattr(getattr(cls, name, None), "__action__", None)


def actions_of(cls: type) -> dict[str, ActionSpec]:
    """Every public action of a table class, by name."""
    out = {}
    for name in dir(cls):
        spec = spec_of(cls, name)
        if spec is not None:
            out[name] = spec
    return out
