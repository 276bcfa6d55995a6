"""The core: cards, money, errors, validation. Imports nothing else of tablesim."""
