"""The round procedure, declared as data and run by a ``transitions`` machine.

A game declares its states (an Enum) and two tables that read like the
regulation's article:

- ``Step`` rows, the state changes: ``start_dealing: bets_closed -> dealing,
  before: seat the boxes, after: arm the shoe``. Each is a transition of a
  ``transitions.Machine``; its ``before``/``after`` callbacks are the table's
  methods named in the row. Every state change of a round is one of these
  triggers, fired through the machine.
- ``Rule`` rows, the table's public actions: in which states each is
  allowed and what the refusal says elsewhere. The checks that must pass
  besides are the table's plain methods (its ``CHECKS``: action -> methods,
  each taking the action's own arguments and raising ``Refused`` with the
  reason); the rule asks them in order. The table refuses an action with
  exactly that reason, and ``can``/``refusal`` ask the same rule, catching
  the refusal, so the console never repeats it.

The machine runs transitions' own triggers with a lean ``Event``: a round's
machine uses no queue, no ``send_event``, no ``prepare``/``finalize``
hooks, so the trigger does just what the library's would (conditions,
before, exit, the state change, enter, after) without building an
``EventData`` and a ``partial`` each time (18 µs a trigger here, against
about 1.5 µs). ``tests/engine/test_engine_machine_agreement.py`` runs every
game's machine against the stock library, callback by callback.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from tablecore.errors import IllegalAction
from transitions import Machine, MachineError
from transitions.core import Event

from tablecore.wording import CORE_WORDS, Said, fill

States = Sequence[enum.Enum] | enum.Enum


def _tuple(value: States | str | None) -> tuple:
    if value is None:
        return ()
    if isinstance(value, (enum.Enum, str)):
        return (value,)
    return tuple(value)


@dataclass(frozen=True)
class Step:
    """A state change: ``trigger`` moves the round from one of ``sources`` to
    ``dest``; ``before``/``after`` name the table's methods run around it."""

    trigger: str
    sources: tuple[enum.Enum, ...]
    dest: enum.Enum
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()


def step(trigger: str, sources: States, dest: enum.Enum, *, before: str | Sequence[str] = (),
         after: str | Sequence[str] = ()) -> Step:
    return Step(trigger, _tuple(sources), dest, _tuple(before), _tuple(after))


def steps(rows: Iterable[Step | tuple[str, States, enum.Enum]]) -> tuple[Step, ...]:
    return tuple(r if isinstance(r, Step) else step(*r) for r in rows)


#: the refusal of an action in a state not its own
NOT_ALLOWED = CORE_WORDS("refusal.not_allowed")

@dataclass(frozen=True)
class Rule:
    """When the table's public action ``action`` is allowed.

    ``verb`` names it in refusals (``"deal refused: ..."``). ``states``: the
    states it is allowed in (empty: any), either listed or as the sources of
    the step ``trigger`` it fires. ``refused``: the reason in any other state
    (``{state}`` is the round's state); ``refused_in`` overrides it for
    particular states. The table's ``CHECKS`` for the action are asked after.
    ``fires``: the action only fires ``trigger`` (close betting, deal...):
    its input record; the table's action is made from the rule.
    """

    action: str
    verb: str
    states: tuple[enum.Enum, ...] = ()
    refused: str = NOT_ALLOWED
    refused_in: Mapping[enum.Enum, str] = field(default_factory=dict)
    trigger: str | None = None
    #: the action does nothing but fire ``trigger``: its input record, and
    #: the table gets the action from the rule (no method to write)
    fires: type | None = None


def rule(action: str, verb: str, *, states: States | None = None, trigger: str | None = None,
         refused: str = NOT_ALLOWED,
         refused_in: Mapping[enum.Enum, str] | None = None, fires: type | None = None) -> Rule:
    if fires is not None and trigger is None:
        raise ValueError(f"rule {action!r}: an action that only fires a trigger names the trigger")
    return Rule(action, verb, _tuple(states), refused, dict(refused_in or {}), trigger, fires)


