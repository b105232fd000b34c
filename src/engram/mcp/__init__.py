"""The MCP adapter: Engram's services as Model Context Protocol tools over stdio.

Importing this package opens nothing; `engram.mcp.server.serve()` (or `python -m engram.mcp`,
or `engram serve`) starts a server, and the store is opened on the first tool call.
"""
