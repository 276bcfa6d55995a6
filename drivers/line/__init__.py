"""The line-protocol backend (``backend = "line"``): devices that speak
ASCII lines of their own, described in the table configuration instead of
coded: framing and checksum (:mod:`~drivers.line.codec`,
:mod:`~drivers.line.checksum`), messages and commands
(:mod:`~drivers.line.spec`), the host's drivers (:mod:`~drivers.line.device`,
:mod:`~drivers.line.kinds`) and an emulator built from the same description
(:mod:`~drivers.line.emulator`). See docs/protocol.md, "Line-protocol
devices".
"""
