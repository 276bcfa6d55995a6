"""Serial backends: the four TDL/1 devices over ``serial.serial_for_url``.

Each driver implements its interface of :mod:`drivers.base` over one
``LinkSession(role="host")``; see :mod:`drivers.serial.link_device` for the
rules they share and docs/protocol.md for the messages.
"""

from drivers.serial.display import SerialDisplay
from drivers.serial.link_device import COMMAND_NOT_DELIVERED, COMMAND_REFUSED, DeviceUnavailable, LinkDevice
from drivers.serial.shoe import SerialShoe
from drivers.serial.shuffler import SerialShuffler
from drivers.serial.timing import LinkTiming
from drivers.serial.wheel import SerialWheel

__all__ = [
    "COMMAND_NOT_DELIVERED",
    "COMMAND_REFUSED",
    "DeviceUnavailable",
    "LinkDevice",
    "LinkTiming",
    "SerialDisplay",
    "SerialShoe",
    "SerialShuffler",
    "SerialWheel",
]
