"""The project's error types.

Every refusal the table makes carries a reason a dealer, an operator or a
script author can act on; the CLI turns these into one-line messages and an
exit status, never a traceback.
"""

from __future__ import annotations


class TablesimError(Exception):
    """Base of every error the project raises on purpose."""


class InputError(TablesimError):
    """Bad input (a script, a config, a command argument): nothing was changed.

    ``where`` locates the problem as precisely as the caller knows it, e.g.
    ``scripts/f3.yaml: round 2: bets.8``.
    """

    def __init__(self, message: str, *, where: str | None = None) -> None:
        self.message = message
        self.where = where
        super().__init__(f"{where}: {message}" if where else message)

    def located(self, prefix: str) -> "InputError":
        """The same error with ``prefix`` put in front of its location."""
        where = f"{prefix}: {self.where}" if self.where else prefix
        return InputError(self.message, where=where)


class ConfigError(InputError):
    """A rule profile or table configuration is invalid."""


class IllegalAction(TablesimError):
    """An action the round's state or the rules do not allow; nothing changed."""

    def __init__(self, action: str, reason: str) -> None:
        self.action = action
        self.reason = reason
        super().__init__(f"{action} refused: {reason}")


class DeviceFault(TablesimError):
    """A device reported a fault, or reported something impossible."""

    def __init__(self, code: str, text: str) -> None:
        self.code = code
        self.text = text
        super().__init__(f"device fault {code}: {text}")
