"""The line-protocol backend (``backend = "line"``): devices that speak
ASCII lines of their own, described in the table configuration instead of
coded: framing and checksum (:mod:`~drivers.lineproto.codec`,
:mod:`~drivers.lineproto.checksum`), messages and commands
(:mod:`~drivers.lineproto.spec`), a wheel's turns (:mod:`~drivers.lineproto.turns`),
a device's own fault codes (:mod:`~drivers.lineproto.faultmap`), garbage and
floods as faults (:mod:`~drivers.lineproto.watch`), the host's drivers
(:mod:`~drivers.lineproto.device`, :mod:`~drivers.lineproto.kinds`), an emulator built
from the same description (:mod:`~drivers.lineproto.emulator`) and captures of
a device's bytes, recorded and replayed (:mod:`~drivers.lineproto.capture`). See
docs/protocol.md, "Line-protocol devices", and docs/drivers.md.
"""
