"""Moving memories between stores and formats, written over the `Store` protocol only, so every
pair of backends works the same way:

* `migrate` copies every memory (all counters and timestamps), relation and vector from one
  store to another in batches, then verifies: every memory is present in the target and a
  sha256 over a canonical JSON form of each memory, relation and vector matches the source's.
  Safe to re-run: ids already in the target are skipped (kept as they are), or replaced with
  `overwrite`; relations are idempotent by (from, to, type); vectors are replaced.
* `read_cortexgraph` / `import_cortexgraph` read a CortexGraph (mnemex) JSONL directory:
  `memories.jsonl` and `relations.jsonl`, where the last line for an id wins and
  `{"id": ..., "_deleted": true}` deletes; times are unix seconds.
* `export_lines` renders the whole store as JSON lines or Markdown, page by page.
"""
