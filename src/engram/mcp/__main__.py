"""`python -m engram.mcp`: run the MCP server over stdio (what `engram serve` does)."""

from engram.mcp.launch import serve_stdio

if __name__ == "__main__":
    serve_stdio()
