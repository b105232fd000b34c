"""Long-term memory in an Obsidian vault: render notes (pure), write them atomically inside the
vault, and read the vault for the LTM index."""
