"""The device layer: one interface per device kind, backends chosen by name.

Backends: ``mock`` (in-process, deterministic, scriptable, fault injection),
``serial`` (pyserial via ``serial.serial_for_url``), ``usb`` (pyusb, shoe
reader only). Games talk only to the interfaces in ``drivers.base``.
"""
