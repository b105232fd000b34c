"""The `engram` command line: a thin adapter over the services, rich tables or `--json`."""
