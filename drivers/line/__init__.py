"""The line-protocol backend (``backend = "line"``): devices that speak
ASCII lines of their own, described in the table configuration instead of
coded: framing and checksum (:mod:`~drivers.line.codec`,
:mod:`~drivers.line.checksum`), messages and commands
(:mod:`~drivers.line.spec`), a wheel's turns (:mod:`~drivers.line.turns`),
a device's own fault codes (:mod:`~drivers.line.faultmap`), garbage and
floods as faults (:mod:`~drivers.line.watch`), the host's drivers
(:mod:`~drivers.line.device`, :mod:`~drivers.line.kinds`), an emulator built
from the same description (:mod:`~drivers.line.emulator`) and captures of
a device's bytes, recorded and replayed (:mod:`~drivers.line.capture`). See
docs/protocol.md, "Line-protocol devices", and docs/drivers.md.
"""
