"""In-process emulators for a whole table: ``tablesim run --game G --emulated``.

::

    with running_emulators(["shoe", "display"], seed=7, time_scale=0.05,
                           faults={"display": ["readback@show=3"]}) as urls:
        shoe = open_device("shoe", "serial", {"url": urls["shoe"]})

Each emulator runs on its own pty, on threads of this process, and is
stopped (threads joined, pty closed) when the block ends.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from typing import Any

from drivers.emulators import KINDS, make_emulator
from drivers.emulators.server import EmulatorServer
from drivers.serial.timing import LinkTiming


def split_faults(faults: Mapping[str, Sequence[str]] | Iterable[str] | None, kinds: Sequence[str]) -> dict[str, list[str]]:
    """Faults per kind, from a mapping or from ``kind:spec`` strings."""
    out: dict[str, list[str]] = {k: [] for k in kinds}
    if faults is None:
        return out
    if isinstance(faults, Mapping):
        items = [(k, s) for k, specs in faults.items() for s in ([specs] if isinstance(specs, str) else specs)]
    else:
        items = []
        for text in faults:
            kind, colon, spec = text.partition(":")
            if not colon:
                raise ValueError(f"fault {text!r} must name its device: kind:spec (e.g. shoe:misread@card=5)")
            items.append((kind.strip(), spec.strip()))
    for kind, spec in items:
        if kind not in out:
            raise ValueError(f"fault {spec!r} is for the {kind}, which is not emulated here ({', '.join(kinds)})")
        out[kind].append(spec)
    return out


class EmulatorUrls(dict):
    """``{kind: device path}``, and the emulators themselves (``.emulators``)."""

    def __init__(self) -> None:
        super().__init__()
        self.emulators: dict[str, Any] = {}

    def unfired(self) -> list[str]:
        """``kind:spec`` of every fault that has not fired (yet)."""
        return [f"{kind}:{spec}" for kind, emulator in self.emulators.items() for spec in emulator.plan.specs]


@contextmanager
def running_emulators(
    kinds: Iterable[str],
    seed: int | None = None,
    time_scale: float = 1.0,
    faults: Mapping[str, Sequence[str]] | Iterable[str] | None = None,
    *,
    timing: LinkTiming | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
) -> Iterator[dict[str, str]]:
    """Start one emulator per kind on a pty; yield ``{kind: device path}``; stop them all."""
    kinds = list(dict.fromkeys(kinds))
    for kind in kinds:
        if kind not in KINDS:
            raise ValueError(f"no emulator for {kind!r} (kinds: {', '.join(KINDS)})")
    per_kind = split_faults(faults, kinds)
    with ExitStack() as stack:
        urls = EmulatorUrls()
        for i, kind in enumerate(kinds):
            emulator = make_emulator(
                kind,
                seed=None if seed is None else seed + 1000 * KINDS.index(kind),
                time_scale=time_scale,
                faults=per_kind[kind],
                timing=timing,
                **dict((options or {}).get(kind, {})),
            )
            server = stack.enter_context(EmulatorServer(emulator, pty=True))
            urls[kind] = server.url
            urls.emulators[kind] = emulator
        yield urls
