"""Reading the vault: find every Markdown note and parse what the LTM index keeps of it.

`scan` lists notes with their modification time and size (one `stat` each, no reads), so the
indexing service re-reads only files whose mtime or size changed, and re-parses only those whose
content digest changed too. `parse_note` turns a note's text into a `Note`: frontmatter (any
YAML mapping), title, tags from the frontmatter and inline `#tags`, `[[wikilinks]]` and the body.
A note whose frontmatter is broken is still indexed, as plain text, with the problem recorded.

Hidden folders (`.obsidian`, `.trash`, `.git`) and symlinks are skipped: a link could lead
outside the vault or into a loop.
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import re
from dataclasses import dataclass
from datetime import date, datetime, time
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from engram.core.models import ID_PATTERN
from engram.core.notes import Note

MAX_NOTE_BYTES = 5_000_000  # a larger file is indexed by its name only
TOO_LARGE = f"larger than {MAX_NOTE_BYTES:,} bytes"  # how a note's problem begins then
MAX_ALIASES = 100  # a note's other names indexed at most
MAX_FRONTMATTER_NODES = 10_000  # values beyond this are dropped (YAML aliases can multiply)
MAX_DEPTH = 20

log = logging.getLogger(__name__)

_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_FENCE_OPEN = re.compile(r"(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"`[^`\n]*`")
# Both start with a literal, so the regex engine can skip ahead to candidates quickly.
_LINK = re.compile(r"\[\[([^\[\]|#^\n]*)(?:[#^][^\[\]|\n]*)?(?:\|[^\[\]\n]*)?\]\]")
_INLINE_TAG = re.compile(r"#([\w/-]+)")
_TAG_MAY_FOLLOW = frozenset(" \t\n\r\f\v([{,;")
# A first-level heading's line; its closing #s are cut by `_heading_text`. (One pattern doing
# both, lazy text then optional spaces and #s, took cubic time on a long line of spaces.)
_HEADING = re.compile(r"^#[ \t]+(\S.*)$", re.MULTILINE)
_TAG_SPLIT = re.compile(r"[,\s]+")


@dataclass(frozen=True)
class FileEntry:
    path: str  # relative to the vault, with `/`
    mtime_ns: int
    size: int


# Longer vault-relative paths are not indexed, on any backend: PostgreSQL's b-tree keys stop
# at 2,704 bytes, and one such note failed a whole index run there (the path is the note's key).
MAX_PATH_BYTES = 2_000


def a_note(rel: str) -> bool:
    """Whether a path relative to the vault is one a note may have, as `scan` finds them: a
    `.md` file outside hidden folders (`.obsidian`, `.trash`)."""
    return rel.lower().endswith(".md") and not any(p.startswith(".") for p in rel.split("/"))


def an_attachment(root: Path, target: str) -> bool:
    """Whether a link's target is a file of the vault that is no note (`![[diagram.png]]`),
    by its path or, as Obsidian finds one, by its name anywhere outside hidden folders: listed
    as an unresolved link, it read as broken (a probe)."""
    name = PurePosixPath(target.strip())
    if not name.suffix or name.suffix.lower() == ".md" or name.is_absolute() or ".." in name.parts:
        return False
    if (root / name).is_file():
        return True
    return any(
        found.is_file() and not any(p.startswith(".") for p in found.relative_to(root).parts)
        for found in root.rglob(name.name)
    )


def scan(root: Path) -> list[FileEntry]:
    """Every `*.md` file under `root`, sorted by path, without following symlinks."""
    found: list[FileEntry] = []
    stack = [(root, "")]
    while stack:
        directory, prefix = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue  # unreadable or vanished folder: skipped, like Obsidian does
        for entry in entries:
            if entry.name.startswith("."):
                continue
            rel = f"{prefix}{entry.name}"
            if not _utf8(rel):
                # A name that is not UTF-8 (undecodable bytes, kept as surrogates) cannot be
                # stored in the index: one such file failed every index run and unified search.
                log.warning("vault: %r is skipped: its name is not UTF-8", rel)
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append((Path(entry.path), rel + "/"))
                elif entry.is_file(follow_symlinks=False) and entry.name.lower().endswith(".md"):
                    if len(rel.encode("utf-8")) > MAX_PATH_BYTES:
                        log.warning("vault: %r is skipped: its path is too long to index", rel)
                        continue
                    info = entry.stat(follow_symlinks=False)
                    found.append(FileEntry(rel, info.st_mtime_ns, info.st_size))
            except OSError:
                continue
    found.sort(key=lambda e: e.path)
    return found


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class UnreadableNote(Exception):
    """A note that is there but cannot be read (its permissions, a sync client's lock): the
    index keeps what it knew of it and says why, rather than fail for every other note."""


def read_file(root: Path, rel: str) -> tuple[bytes, int, int] | None:
    """(content, mtime_ns, size) of one note, read consistently; None if it vanished."""
    try:
        with open(root.joinpath(*rel.split("/")), "rb") as handle:
            info = os.fstat(handle.fileno())
            data = handle.read(MAX_NOTE_BYTES + 1)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    except OSError as exc:
        raise UnreadableNote(f"cannot be read ({exc.strerror or exc})") from exc
    return data, info.st_mtime_ns, info.st_size


def readable(root: Path, rel: str) -> tuple[bytes, int, int] | None:
    """`read_file` for the callers that only look: an unreadable note counts as absent."""
    try:
        return read_file(root, rel)
    except UnreadableNote:
        return None


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


# The line of a note's frontmatter naming its memory, for a note whose frontmatter is not YAML.
ENGRAM_ID_LINE = re.compile(r"""^engram_id:[ \t]*['"]?([^'"\s]+)['"]?[ \t]*$""", re.MULTILINE)


# A list item that is one wikilink and nothing else: a note's Related section as Engram writes
# it ("- [[Engram/the-team-meets-at-cafe-zurich|The team meets at Café Zürich on Thursdays]]").
_LINK_ITEM = re.compile(r"^[ \t]*[-*+][ \t]+" + _LINK.pattern + r"[ \t]*$\n?", re.MULTILINE)


def for_search(note: Note) -> Note:
    """`note` as the index searches it: without its lists of links, which name other notes by
    what those said when linked. A memory corrected after its note was linked left its old
    words in the links to it, and unified search found the other note by them at rank 1.0
    (a vault probe: "Café Zürich Thursdays" found Lena's birthday). The links stay in
    `links`, and in the file."""
    if "[[" not in note.body:
        return note
    return note.model_copy(update={"body": _LINK_ITEM.sub("", note.body)})


def indexed_note(path: str, data: bytes, mtime_ns: int, size: int, digest_: str = "") -> Note:
    """`parse_note` as the index searches it (`for_search`)."""
    return for_search(parse_note(path, data, mtime_ns=mtime_ns, size=size, digest_=digest_))


def parse_note(
    path: str, data: bytes, *, mtime_ns: int = 0, size: int = 0, digest_: str = ""
) -> Note:
    """Everything the index keeps of one note."""
    stem = path.rsplit("/", 1)[-1]
    stem = stem[:-3] if stem.lower().endswith(".md") else stem
    state = {"mtime_ns": mtime_ns, "size": size, "digest": digest_ or digest(data)}
    if len(data) > MAX_NOTE_BYTES:
        return Note(
            path=path, title=stem, problem=f"{TOO_LARGE}: indexed by its name only", **state
        )
    text, encoding = _decoded(data)
    meta, body, problem = split_frontmatter(text)
    if encoding is not None and problem is None:
        problem = f"not UTF-8: read as {encoding}"
    prose = _INLINE_CODE.sub(" ", without_fenced_code(body))
    title = _title(meta, prose, stem)
    tags = _merge([*_frontmatter_tags(meta), *_inline_tags(prose)])
    links = _merge(t.strip() for t in _LINK.findall(prose) if t.strip()) if "[[" in prose else []
    engram_id = meta.get("engram_id")
    if engram_id is None and problem is not None:
        # Frontmatter the user broke still names its memory by its line: unified search showed
        # the memory and its note as two results (a probe), though the note is the memory's.
        named = ENGRAM_ID_LINE.search(text)
        engram_id = named.group(1) if named else None
    return Note(
        path=path,
        title=title,
        tags=tuple(tags),
        aliases=tuple(_frontmatter_aliases(meta)),
        links=tuple(links),
        body=body,
        frontmatter=meta,
        # Only an id a memory can have names one: another ("abc\0def") failed the whole index
        # run on PostgreSQL, whose text cannot hold a NUL (audit).
        engram_id=engram_id if isinstance(engram_id, str) and ID_PATTERN.match(engram_id) else None,
        problem=problem,
        **state,
    )


def _decoded(data: bytes) -> tuple[str, str | None]:
    """The note's text, and the encoding it was read in when not UTF-8. A note saved by an
    older editor as Windows-1252 was indexed with a replacement character for every accent
    ("Cr�me br�l�e"), found by no accented word, and said nothing (a helper's probe)."""
    try:
        return data.decode("utf-8").lstrip("\ufeff"), None
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252"), "Windows-1252"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "Latin-1"


def without_fenced_code(text: str) -> str:
    """The text with each fenced code block replaced by a space: tags and links in code are
    not the note's."""
    return "".join(part if prose else " " for part, prose in fenced_parts(text))


def prose_parts(text: str) -> list[tuple[str, bool]]:
    """The text cut into pieces, each marked prose (True) or code (False): fenced blocks and
    inline code spans are code. Joined, the pieces are the text. What rewrites links in a note
    (a rename followed) leaves code as it is, as the index and Obsidian do."""
    out: list[tuple[str, bool]] = []
    for part, prose in fenced_parts(text):
        if not prose:
            out.append((part, False))
            continue
        at = 0
        for span in _INLINE_CODE.finditer(part):
            out += [(part[at : span.start()], True), (span.group(), False)]
            at = span.end()
        out.append((part[at:], True))
    return out


def fenced_parts(text: str) -> list[tuple[str, bool]]:
    """The text cut at fenced code blocks (``` or ~~~), each piece marked prose (True) or code
    (False). One pass over the lines, so a hostile note (thousands of fences that never close)
    costs linear time; a regex that looked for each fence's end took minutes on 100 KB. As in
    CommonMark (and Obsidian), a block closes at a line of only the same fence character, at
    least as many as opened it, and an unclosed block runs to the end."""
    out: list[tuple[str, bool]] = []
    current: list[str] = []
    fence = ""
    for line in text.splitlines(keepends=True):
        if not fence:
            opened = _FENCE_OPEN.match(line)
            # A backtick fence's info string may not contain a backtick (CommonMark).
            if opened and not (opened[1][0] == "`" and "`" in line[opened.end() :]):
                out.append(("".join(current), True))
                current, fence = [line], opened[1]
            else:
                current.append(line)
            continue
        current.append(line)
        closing = line.strip()
        if closing.startswith(fence) and closing == fence[0] * len(closing):
            out.append(("".join(current), False))
            current, fence = [], ""
    out.append(("".join(current), not fence))
    return [(part, prose) for part, prose in out if part]


def split_frontmatter(text: str) -> tuple[dict[str, Any], str, str | None]:
    """(frontmatter, body, problem). A note without frontmatter has an empty mapping; with a
    broken one, the mapping is empty, the body is the whole text and the problem says why."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip() != "---":
        return {}, text, None
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if end is None:
        return {}, text, "frontmatter: the opening '---' has no closing '---' line"
    raw = "".join(lines[1:end])
    body = "".join(lines[end + 1 :])
    try:
        loaded = yaml.load(raw, Loader=_LOADER)
    except yaml.YAMLError as exc:
        reason = " ".join(str(exc).split())
        return {}, text, f"frontmatter is not valid YAML ({reason[:200]})"
    except RecursionError:
        return {}, text, "frontmatter is nested too deeply"
    except (ValueError, OverflowError) as exc:  # a date that is none: `date: 2024-02-30`
        return {}, text, f"frontmatter holds an impossible value ({exc})"
    if loaded is None:
        return {}, body, None
    if not isinstance(loaded, dict):
        return {}, text, f"frontmatter is a YAML {type(loaded).__name__}, not a mapping"
    budget = [MAX_FRONTMATTER_NODES]
    return {_clean(str(k)): _plain(v, 0, budget) for k, v in loaded.items()}, body, None


def _plain(value: Any, depth: int, budget: list[int]) -> Any:
    """A JSON-ready copy of a YAML value (dates as ISO text), bounded in size and depth."""
    budget[0] -= 1
    if budget[0] < 0 or depth > MAX_DEPTH:
        return None
    if isinstance(value, str):
        return _clean(value)
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, dict):
        return {_clean(str(k)): _plain(v, depth + 1, budget) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [_plain(v, depth + 1, budget) for v in value]
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


def _heading_text(line: str) -> str:
    """A heading without its closing sequence: #s after a space ("Title ##"), not those
    that are part of the text ("Learning C#")."""
    text = line.rstrip(" \t\r")  # a note with CRLF line ends leaves the \r on the line
    bare = text.rstrip("#")
    if bare != text and (not bare or bare[-1] in " \t"):
        return bare.rstrip(" \t")
    return text


def _clean(text: str) -> str:
    """A lone surrogate ("\ud83d" escaped in YAML) cannot be stored or sent as UTF-8."""
    return text if _utf8(text) else text.encode("utf-8", "replace").decode("utf-8")


def _title(meta: dict[str, Any], prose: str, stem: str) -> str:
    title = meta.get("title")
    if isinstance(title, str) and title.strip():
        return " ".join(title.split())
    heading = _HEADING.search(prose)
    if heading:
        text = " ".join(_heading_text(heading.group(1)).split())
        if text:
            return text
    return stem


def _frontmatter_tags(meta: dict[str, Any]) -> list[str]:
    raw = meta.get("tags", meta.get("tag"))
    items: list[Any] = raw if isinstance(raw, list) else [raw]
    out: list[str] = []
    for item in items:
        if isinstance(item, str):
            out += [t.lstrip("#") for t in _TAG_SPLIT.split(item) if t.lstrip("#")]
        elif isinstance(item, int | float) and not isinstance(item, bool):
            out.append(str(item))
    return out


def _frontmatter_aliases(meta: dict[str, Any]) -> list[str]:
    """Obsidian's other names for a note (`aliases:`, or the older `alias:`), a list or one
    string: searched as its title is."""
    raw = meta.get("aliases", meta.get("alias"))
    items: list[Any] = raw if isinstance(raw, list) else [raw]
    names = (" ".join(str(a).split()) for a in items if isinstance(a, str | int | float))
    return _merge(n for n in names if n)[:MAX_ALIASES]


def _inline_tags(prose: str) -> list[str]:
    """`#tag` at the start of a line or after a space or opening bracket (not `a#b`, not a URL
    fragment), with at least one character that is not a digit."""
    tags = []
    for match in _INLINE_TAG.finditer(prose):
        start = match.start()
        if start and prose[start - 1] not in _TAG_MAY_FOLLOW:
            continue
        tag = match.group(1).strip("/-")
        if tag and not tag.replace("/", "").isdigit():
            tags.append(tag)
    return tags


def _merge(values: Any) -> list[str]:
    """Distinct, first spelling kept, compared ignoring case."""
    seen: dict[str, str] = {}
    for v in values:
        seen.setdefault(v.casefold(), v)
    return list(seen.values())
