"""YAML loading for scripted rounds: money stays exact, and hostile files are
refused before they cost memory or time.

Only plain spellings become numbers: ``12`` an int, ``12.5`` a Decimal.
Everything else YAML 1.1 would read as a number (``1_000``, ``1e3``,
``0x10``, ``1:30``, ``.inf``, ``.nan``, a thousand-digit int) stays the
text it was written as, so the field that reads it refuses it with one line
naming the value, before any arithmetic.

A script is read only up to ``MAX_BYTES``; anchors and aliases are allowed,
but the document as expanded (every alias counted as a copy of what it
names) may hold at most ``MAX_NODES`` nodes, and an alias may not name a
node that contains it. A few hundred bytes of nested aliases ("billion
laughs") would otherwise expand to gigabytes when the rounds are walked.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import re

import yaml

from tablecore.errors import InputError

#: the largest script read (the biggest shipped one is about 16 kB)
MAX_BYTES = 1_000_000
#: the most nodes a script may expand to (the biggest shipped one has a few thousand)
MAX_NODES = 200_000


class _ExactLoader(yaml.SafeLoader):
    pass


_PLAIN_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]{0,29})", re.ASCII)
_PLAIN_DECIMAL = re.compile(r"[-+]?(?:[0-9]{1,30}\.[0-9]{0,30}|\.[0-9]{1,30})", re.ASCII)


def _int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int | str:
    text = loader.construct_scalar(node)
    return int(text) if _PLAIN_INT.fullmatch(text) else text


def _decimal(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Decimal | str:
    text = loader.construct_scalar(node)
    return Decimal(text) if _PLAIN_DECIMAL.fullmatch(text) else text


_ExactLoader.add_constructor("tag:yaml.org,2002:int", _int)
_ExactLoader.add_constructor("tag:yaml.org,2002:float", _decimal)


def _expanded_size(root: yaml.Node, where: str) -> int:
    """Nodes in the document with every alias expanded, computed once per
    node (so in linear time); refused past MAX_NODES or on a cycle."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()

    def size(node: yaml.Node) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in open_nodes:
            raise InputError("an alias names a node that contains it (recursive YAML)", where=where)
        open_nodes.add(key)
        total = 1
        if isinstance(node, yaml.SequenceNode):
            children = node.value
        elif isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        else:
            children = []
        for child in children:
            total += size(child)
            if total > MAX_NODES:
                raise InputError(f"expands to more than {MAX_NODES} YAML nodes (aliases counted as copies)",
                                 where=where)
        open_nodes.discard(key)
        sizes[key] = total
        return total

    return size(root)


def _read(path: str | Path) -> str:
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise InputError("file not found", where=str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", where=str(path)) from None
    if len(data) > MAX_BYTES:
        raise InputError(f"larger than {MAX_BYTES} bytes: not a script", where=str(path))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start}: {data[exc.start]:#04x})", where=str(path)) from None


def load_yaml(path: str | Path) -> Any:
    text = _read(path)
    loader = _ExactLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _expanded_size(node, str(path))
        return loader.construct_document(node)
    except RecursionError:
        raise InputError("nested too deeply", where=str(path)) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise InputError(f"{line}not valid YAML: {problem}", where=str(path)) from None
    finally:
        loader.dispose()
