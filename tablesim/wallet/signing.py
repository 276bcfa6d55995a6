"""Signatures of the wallet protocol: HMAC-SHA256 with a shared secret.

A request is signed over its timestamp, its nonce, its path and its body
bytes; an answer over its own timestamp, the nonce of the request it
answers and its body bytes. Tying an answer to its request's nonce means a
recorded answer cannot be passed off as the answer to another request, and
tying a request to its path means a signed body cannot be sent to another
call. The secret lives in a file readable by its owner only; it is never
logged, printed or put in an error message.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from pathlib import Path

from tablecore.errors import InputError
from tablecore.secretfile import read_owner_only

TIMESTAMP = "X-Wallet-Timestamp"
NONCE = "X-Wallet-Nonce"
SIGNATURE = "X-Wallet-Signature"

NONCE_FORMAT = re.compile(r"[A-Za-z0-9_-]{16,64}", re.ASCII)
SIGNATURE_FORMAT = re.compile(r"[0-9a-f]{64}", re.ASCII)
TIMESTAMP_FORMAT = re.compile(r"[0-9]{1,12}", re.ASCII)
#: a secret: 32 to 256 printable ASCII characters, no spaces (e.g. 64 hex digits)
SECRET_FORMAT = re.compile(r"[!-~]{32,256}", re.ASCII)


def request_message(timestamp: str, nonce: str, path: str, body: bytes) -> bytes:
    return f"{timestamp}\n{nonce}\n{path}\n".encode("ascii") + body


def answer_message(timestamp: str, nonce: str, body: bytes) -> bytes:
    return f"{timestamp}\n{nonce}\n".encode("ascii") + body


def sign(secret: bytes, message: bytes) -> str:
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


def verify(secret: bytes, message: bytes, signature: str) -> bool:
    return hmac.compare_digest(sign(secret, message), signature)


def new_nonce() -> str:
    return secrets.token_urlsafe(18)


def request_headers(secret: bytes, path: str, body: bytes, *, timestamp: int, nonce: str | None = None) -> dict:
    """The three headers of a signed request."""
    nonce = nonce or new_nonce()
    ts = str(timestamp)
    return {TIMESTAMP: ts, NONCE: nonce, SIGNATURE: sign(secret, request_message(ts, nonce, path, body)),
            "Content-Type": "application/json"}


def load_secret(path: str | Path) -> bytes:
    """The shared secret from its file; refused (one line, never showing the
    secret) if missing, unreadable, open to others or malformed."""
    # (latin-1 decodes any byte: a secret that is not ASCII is then refused as no secret, not shown)
    text = read_owner_only(path, "the secret file", encoding="latin-1").strip()
    if not SECRET_FORMAT.fullmatch(text):
        raise InputError("not a wallet secret (one line of 32 to 256 printable ASCII characters, no spaces)",
                         where=str(path))
    return text.encode("ascii")


def create_secret(path: str | Path) -> None:
    """A new random secret (64 hex digits) in a new file, mode 0600; never overwrites."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise InputError("the secret file exists already (never overwritten)", where=str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot create the secret file: {exc.strerror}", where=str(path)) from None
    with os.fdopen(fd, "w") as fh:
        fh.write(secrets.token_hex(32) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