class Refused(Exception):
    """A check's refusal of an action, with the reason the refusal gives."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


#: a check: a table method taking the action's arguments, raising ``Refused``
Check = Callable[..., None]


@dataclass(frozen=True)
class Procedure:
    """A game's round: its states, its steps and its rules."""

    states: type[enum.Enum]
    initial: enum.Enum
    finals: tuple[enum.Enum, ...]
    steps: tuple[Step, ...]
    rules: tuple[Rule, ...] = ()

    def extended(self, rules: Iterable[Rule]) -> "Procedure":
        """The same procedure with more rules; a rule for an action already
        ruled replaces it (a game tightening the engine's default)."""
        mine = {r.action for r in self.rules}
        kept = tuple(r for r in rules if r.action not in mine)
        return Procedure(self.states, self.initial, self.finals, self.steps, kept + self.rules)

    @property
    def between_rounds(self) -> tuple[enum.Enum, ...]:
        """The states no round is under way in: before the first, after one ended."""
        return (self.initial, *self.finals)

    @property
    def opening(self) -> str:
        """The trigger that starts a round (the one ``open_round`` fires)."""
        for r in self.rules:
            if r.action == "open_round" and r.trigger is not None:
                return r.trigger
        raise LookupError("the procedure has no rule for open_round")

    def sources(self, trigger: str) -> tuple[enum.Enum, ...]:
        for s in self.steps:
            if s.trigger == trigger:
                return s.sources
        raise KeyError(f"no step {trigger!r}")

    def allowed_states(self, r: Rule) -> tuple[enum.Enum, ...]:
        # Tuples, not sets: an Enum member hashes in Python, a tuple looks it up by identity.
        if r.states:
            return r.states
        if r.trigger is not None:
            return self.sources(r.trigger)
        return ()


class _LeanEvent(Event):
    """transitions' ``Event`` without the per-trigger ``EventData``/queue
    machinery a round's machine never uses (see the module docstring). Its
    transitions are looked up by the state itself (compiled on first use:
    a round's machine does not change once built)."""

    _compiled: dict | None = None

    def _compile(self) -> dict:
        states = self.machine.states
        compiled = {}
        for source_name, transitions in self.transitions.items():
            source = states[source_name]
            compiled[source.value] = [
                (tuple(t.conditions), tuple(t.before), tuple(source.on_exit), states[t.dest].value,
                 tuple(states[t.dest].on_enter), tuple(t.after))
                for t in transitions
            ]
        self._compiled = compiled
        return compiled

    def trigger(self, model: Any, *args: Any, **kwargs: Any) -> bool:
        source = model.state
        candidates = (self._compiled or self._compile()).get(source)
        if candidates is None:
            raise MachineError(f"Can't trigger event {self.name} from state {source.name}!")
        for conditions, before, on_exit, dest, on_enter, after in candidates:
            if conditions and any(bool(c.func(*args, **kwargs)) != c.target for c in conditions):
                continue
            for fn in before:
                fn(*args, **kwargs)
            for fn in on_exit:
                fn(*args, **kwargs)
            model.state = dest
            self.machine.on_change(self.name, source, dest)
            for fn in on_enter:
                fn(*args, **kwargs)
            for fn in after:
                fn(*args, **kwargs)
            return True
        return False


class _LeanMachine(Machine):
    event_cls = _LeanEvent

    def __init__(self, *args: Any, on_change: Callable[[str, enum.Enum, enum.Enum], None], **kwargs: Any) -> None:
        self.on_change = on_change
        super().__init__(*args, **kwargs)


class _Model:
    """The machine's model: a plain holder of the state and the triggers, so
    trigger names never collide with the table's own methods."""

    state: enum.Enum


class RoundMachine:
    """One table's machine: ``transitions`` over a ``Procedure``, the table's
    methods as callbacks, refusals with reasons."""

    def __init__(self, table: Any, procedure: Procedure, on_change: Callable[[str, enum.Enum, enum.Enum], None],
                 *, checks: Mapping[str, Sequence[Check]] | None = None, records: Mapping[str, type] | None = None,
                 lean: bool = True) -> None:
        self.procedure = procedure
        self.model = _Model()
        self.machine = build_machine(self.model, procedure, table, on_change, lean=lean)
        #: the triggers, bound once: ``machine.fire["settle"]()``
        self.fire: dict[str, Callable[..., bool]] = {s.trigger: getattr(self.model, s.trigger) for s in procedure.steps}
        self._sources = {s.trigger: s.sources for s in procedure.steps}
        #: each ruled action's rule, bound to this table with its checks
        checks, records = checks or {}, records or {}
        self.rules = {r.action: _BoundRule(r, procedure, table, tuple(checks.get(r.action, ())), records.get(r.action))
                      for r in procedure.rules}
        for bound in self.rules.values():
            bound.model = self.model

    @property
    def state(self) -> enum.Enum:
        return self.model.state

    def allowed(self, trigger: str) -> bool:
        """Whether ``trigger`` may fire in the current state."""
        return self.model.state in self._sources[trigger]

    def ruled(self, action: str) -> bool:
        return action in self.rules

    def refusal(self, action: str, args: tuple = (), kwargs: Mapping[str, Any] | None = None) -> str | None:
        """Why ``action`` would be refused now (None: allowed). Checks that
        need arguments not given are skipped (``can("decide")`` asks whether
        any decision may be taken now)."""
        bound = self.rules.get(action)
        if bound is None:
            return None
        return bound.refusal(args, kwargs or {})

    def verb(self, action: str) -> str:
        bound = self.rules.get(action)
        return bound.rule.verb if bound is not None else action.replace("_", " ")


