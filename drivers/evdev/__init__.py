"""Keyboard-wedge card readers through the Linux input layer (``backend =
"evdev"``): the reader's input device (``/dev/input/by-id/...-event-kbd``)
grabbed and its key events decoded (:mod:`~drivers.evdev.keys`), by the shoe
driver (:mod:`~drivers.evdev.shoe`); an emulated reader writing recorded
input events into a pipe (:mod:`~drivers.evdev.emulator`)."""
