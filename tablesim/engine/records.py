"""The records a table journals, as frozen named types, registered with the
codec (``tablesim/core/codec.py``).

- Device reports (``drivers/events.py``): what a device told the table.
- ``ActionInput``: one public action of the table as the journal records it
  (the action's name, its arguments by name, who did it); a replay applies
  it to the table again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import drivers.events as ev
from tablesim.core.codec import register

DEVICE_EVENTS = tuple(
    cls for cls in vars(ev).values()
    if isinstance(cls, type) and issubclass(cls, ev.DeviceEvent) and cls is not ev.DeviceEvent
)
register(*DEVICE_EVENTS, tag="$event")
