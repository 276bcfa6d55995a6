"""Wheel of Fortune (Despacho 42/2003)."""
