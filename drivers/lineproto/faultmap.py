"""A device's own fault codes and warning flags, mapped to the table's.

``[devices.<kind>.fault_codes]`` maps each code a device writes on its fault
lines (a letter, a number, anything its ``{code}`` group captures) to one of
the table's fault codes (100-999, docs/hardware.md) with a severity and a
text; ``[devices.<kind>.fault_flags]`` maps each bit of a hex ``{flags}`` group
(on any line: a status line's warning flags) the same way. A code or a bit
the map does not name is still a fault: :data:`UNMAPPED` of the device's
kind, named with the raw value, so nothing a device says is lost.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from drivers.events import DISPLAY_UNMAPPED, SHOE_UNMAPPED, WHEEL_UNMAPPED

#: the table's code for a device fault its configuration does not map, per kind
UNMAPPED = {"shoe": SHOE_UNMAPPED, "display": DISPLAY_UNMAPPED, "wheel": WHEEL_UNMAPPED}


@dataclass(frozen=True)
class MappedFault:
    code: int
    severity: str
    text: str


@dataclass(frozen=True)
class FaultMap:
    codes: dict[str, MappedFault] = field(default_factory=dict)  # device code -> the table's fault
    flags: dict[int, MappedFault] = field(default_factory=dict)  # bit value -> the table's fault

    def code(self, kind: str, raw: str) -> MappedFault:
        mapped = self.codes.get(raw)
        if mapped is not None:
            return mapped
        return MappedFault(UNMAPPED[kind], "E", f"device fault {raw!r} (not in the configuration's fault map)")

    def bits(self, kind: str, value: int, ignore: int = 0) -> dict[int, MappedFault]:
        """The faults the flags ``value`` raises, by table code (bits in ``ignore`` are not faults)."""
        out: dict[int, MappedFault] = {}
        unknown = []
        for bit in range(32):
            mask = 1 << bit
            if not value & mask or ignore & mask:
                continue
            mapped = self.flags.get(mask)
            if mapped is None:
                unknown.append(f"0x{mask:X}")
            elif mapped.code not in out:
                out[mapped.code] = mapped
        if unknown:
            code = UNMAPPED[kind]
            out[code] = MappedFault(code, "E", f"device flag(s) {', '.join(unknown)} "
                                    "(not in the configuration's flag map)")
        return out
