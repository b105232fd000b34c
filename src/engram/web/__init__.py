"""The local web dashboard (an adapter, like the MCP server and the CLI)."""
