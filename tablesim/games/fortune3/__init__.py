"""Fortune 3 Card Poker (Despacho 78/2008)."""
