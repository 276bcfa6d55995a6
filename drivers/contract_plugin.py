"""The driver contract as a pytest plugin, for a backend in another package.

In that package's ``conftest.py`` (the root one)::

    pytest_plugins = ["drivers.contract_plugin"]

and in a test::

    def test_my_shoe_keeps_the_contract(device_contract, my_emulated_shoe):
        shoe, side = my_emulated_shoe              # an open device, and a DeviceSide (or None)
        device_contract(shoe, "shoe", side)        # fails, naming each broken check

``device_contract(device, kind, side=None, wait=10.0, allow_skips=True)``
runs :func:`drivers.contract.check_device` and fails the test on any
failed check (or on a skipped one, with ``allow_skips=False``); it returns
the outcomes.
"""

from __future__ import annotations

from typing import Any, Callable

import pytest

from drivers.contract import DeviceSide, Outcome, check_device


@pytest.fixture
def device_contract() -> Callable[..., list[Outcome]]:
    def run(device: Any, kind: str, side: DeviceSide | None = None, wait: float = 10.0,
            allow_skips: bool = True) -> list[Outcome]:
        outcomes = check_device(device, kind, side, wait=wait)
        broken = [o for o in outcomes if o.status == "fail" or (o.status == "skip" and not allow_skips)]
        if broken:
            pytest.fail("the device contract is broken:\n" + "\n".join(
                f"  {o.status}: {o.check}: {o.detail}" for o in broken), pytrace=False)
        return outcomes

    return run
