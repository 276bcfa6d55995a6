"""An emulator of a line-protocol device, built from the same configuration
as its driver.

It plays the device on any line the TDL/1 emulators use (a pty or a TCP
connection, :class:`drivers.emulators.server.EmulatorServer`): it reads the
host's lines, recognises each command by its ``send`` template, answers
with its ``expect`` text, and writes the device's own lines with each
message's ``format``:

- shoe: once armed, a seeded dealer draws a card every ``card_interval``
  device seconds up to the arming's ``max_cards``;
- wheel: once armed, the dealer spins (``spin_delay`` later); a polled
  wheel answers each poll with its status line (turning, then at rest with
  the result and its spin counter moved on), an unpolled one writes the
  result once;
- display: a shown draw is read back ``show_time`` later.

A device without an ``arm`` command cannot be told that betting closed: the
dealer watches the table instead, so its emulator is cued by the driver
(:meth:`cue`, which ``tablesim run --config FILE --emulated`` connects).
A poll sooner than 100 ms after the last is not answered (``early_polls``
counts them), as the slowest such controllers do.

A wheel whose turns come from revolution lines writes one per pass of its
index mark while it turns; one whose turns come from its rotor speed writes
the speed (in device rpm, so as fast in real time as ``time_scale`` makes
it) on each status line; a device with ``status_interval`` writes its status
by itself that often; after a result it writes its bare messages (the
winning number for passive displays). The spin counter wraps after 256.

Faults: ``noise@line=N`` (the N-th device line goes out with a character
damaged into DEL, which no line may hold), ``silent@after=S`` (no line after S device seconds),
``repeat@every=N`` (every N-th line is written twice, as shoes that resend do),
``stray@every=N`` (every N-th line comes with stray bytes glued before it),
``nospin@spin=N`` (a wheel whose controller judges the spin calls its N-th
spin "no spin", by its state or flag). A
device's own ``emulate_faults`` are its emulator's from the start.
"""

from __future__ import annotations

import heapq
import itertools
import random
import secrets
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable
from decimal import Decimal
from typing import Any

import structlog

from drivers.lineproto.codec import LineDecoder, Template, group_takes
from drivers.lineproto.spec import MIN_POLL, LineSpec, Message
from tablecore.cards import DECK, RANK_CHAR, Card

log = structlog.get_logger(__name__)

FIRST_CARD, CARD_INTERVAL = 1.5, 0.8
SPIN_DELAY, SPIN_TIME = 3.0, 6.0
SHOW_TIME = 0.3
FAULT_KINDS = ("noise", "silent", "repeat", "stray", "nospin")
FAULT_FORMS = (("noise", "line"), ("silent", "after"), ("repeat", "every"), ("stray", "every"), ("nospin", "spin"))
SPEED_SPIN_TIME = 12.0  # device seconds a wheel timed by its rotor speed turns (slower: a wheel's own pace)
COUNTER_WRAP = 256
MIN_SPEED_SCALE = 0.02  # the spin counter goes 1 ... 256, 1 ...


class _Plan:
    def __init__(self, specs: Iterable[str]) -> None:
        self.specs = list(specs)
        for spec in self.specs:
            kind, at, value = spec.partition("@")
            key, eq, number = value.partition("=")
            if kind not in FAULT_KINDS or not eq or (kind, key) not in FAULT_FORMS:
                raise ValueError(f"fault {spec!r}: line emulators take noise@line=N, silent@after=S, "
                                 "repeat@every=N, stray@every=N and nospin@spin=N")
            if float(number) <= 0 and key == "every":
                raise ValueError(f"fault {spec!r}: every takes a count of 1 or more")

    def every(self, kind: str, n: int) -> bool:
        """A periodic fault (never used up): is the n-th line one of its?"""
        for spec in self.specs:
            k, _, rest = spec.partition("@")
            name, _, number = rest.partition("=")
            if k == kind and name == "every" and n % max(1, int(float(number))) == 0:
                return True
        return False

    def take(self, kind: str, key: str, n: float) -> bool:
        for spec in self.specs:
            k, _, rest = spec.partition("@")
            name, _, number = rest.partition("=")
            if k == kind and name == key and float(number) <= n:
                self.specs.remove(spec)
                return True
        return False


