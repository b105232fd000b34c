"""Pure functions over frozen models: no I/O, no wall clock, nothing else of engram imported."""
