"""USB backend: the card-shoe reader over pyusb (``drivers.usb.shoe.UsbShoe``).

Nothing here is imported until the backend is used, so a machine without
pyusb or libusb loses only this backend. ``drivers.usb.emulated_backend``
is a pyusb backend with an emulated reader plugged in.
"""
