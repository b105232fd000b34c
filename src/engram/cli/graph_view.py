"""`engram graph --html`: the memory graph as one self-contained HTML page.

Everything the page needs is inside it (the data, the layout code, the styles): it opens
offline, from a file, and sends nothing anywhere. Colour is the memory's status, size its use
count, an edge's colour its relation type; hovering shows content, tags and entities; physics
can be paused and the spacing changed; nodes can be dragged.
"""

from __future__ import annotations

import json
from importlib.resources import files

from engram.services.results import GraphSnapshot

PLACEHOLDER = "/*GRAPH_DATA*/"


def graph_html(snapshot: GraphSnapshot) -> str:
    data = {
        "nodes": [
            {
                "id": m.id,
                "content": m.content,
                "tags": list(m.tags),
                "entities": list(m.entities),
                "status": m.status.value,
                "use_count": m.use_count,
                "strength": m.strength,
            }
            for m in snapshot.memories
        ],
        "edges": [
            {"from": r.from_id, "to": r.to_id, "type": r.type, "strength": r.strength}
            for r in snapshot.relations
        ],
        "total": snapshot.total,
        "truncated": snapshot.total > len(snapshot.memories),
    }
    template = files("engram.cli").joinpath("data/graph.html").read_text(encoding="utf-8")
    return template.replace(PLACEHOLDER, _script_safe(json.dumps(data, ensure_ascii=False)))


def _script_safe(text: str) -> str:
    """JSON that cannot end its <script> element: a memory saying "</script><script>…" stays
    text. The escapes are valid JSON, so the page parses the same data."""
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