class _BoundRule:
    """A rule with its checks, bound to one table."""

    __slots__ = ("rule", "verb", "states", "refused", "refused_in", "checks", "record", "table", "model")

    def __init__(self, r: Rule, procedure: Procedure, table: Any, checks: tuple[Check, ...],
                 record: type | None) -> None:
        self.rule = r
        self.verb = r.verb
        self.states = procedure.allowed_states(r)
        self.refused = r.refused
        self.refused_in = r.refused_in
        self.checks = checks
        #: the action's input record: whether the arguments asked about are complete
        self.record = record
        self.table = table
        self.model: Any = None  # the machine's model, once built (the state lives there)

    def _state_refusal(self) -> str | None:
        state = self.model.state
        if self.states and state not in self.states:
            words = self.refused_in.get(state, self.refused)
            # a refusal worded with a message id keeps it (a page shows it in its language)
            if isinstance(words, Said):
                return Said(fill(words, {"state": state.value}), words.msg_id, **{**words.params, "state": state.value})
            return words.format(state=state.value)
        return None

    def enforce(self, table: Any, args: tuple, kwargs: Mapping[str, Any]) -> None:
        """Refuse the action now (``IllegalAction``), or let it run."""
        state = self.model.state
        if self.states and state not in self.states:
            raise IllegalAction(self.verb, self._state_refusal())
        try:
            for check in self.checks:
                check(table, *args, **kwargs)
        except Refused as exc:
            raise IllegalAction(self.verb, exc.reason) from None

    def refusal(self, args: tuple, kwargs: Mapping[str, Any]) -> str | None:
        """Why the action would be refused now (None: allowed). Asked without
        all its arguments (``can("decide")``: may any decision be taken
        now?), the checks that need the missing ones are left out."""
        why = self._state_refusal()
        if why is not None or not self.checks:
            return why
        complete = True
        if self.record is not None:
            try:
                self.record(*args, **kwargs)
            except TypeError:
                complete = False
        for check in self.checks:
            try:
                check(self.table, *args, **kwargs)
            except Refused as exc:
                return exc.reason
            except TypeError:
                if complete:
                    raise
                # (asked without the arguments this check needs)
        return None


def build_machine(model: Any, procedure: Procedure, table: Any,
                  on_change: Callable[[str, enum.Enum, enum.Enum], None], *, lean: bool = True) -> Machine:
    """The ``transitions`` machine of ``procedure`` over ``model``, with the
    table's methods as callbacks. ``lean=False`` builds the stock library
    machine (the agreement test compares the two)."""

    def resolve(names: tuple[str, ...]) -> list[Callable]:
        return [getattr(table, n) for n in names]

    transitions = [
        {"trigger": s.trigger, "source": list(s.sources), "dest": s.dest,
         "before": resolve(s.before), "after": resolve(s.after)}
        for s in procedure.steps
    ]
    options = dict(model=model, states=procedure.states, transitions=transitions, initial=procedure.initial,
                   auto_transitions=False, ignore_invalid_triggers=False, queued=False, send_event=False)
    if lean:
        return _LeanMachine(on_change=on_change, **options)

    # The stock library machine has no change hook: the agreement test
    # compares the two with the hook aside.
    return Machine(**options)


def mermaid(procedure: Procedure) -> str:
    """The machine as a mermaid state diagram (no graphviz needed)."""
    lines = ["stateDiagram-v2", f"    [*] --> {procedure.initial.value}"]
    for s in procedure.steps:
        for src in s.sources:
            lines.append(f"    {src.value} --> {s.dest.value}: {s.trigger}")
    for final in procedure.finals:
        lines.append(f"    {final.value} --> [*]")
    return "\n".join(lines) + "\n"
