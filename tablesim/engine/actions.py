"""The table's public actions: refused by the round's rules, journaled once.

A method decorated with ``@action(Record)`` is one of the table's public
actions; ``Record`` is its input record (``inputs.py``), whose fields are
the method's parameters. Calling it from outside the table, or handing the
table its record (``table.act(record)``):

1. refuses it, before anything changes, while the table is paused or a
   blocking incident holds the round (unless the action is one that must
   stay possible then: pause, resume, void, resolving the incident, device
   reports), and when the round's rule for it (``engine/machine.py``: its
   states, and the table's checks) refuses it;
2. with a journal attached, runs it as one journal transaction whose first
   record is its input record, so the action and every outcome commit
   together or not at all.

An action called from inside another (a void after a fault, a device report
taken while an action polls) is the outer action's outcome: it is checked
by its rule but not journaled again, except a device report, which is
journaled as a *nested* input so that a replay hands it back at the same
point. Which action is which is declared where it is defined; nothing here
depends on an action's name.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from tablecore.errors import IllegalAction
from tablesim.engine.inputs import TableInput
from tablesim.engine.machine import Refused

if TYPE_CHECKING:
    from tablesim.engine.table import GameTable

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True, slots=True)
class ActionSpec:
    """What the engine needs to know about one public action."""

    name: str
    #: its input record (the method's parameters as fields)
    record: type[TableInput]
    #: who the journal names as having done it when the caller names nobody:
    #: "dealer", "player", or "device" (the reporting device's name)
    actor: str = "dealer"
    #: the action opens a round: journaled under that round's id, drawn
    #: (peeked, not used up) before the action runs
    opens_round: bool = False
    #: allowed while the table is paused or a blocking incident holds it
    always: bool = False
    #: the method itself (undecorated), and the public action (decorated)
    body: Callable[..., Any] | None = None
    run: Callable[..., Any] | None = None


def action(record: type[TableInput], *, actor: str = "dealer", opens_round: bool = False, always: bool = False,
           name: str | None = None) -> Callable[[F], F]:
    """Declare a method one of the table's public actions, taking ``record``
    (see the module); ``name``: the action's name when it is not the method's."""

    def decorate(fn: F) -> F:
        aname = name or fn.__name__
        opens, free = opens_round, always
        verb = aname.replace("_", " ")

        @functools.wraps(fn)
        def run(self: "GameTable", *args: Any, _record: TableInput | None = None, **kwargs: Any) -> Any:
            # ``_record``: the input record, when the action was handed one (``table.act``)
            given = _record
            if self._acting:
                return _nested(self, spec, fn, args, kwargs, given)
            if opens and not args and kwargs.get("round_id") is None:
                # Peek, don't draw: a refused opening must not use up an id.
                kwargs["round_id"] = self.peek_round_id()
                if given is not None:
                    given = replace(given, round_id=kwargs["round_id"])
            if not free and not self.replaying:
                held = self.hold_refusal()  # (the one place the paused/blocked refusal is worded)
                if held is not None:
                    raise IllegalAction(verb, held)
            bound = self.rules.get(aname)
            if bound is not None:
                bound.enforce(self, args, kwargs)
            self._acting = True
            try:
                journal = self.journal
                if journal is None or self.replaying or (self.batching and aname in self.BATCHED):
                    # (a bet of a group: its group's one record holds it, written by the intake)
                    return fn(self, *args, **kwargs)
                with journal.transaction():
                    rid = kwargs["round_id"] if opens else self.round_id
                    self.journal_input(spec, rid, given if given is not None else record(*args, **kwargs),
                                       nested=False)
                    return fn(self, *args, **kwargs)
            finally:
                self._acting = False

        spec = ActionSpec(aname, record, actor, opens_round, always, fn, run)
        run.__action__ = spec  # type: ignore[attr-defined]
        return run  # type: ignore[return-value]

    return decorate


def _nested(table: "GameTable", spec: ActionSpec, fn: Callable, args: tuple, kwargs: dict,
            record: TableInput | None) -> Any:
    """An action taken inside another: the outer action's transaction holds it."""
    if spec.actor == "device" and table.journal is not None and not table.replaying:
        table.journal_input(spec, table.round_id, record if record is not None else spec.record(*args, **kwargs),
                            nested=True)
    bound = table.rules.get(spec.name)
    if bound is not None:
        bound.enforce(table, args, kwargs)
    return fn(table, *args, **kwargs)


def in_a_row(table: "GameTable", name: str) -> Callable[..., Any]:
    """Action ``name`` for calls one after another on the table's thread, nothing else
    in between, of an action that changes neither the pause, the incident nor the
    round's state, and whose calls the table journals apart (``BATCHED``, while a group
    is placed: the intake's bets). What those calls cannot change is asked once here
    (the pause, a blocking incident, the round's state: a tenth of a bet's cost when
    asked each time); each call runs the rule's checks and the action. When any of
    them refuses, or the table is not placing a group, this is the action itself,
    which refuses (or journals) each call as it always does."""
    spec = table.action_specs[name]
    bound = table.rules.get(name)
    if table._acting or table.replaying or not (table.batching and name in table.BATCHED) \
            or (not spec.always and table.hold_refusal() is not None) \
            or (bound is not None and bound._state_refusal() is not None):
        return getattr(table, name)
    body = spec.body
    if bound is None:
        checks, verb = (), name.replace("_", " ")
    else:
        checks, verb = bound.checks, bound.verb

    def run(*args: Any) -> Any:
        try:
            for check in checks:
                check(table, *args)
        except Refused as exc:
            raise IllegalAction(verb, exc.reason) from None
        table._acting = True
        try:
            return body(table, *args)
        finally:
            table._acting = False

    return run


def actions_of(cls: type) -> dict[str, ActionSpec]:
    """Every public action of a table class, by name (a subclass's own
    definition of an action replacing its base's)."""
    out: dict[str, ActionSpec] = {}
    for klass in reversed(cls.__mro__):
        for value in vars(klass).values():
            spec = getattr(value, "__action__", None)
            if isinstance(spec, ActionSpec):
                out[spec.name] = spec
    return out
