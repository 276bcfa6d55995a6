"""A record's data as the chain covers it: canonical JSON text."""

from __future__ import annotations

import json
from json.encoder import c_make_encoder, encode_basestring_ascii
from typing import Any

#: json.dumps(data, sort_keys=True, separators=(",", ":"), default=str), with
#: the encoder built once instead of per record (the same text). The C
#: encoder itself is kept where there is one (``JSONEncoder.encode`` builds
#: it anew per call); no circular check: the codec has walked the data first.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), default=str).encode
_C_ENCODER = None if c_make_encoder is None else c_make_encoder(
    None, str, encode_basestring_ascii, None, ":", ",", True, False, True)


def canonical(data: Any) -> str:
    if _C_ENCODER is None or type(data) is not dict:
        return _CANONICAL(data)
    return "".join(_C_ENCODER(data, 0))
