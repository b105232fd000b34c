"""`python -m engram.mcp`: run the MCP server over stdio (what `engram serve` does)."""

from engram.mcp.server import serve

if __name__ == "__main__":
    serve()
