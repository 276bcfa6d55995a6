"""Scripted rounds: the public file format of spec/scripted-rounds.md."""