class LineEmulator:
    def __init__(self, spec: LineSpec, *, seed: int | None = None, time_scale: float = 1.0, decks: int = 1,
                 segments: int = 52, faults: Iterable[str] = (), name: str | None = None,
                 every: float | None = None, **_: Any) -> None:
        self.spec, self.KIND = spec, spec.kind
        self.seed = seed if seed is not None else secrets.randbelow(2**32)
        self.rng = random.Random(self.seed)
        # a wheel timed by its rotor speed never runs faster than 50 times: its speeds are integrated
        # over the real time between its lines, which must hold more than the threads' jitter
        if spec.turns.source == "rotor_speed":
            time_scale = max(time_scale, MIN_SPEED_SCALE)
        self.time_scale, self.segments = time_scale, segments
        self.name = name or f"{spec.kind}-line-emulator"
        self.plan = _Plan([*spec.emulate_faults, *faults])
        self.count: Counter[str] = Counter()
        self.lock = threading.RLock()
        self._cv = threading.Condition(self.lock)
        self._timers: list[tuple[float, int, int, Callable[[], None]]] = []
        self._ids = itertools.count()
        self._gen = 0
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._port: Any = None
        self._pending: deque[bytes] = deque(maxlen=64)
        self._reader: threading.Thread | None = None
        self._broken = False
        self._started_at = time.monotonic()
        self._last_poll = 0.0
        self._log = log.bind(emulator=self.name)
        # the device's state
        self.armed, self.round_id, self.max_cards, self.for_arm, self.index = False, "", 0, 0, 0
        self.pack: list[Card] = []
        self._fill(decks)
        self.spins, self.turning, self.result = 0, False, (0, Decimal(0), "CW")
        self._spin_began, self._spin_turns, self._spin_time = 0.0, Decimal(0), SPIN_TIME
        self.status_state = "rest"  # waiting | turning | rest (showing the last result)
        # the counter a controller shows when the host first hears it (its own, from spins before)
        self._counter0 = random.Random(self.seed ^ 0x5A5A).randrange(COUNTER_WRAP)
        self.showing: tuple[str, str] | None = None
        self._check_formats()
        #: a standalone emulator of a device without an arm command (nobody cues it): the
        #: dealer deals a card or spins every ``every`` device seconds, armed or not
        self.every = every if "arm" not in spec.commands else None

    # -- the formats it writes ------------------------------------------------------------

    def _written(self) -> list[Message]:
        wanted = {"shoe": ("card",), "wheel": ("spin",), "display": ("shown",)}[self.KIND]
        out = [m for m in self.spec.messages if m.event in wanted]
        if not out or any(m.format is None for m in out):
            raise ValueError(f"the {self.KIND}'s {wanted[0]} message needs a format (how the device writes it) "
                             "for an emulator")
        return out

    def _check_formats(self) -> None:
        """Every line the emulator may write matches its message's pattern (each card, for a shoe)."""
        for message in self._written():
            cards = [c for c in DECK if not message.cards or c.code in message.cards.values()] \
                if message.event == "card" else [DECK[0]]
            for card in cards:
                line = message.format.render(self._values(message, {**self._sample_values(), "card": card}))  # type: ignore[union-attr]
                if not message.pattern.fullmatch(line):
                    raise ValueError(f"message {message.name}: its format writes {line!r}, "
                                     "which its pattern does not match")

    def _sample_values(self) -> dict[str, Any]:
        return {"card": DECK[0], "index": 0, "draw_id": "D1", "draw": 3, "upper": "3456", "lower": "7812",
                "segment": 7, "turns": Decimal("5.25"), "direction": "CW", "state": "rest", "spin": 1,
                "flags": 0, "speed": 0}

    def _values(self, message: Message, v: dict[str, Any]) -> dict[str, Any]:
        """What the device writes for ``v``, in the device's own codes."""
        out: dict[str, Any] = {name: "0" for name in message.format.names} if message.format else {}
        out.update({k: v[k] for k in ("index", "draw_id", "draw", "upper", "lower", "segment", "spin", "n") if k in v})
        if "card" in v:
            card = v["card"]
            out["code"] = next((k for k, c in message.cards.items() if c == card.code), card.code)
            rank = RANK_CHAR[card.rank]
            if rank == "T" and not message.ranks and not _group_takes(message, "rank", "T"):
                rank = "10"  # the device writes ten as 10
            out["rank"] = next((k for k, r in message.ranks.items() if r == rank), rank)
            out["suit"] = next((k for k, s in message.suits.items() if s == card.suit), card.suit)
        if "direction" in v:
            out["direction"] = next((k for k, d in message.directions.items() if d == v["direction"]), v["direction"])
        if "state" in v:
            states = {"turning": message.spinning_state, "late": message.spinning_state[-1:],
                      "no_spin": self.spec.turns.no_spin_state,
                      "waiting": message.waiting_state or message.result_state}.get(v["state"], message.result_state)
            out["state"] = states[0] if states else v["state"]
        for key in ("flags", "speed"):
            if key in v:
                out[key] = v[key]
        if "turns" in v:
            out["turns"] = self._turns_text(message, v["turns"])
        return out

    @staticmethod
    def _turns_text(message: Message, turns: Decimal) -> str:
        """Turns as the device writes them: with two decimals where its pattern takes them."""
        exact = f"{turns:.2f}"
        return exact if _group_takes(message, "turns", exact) else str(int(turns))

    # -- life cycle (what EmulatorServer uses) --------------------------------------------

    def start(self) -> None:
        if self._threads:
            return
        self._started_at = time.monotonic()
        thread = threading.Thread(target=self._timer_loop, name=f"emu-{self.name}-timers", daemon=True)
        self._threads.append(thread)
        thread.start()
        if self.every is not None and self.KIND in ("shoe", "wheel"):
            with self.lock:
                self.after(self.every, self._unprompted)
        if self.spec.status_interval is not None and self.KIND == "wheel":
            with self.lock:
                self._status_tick()

    def _status_tick(self) -> None:
        """The device's own status, every ``status_interval`` (never faster than every 5 ms of real time)."""
        self._status()
        delay = max((self.spec.status_interval or 0.5) * self.time_scale, 0.005)
        heapq.heappush(self._timers, (time.monotonic() + delay, next(self._ids), 0, self._status_tick))
        self._cv.notify_all()

    def _unprompted(self) -> None:
        """The dealer of a standalone emulator acts on its own (see ``every``)."""
        self.armed, self._gen = True, self._gen + 1
        if self.KIND == "shoe":
            self.max_cards, self.for_arm = 1, 0
            self._draw(self._gen)
            self.armed = False
        else:
            self._spin(self._gen)
        self.after(self.every or 10.0, self._unprompted)

    def attach(self, port: Any) -> None:
        self.detach()
        with self.lock:
            self._port, self._broken = port, False
            while self._pending:  # what the device wrote while no host was connected
                try:
                    port.write(self._pending.popleft())
                except OSError:
                    self._broken = True
                    break
        self._reader = threading.Thread(target=self._read_loop, args=(port,), name=f"emu-{self.name}-reader",
                                        daemon=True)
        self._reader.start()

    def detach(self) -> None:
        with self.lock:
            self._port = None
        reader, self._reader = self._reader, None
        if reader is not None and reader is not threading.current_thread():
            reader.join()

    def stop(self) -> None:
        self._stop.set()
        with self._cv:
            self._cv.notify_all()
        self.detach()
        for thread in self._threads:
            thread.join()
        self._threads.clear()

    @property
    def link_broken(self) -> bool:
        return self._broken

    # -- the line -------------------------------------------------------------------------

    def mute(self, on: bool) -> None:
        """Go silent (True) until unmuted (False): the device writes nothing."""
        with self.lock:
            self._muted = on

    def _silent(self) -> bool:
        return self.plan.take("silent", "after", (time.monotonic() - self._started_at) / (self.time_scale or 1)) \
            or self.count["silent"] > 0

    def write(self, payload: str) -> None:
        with self.lock:
            port = self._port
            if getattr(self, "_muted", False):
                self.count["muted"] += 1
                return
            if self._silent():
                self.count["silent"] += 1
                return
            self.count["line"] += 1
            data = self.spec.fmt.encode(payload)
            if self.plan.take("noise", "line", self.count["line"]):
                middle = len(self.spec.fmt.start) + len(payload) // 2
                data = data[:middle] + b"\x7f" + data[middle + 1:]  # a character lost on the wire
            if self.plan.every("stray", self.count["line"]):
                self.count["stray"] += 1
                data = b"\x00\xfe" + data  # bytes of a power blip, glued before the frame
            if self.plan.every("repeat", self.count["line"]):
                self.count["repeat"] += 1
                data = data + data  # the device sends its frame again
            if port is None:
                # No host connected (a serial server between two connections): it keeps
                # the device's last lines and hands them to the next connection.
                self._pending.append(data)
                return
            try:
                port.write(data)
            except OSError:
                self._broken = True

    def _read_loop(self, port: Any) -> None:
        decoder = LineDecoder(self.spec.fmt)
        while not self._stop.is_set() and self._port is port:
            try:
                data = port.read(256)
            except Exception:  # noqa: BLE001 - the host went away
                self._broken = True
                return
            for item in decoder.feed(data) if data else ():
                if isinstance(item, str):
                    with self.lock:
                        self._on_line(item)
                else:
                    self._log.info("malformed line from the host", why=item.reason)

    def _on_line(self, line: str) -> None:
        for name, command in self.spec.commands.items():
            fields = command.send.match(line)
            if fields is None:
                continue
            if name == "poll" and time.monotonic() - self._last_poll < MIN_POLL:
                self.count["early_polls"] += 1
                return
            self.count[name] += 1
            if command.expect is not None:
                self.write(command.expect.render({**fields}))
            self._on_action(name, fields)
            return
        self._log.info("unknown command", line=line)

    def cue(self, action: str, values: dict[str, Any]) -> None:
        """The driver's state changed (``arm``/``disarm``): a dealer who watches the table acts on it,
        when the device itself has no such command."""
        if action not in self.spec.commands:
            with self.lock:
                self._on_action(action, {k: str(v) for k, v in values.items()})

    # -- behaviour ---------------------------------------------------------------------------

    def _on_action(self, name: str, fields: dict[str, str]) -> None:
        if name == "poll":
            self._last_poll = time.monotonic()
            if self.KIND == "wheel":
                self._status()
        elif name == "arm":
            self.armed, self._gen = True, self._gen + 1
            gen = self._gen
            if self.KIND == "shoe":
                if fields.get("round_id", self.round_id) != self.round_id or "round_id" not in fields:
                    self.round_id, self.index = fields.get("round_id", ""), 0
                self.max_cards, self.for_arm = int(fields.get("max_cards", "416") or 416), 0
                self.after(FIRST_CARD, lambda: self._draw(gen))
            elif self.KIND == "wheel":
                self.after(SPIN_DELAY, lambda: self._spin(gen))
        elif name == "disarm":
            self.armed, self._gen = False, self._gen + 1
        elif name == "load":
            self._fill(int(fields.get("decks", "1") or 1))
        elif name == "show":
            draw_id = fields.get("draw_id", "")
            values = {"draw_id": draw_id, "draw": fields.get("draw", "0"), "upper": fields.get("upper", ""),
                      "lower": fields.get("lower", "")}
            self.after(SHOW_TIME, lambda: self._read_back(values))
        elif name == "clear":
            self.showing = None

    def _fill(self, decks: int) -> None:
        coded = next((m.cards for m in self.spec.messages if m.event == "card" and m.cards), None)
        deck = [c for c in DECK if coded is None or c.code in coded.values()]  # only the cards it has codes for
        self.pack = deck * max(1, min(8, decks))
        self.rng.shuffle(self.pack)

    def _draw(self, gen: int) -> None:
        if gen != self._gen or not self.armed or self.for_arm >= self.max_cards or not self.pack:
            return
        card = self.pack.pop()
        self.for_arm += 1
        index, self.index = self.index, self.index + 1
        message = self._written()[0]
        self.count["card"] += 1
        self.write(message.format.render(self._values(message, {"card": card, "index": index})))  # type: ignore[union-attr]
        self.after(CARD_INTERVAL, lambda: self._draw(gen))

    def _spin(self, gen: int) -> None:
        if gen != self._gen or not self.armed:
            return
        source = self.spec.turns.source
        low, high, mode = (4.5, 9.0, 6.0) if source in ("rotor_speed", "revolutions") else (3.0, 8.5, 5.0)
        self._spin_turns = Decimal(str(round(self.rng.triangular(low, high, mode), 2))).quantize(Decimal("0.01"))
        self._spin_time = SPEED_SPIN_TIME if source == "rotor_speed" else SPIN_TIME
        self._spin_began = time.monotonic()
        self._direction = self.rng.choice(("CW", "CCW"))
        self.turning = True
        if source == "revolutions":
            self._passes(gen)
        self.after(self._spin_time, lambda: self._rest(gen))

    def _passes(self, gen: int) -> None:
        """One revolution line per pass of the index mark, at the times a steady slowing makes them."""
        message = next(m for m in self.spec.messages if m.event == "revolution")
        phase = self.rng.random()
        passes = int(self._spin_turns + Decimal(str(phase)))
        turns, spin_time = float(self._spin_turns), self._spin_time
        for n in range(1, passes + 1):
            done = min((n - phase) / turns, 1.0) if turns else 1.0  # the share of the turns made at the pass
            at = spin_time * (1 - (1 - done) ** 0.5)  # the time a linear slowing has made it
            self.after(at, lambda n=n: self._pass(gen, message, n))

    def _pass(self, gen: int, message: Message, n: int) -> None:
        if gen == self._gen and self.turning and message.format is not None:
            self.count["revolution"] += 1
            direction = getattr(self, "_direction", None) or self.result[2]
            self.write(message.format.render(self._values(message, {"n": n, "direction": direction})))

    def _speed(self) -> Decimal:
        """The rotor's speed now, in real rpm: up in 0.3 device s, then slowing steadily to rest."""
        if not self.turning:
            return Decimal(0)
        scale = self.time_scale or 0.001
        t = (time.monotonic() - self._spin_began) / scale
        d = self._spin_time
        peak = 2 * float(self._spin_turns) / d * 60  # rpm: the area under the ramp and the slowing is the turns
        rpm = peak * t / 0.3 if t < 0.3 else peak * max(d - t, 0.0) / (d - 0.3)
        return Decimal(str(rpm / scale))

    def _rest(self, gen: int) -> None:
        if gen != self._gen and self.every is None:
            return
        turns = self._spin_turns or Decimal(str(round(self.rng.triangular(3.0, 8.5, 5.0), 2))).quantize(Decimal("0.01"))
        self.spins += 1
        self.count["spin"] += 1
        # the controller's own "no spin" for this result (a wheel whose turns it judges)
        self.no_spin = self.plan.take("nospin", "spin", self.spins) and bool(
            self.spec.turns.no_spin_state or self.spec.turns.no_spin_flags)
        self.turning, self.armed = False, False
        direction = getattr(self, "_direction", None) or self.rng.choice(("CW", "CCW"))
        self.result = (self.rng.randrange(self.segments), turns, direction)
        self._direction = None
        self.status_state = "rest"
        if self.spec.poll_interval is None:
            self._status()
        for message in self.spec.messages:  # its bare lines: the winning number for passive displays
            if message.bare and message.format is not None and set(message.format.names) <= {"segment"}:
                self.write_bare(message.format.render({"segment": self.result[0]}))

    def write_bare(self, payload: str) -> None:
        """A line without the start character (a bare message)."""
        with self.lock:
            port = self._port
            if port is None or getattr(self, "_muted", False) or self._silent():
                return
            self.count["line"] += 1
            try:
                port.write(payload.encode("ascii") + self.spec.fmt.terminator)
            except OSError:
                self._broken = True

    def _status(self) -> None:
        message = self._written()[0]
        segment, turns, direction = self.result
        if self.turning and getattr(self, "_direction", None):
            direction = self._direction
        state = self.status_state
        if self.turning:
            late = time.monotonic() - self._spin_began > self._spin_time * self.time_scale / 2
            state = "late" if late else "turning"
        elif self.armed or not self.spins:
            state = "waiting"
        speed = self._speed() / self.spec.turns.speed_unit
        flags = 0
        if state == "rest" and getattr(self, "no_spin", False):
            if self.spec.turns.no_spin_state:
                state = "no_spin"
            flags = self.spec.turns.no_spin_flags
        values = {"state": state, "spin": (self._counter0 + self.spins - 1) % COUNTER_WRAP + 1,
                  "segment": segment, "turns": turns, "direction": direction, "flags": flags,
                  "speed": int(speed.to_integral_value())}
        self.write(message.format.render(self._values(message, values)))  # type: ignore[union-attr]

    def _read_back(self, values: dict[str, Any]) -> None:
        message = self._written()[0]
        self.showing = (values["draw_id"], f"{values['upper']}/{values['lower']}")
        self.count["readback"] += 1
        self.write(message.format.render(self._values(message, values)))  # type: ignore[union-attr]

    # -- timers ---------------------------------------------------------------------------------

    def after(self, seconds: float, job: Callable[[], None]) -> None:
        heapq.heappush(self._timers, (time.monotonic() + seconds * self.time_scale, next(self._ids), 0, job))
        self._cv.notify_all()

    def _timer_loop(self) -> None:
        with self._cv:
            while not self._stop.is_set():
                now = time.monotonic()
                if self._timers and self._timers[0][0] <= now:
                    job = heapq.heappop(self._timers)[3]
                    try:
                        job()
                    except Exception:  # noqa: BLE001 - one failed job must not stop the device
                        self._log.exception("device job failed")
                    continue
                self._cv.wait(min(self._timers[0][0] - now if self._timers else 0.25, 0.25))


def _group_takes(message: Message, group: str, text: str) -> bool:
    """Whether ``group`` of the message's pattern can be ``text`` (a sub-pattern probe)."""
    return group_takes(message.pattern, group, text)


def check_faults(specs: Iterable[str]) -> None:
    """ValueError naming the first fault spec a line emulator does not take."""
    _Plan(specs)
