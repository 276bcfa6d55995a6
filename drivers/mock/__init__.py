"""In-process mock backends: deterministic, scriptable, with fault injection."""

from drivers.mock.cards import CardSource, ScriptedCards, ShuffledShoe, OutOfCards
from drivers.mock.faults import MockFault
from drivers.mock.shoe import MockShoe
from drivers.mock.shuffler import MockShuffler

__all__ = [
    "CardSource",
    "ScriptedCards",
    "ShuffledShoe",
    "OutOfCards",
    "MockFault",
    "MockShoe",
    "MockShuffler",
]
