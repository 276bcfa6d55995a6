"""Tables on real or emulated devices for ``tablesim serve --config FILE``
, ``tablesim serve --config FILE --emulated`` and ``tablesim serve --game G --emulated`` (built in
:mod:`tablesim.harness.devicetables`, as for ``tablesim run``).

With these tables there is no mock dealer (``rig``): the dealer's actions
(deal, close betting, no spin) go to the devices, and the runner's pump hands
the table whatever the devices report, as they report it.
"""

from __future__ import annotations

from tablesim.harness.devicetables import DeviceTable, configured_emulated_table, configured_table, emulated_table

__all__ = ["DeviceTable", "configured_emulated_table", "configured_table", "emulated_table"]
