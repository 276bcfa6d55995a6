"""Players' session tokens: what a player holds after opening a session with
the operator's launch token.

A session token names its player, their currency and unit and when it
expires, signed (HMAC-SHA256) with a key derived from the wallet's shared
secret. Nothing is stored: any platform process holding the same secret
takes any player's token (a player may reconnect to another process), and
a token changed in any byte is refused. Every action takes the player from
the token, never from the request: a player acts only for themselves.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from dataclasses import dataclass
from decimal import Decimal


#: verified tokens remembered (all forgotten at once when full)
KNOWN = 100_000


@dataclass(frozen=True, slots=True)
class Session:
    player: str
    currency: str
    unit: Decimal
    expires: int


class BadSession(ValueError):
    pass


class Sessions:
    def __init__(self, secret: bytes, hours: float = 12.0) -> None:
        # (derived: a session token is never a valid wallet signature, nor the other way round)
        self._key = hmac.new(secret, b"tablesim-platform-session-v1", hashlib.sha256).digest()
        self.seconds = int(hours * 3600)
        # tokens already verified (each bet's token checked once, not at every bet; expiry at every read)
        self._known: dict[str, Session] = {}

    def issue(self, player: str, currency: str, unit: Decimal) -> str:
        body = json.dumps({"p": player, "c": currency, "u": format(unit, "f"), "e": int(time.time()) + self.seconds},
                          separators=(",", ":")).encode()
        text = base64.urlsafe_b64encode(body).decode().rstrip("=")
        return f"{text}.{self._sign(text)}"

    def read(self, token: str | None) -> Session:
        session = self._known.get(token) if token else None
        if session is None:
            session = self._verified(token)
            if len(self._known) >= KNOWN:
                self._known.clear()
            self._known[token] = session
        if session.expires < time.time():
            raise BadSession("the session has expired: open a new one with a launch token")
        return session

    def _verified(self, token: str | None) -> Session:
        if not token or len(token) > 1000 or token.count(".") != 1:
            raise BadSession("no session: open one with POST /api/session and your launch token")
        text, sig = token.split(".")
        if not hmac.compare_digest(self._sign(text), sig):
            raise BadSession("the session token is not valid")
        try:
            doc = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
            session = Session(str(doc["p"]), str(doc["c"]), Decimal(doc["u"]), int(doc["e"]))
        except (ValueError, KeyError, TypeError, ArithmeticError):
            raise BadSession("the session token is not valid") from None
        return session

    def _sign(self, text: str) -> str:
        return hmac.new(self._key, text.encode("ascii", "replace"), hashlib.sha256).hexdigest()
