"""The memory graph as one self-contained HTML page (`engram graph --html`, and the dashboard's
graph page).

The drawing is vis-network, the library the upstream system's view used, read from the files
the `pyvis` distribution installs (the `graph` extra) and inlined with the data, so the page
opens from disk, offline, and sends nothing anywhere. Nothing of vis-network lives in this
repository. Colour is the memory's status, size its use count, an edge's colour its relation
type; hovering shows content, tags and entities; search, status and tag filters fade what does
not match; physics can be paused and the spacing changed.
"""

from __future__ import annotations

import json
from importlib.metadata import PackageNotFoundError, distribution
from importlib.resources import files
from pathlib import Path

from jinja2 import Environment, select_autoescape

from engram.about import DISTRIBUTION
from engram.errors import ConfigError
from engram.services.results import GraphSnapshot, cut_for_answer

VIS_DISTRIBUTION = "pyvis"
VIS_DIR = "pyvis/lib/vis-9.1.2"
INSTALL_HINT = f"pip install '{DISTRIBUTION}[graph]'"


def vis_network() -> tuple[str, str]:
    """vis-network's script and style sheet, as installed by pyvis. Located through the
    distribution's files rather than by importing pyvis, which would import IPython."""
    try:
        dist = distribution(VIS_DISTRIBUTION)
    except PackageNotFoundError:
        raise ConfigError(
            f"the graph view draws with vis-network, which comes with pyvis: {INSTALL_HINT}"
        ) from None
    try:
        folder = Path(str(dist.locate_file(VIS_DIR)))
        script = (folder / "vis-network.min.js").read_text(encoding="utf-8")
        style = (folder / "vis-network.css").read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(
            f"the installed pyvis lacks vis-network 9.1.2 ({exc}): {INSTALL_HINT} --upgrade"
        ) from None
    return _script_safe_text(script), style


def graph_html(
    snapshot: GraphSnapshot, back: str | None = None, memory_url: str | None = None
) -> str:
    """The page; `back`, when given, is a link shown in its header (the dashboard's), and
    `memory_url` the address a memory's id is appended to, opened by a double click on it."""
    script, style = vis_network()
    data = {
        "nodes": [
            {
                "id": m.id,
                # cut as a search hit is: 400 memories of 49,000 characters made a page of
                # 20 MB and tooltips 12,000 px tall (a probe)
                "content": cut_for_answer(m.content),
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
    template = files("engram.web").joinpath("templates/graph.html").read_text(encoding="utf-8")
    env = Environment(autoescape=select_autoescape(default_for_string=True))
    return env.from_string(template).render(
        vis_script=script,
        vis_style=style,
        data=_script_safe(json.dumps(data, ensure_ascii=False)),
        back=back,
        memory_url=_script_safe(json.dumps(memory_url)),
    )


def _script_safe(text: str) -> str:
    """JSON that cannot end its <script> element: a memory saying "</script><script>…" stays
    text. The escapes are valid JSON, so the page parses the same data."""
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _script_safe_text(script: str) -> str:
    """A library inlined in a <script> element must not contain "</script"; vis-network does
    not today, and this keeps a future version from breaking the page silently."""
    if "</script" in script.lower():
        raise ConfigError(f"the installed vis-network cannot be inlined: {INSTALL_HINT}")
    return script
