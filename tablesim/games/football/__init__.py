"""The football card game (Despacho 41/2003)."""
