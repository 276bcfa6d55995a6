"""The harness: scripted rounds, simulation, benchmarks, recording, table configuration."""
