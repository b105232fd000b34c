"""Memory → Markdown note, as pure text functions: frontmatter, file-name slug, tags, wikilinks.

Nothing here touches the disk. The frontmatter is written by PyYAML's safe serializer, so any
text a memory holds (colons, quotes, `---`, line breaks, unicode, very long lines) reads back
unchanged with any YAML parser; `writer.py` decides where the text goes.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import yaml

from engram.core.file_names import RESERVED_NAMES
from engram.core.models import Memory
from engram.core.notes import link_key, link_name
from engram.vault.index import fenced_parts, prose_parts, split_frontmatter

SLUG_MAX_BYTES = 80  # leaves room for a collision suffix, ".md" and any file system's 255
TITLE_MAX = 100
RELATED_HEADING = "Related"
# The Obsidian tag a note gets when it and its memory changed apart (`rewrite_note`): the user
# finds those notes by it, and `vault status` counts them through the index.
CONFLICT_TAG = "engram-conflict"
CONFLICT_CALLOUT = (
    f"> [!warning] #{CONFLICT_TAG}\n"
    "> This note was edited in the vault and its memory changed in Engram too. The memory's new "
    "text is above; the note as it was in the vault is below. Keep what is right, then delete "
    "this callout.\n"
)
# A note whose frontmatter could not be read, rewritten: said so, not "its memory changed" of a
# change of tags alone (a vault probe), and its old frontmatter in a code block below, which as
# text ended in a "---" line that Obsidian showed as a heading.
UNREADABLE_CALLOUT = (
    f"> [!warning] #{CONFLICT_TAG}\n"
    "> This note's frontmatter could not be read, so Engram wrote its own above with the "
    "memory's text. The note as it was in the vault is below, its frontmatter in a code block. "
    "Keep what is right, then delete this callout.\n"
)

_NOT_WORD = re.compile(r"[^\w]+")
_DASHES = re.compile(r"-{2,}")
_TAG_DROP = re.compile(r"[^\w/-]+")
_SPACES = re.compile(r"\s+")
_ALIAS_DROP = re.compile(r"[\[\]|#^\r\n]+")
_LINK = re.compile(r"!?\[\[([^\[\]|#^\n]*)")
# Characters YAML treats as line breaks or cannot print: strings holding them are written in
# the double-quoted style, where they are escapes.
_NEEDS_QUOTES = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\ufeff]")


@dataclass(frozen=True)
class NoteSpec:
    """Everything a promoted memory's note is made of."""

    memory: Memory
    note_id: str  # the slug the note was created under
    promoted_at: datetime
    score: float
    reason: str
    related: Sequence[str] = ()  # wikilinks, already formatted


_RULE_OR_FENCE = re.compile(r"[-*_=`~ ]+")


def title_of(content: str) -> str:
    """The first line that is no Markdown rule or fence ("---" or "***" above the text was a
    note's title), without heading marks, at most TITLE_MAX characters."""
    for line in content.splitlines():
        text = _SPACES.sub(" ", line.strip().lstrip("#").strip())
        if text and not _RULE_OR_FENCE.fullmatch(text):
            return text if len(text) <= TITLE_MAX else text[: TITLE_MAX - 1].rstrip() + "…"
    return "Untitled memory"


def slugify(text: str, fallback: str = "memory") -> str:
    """A file-name-safe slug: lower-case words (any script) joined by `-`.

    Only word characters and `-` survive, so no separator, dot, NUL or drive letter can reach
    a file name; it is cut to SLUG_MAX_BYTES of UTF-8 at a word boundary, and Windows' reserved
    device names get a suffix.
    """
    words = _dashed(unicodedata.normalize("NFKC", text).casefold()).strip("-_")
    slug = _fit(words) or _fit(_NOT_WORD.sub("-", fallback.casefold()).strip("-_")) or "note"
    if slug in RESERVED_NAMES:
        slug += "-note"
    return slug


def _dashed(text: str) -> str:
    """Runs of what is neither a word character nor a combining mark as one `-`. The marks
    belong to their words (Hindi's vowel signs, Arabic's harakat): "नमस्ते" was cut at them."""
    if text.isascii():
        return _NOT_WORD.sub("-", text)
    kept: list[str] = []
    for c in text:  # a mark only after a letter it can belong to, never alone
        word = c.isalnum() or c == "_"
        mark = unicodedata.category(c).startswith("M") and kept and kept[-1] != "-"
        kept.append(c if word or mark else "-")
    return _DASHES.sub("-", "".join(kept))


def _fit(slug: str) -> str:
    if len(slug.encode()) <= SLUG_MAX_BYTES:
        return slug
    cut = slug.encode()[:SLUG_MAX_BYTES].decode(errors="ignore")
    if "-" in cut[1:]:
        cut = cut[: cut.rindex("-")]
    return cut.strip("-_")


def obsidian_tag(tag: str) -> str | None:
    """A memory tag as an Obsidian tag (letters, digits, `_`, `-`, `/` for nesting, not only
    digits), or None if nothing usable is left."""
    text = _SPACES.sub("-", unicodedata.normalize("NFKC", tag).strip())
    text = _TAG_DROP.sub("", text)
    text = "/".join(part.strip("-") for part in text.split("/") if part.strip("-"))
    if not text:
        return None
    if not re.search(r"[^\d/]", text):
        text = "_" + text
    return text


def obsidian_tags(tags: Sequence[str]) -> list[str]:
    out: dict[str, str] = {}
    for tag in tags:
        converted = obsidian_tag(tag)
        if converted:
            out.setdefault(converted.casefold(), converted)
    return list(out.values())


def can_link(path: str) -> bool:
    """Whether a wikilink can name this note: one renamed (outside Obsidian, which refuses
    such names) to a name with `[`, `]`, `|`, `#` or `^` cannot, as the link's target ends
    there (`[[Deploys #2]]` is note "Deploys", heading "2")."""
    return not _NOT_IN_LINKS.search(path.removesuffix(".md"))


def wikilink(path: str, title: str) -> str:
    """`[[Folder/note|Title]]` for a vault-relative path; the alias is the readable title.
    The path must be one a link can name (`can_link`)."""
    target = path[:-3] if path.endswith(".md") else path
    alias = _SPACES.sub(" ", _ALIAS_DROP.sub(" ", title)).strip()
    return f"[[{target}|{alias}]]" if alias and alias != target else f"[[{target}]]"


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def frontmatter(spec: NoteSpec) -> dict[str, Any]:
    m = spec.memory
    data: dict[str, Any] = {
        "title": title_of(m.content),
        "id": spec.note_id,
        "engram_id": m.id,
        "created": iso(m.created_at),
        "promoted": iso(spec.promoted_at),
        "tags": obsidian_tags(m.tags),
        "entities": list(m.entities),
    }
    data |= _said_of(m)
    data.update(
        use_count=m.use_count,
        strength=round(m.strength, 6),
        score=round(spec.score, 6),
        promotion_reason=spec.reason,
    )
    return data


class _Dumper(yaml.SafeDumper):
    """SafeDumper that double-quotes strings holding line breaks or control characters (the
    style where they are escapes), and never wraps long lines."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = '"' if _NEEDS_QUOTES.search(value) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _represent_str)


def dump_yaml(data: dict[str, Any]) -> str:
    return yaml.dump(
        data,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=1_000_000_000,
    )


_ID_LINE = re.compile(r"^engram_id[ \t]*:.*$", re.MULTILINE)


def with_engram_id(text: str, memory_id: str) -> str:
    """The note with `engram_id: <id>` in its frontmatter, everything else exactly as the
    user wrote it (comments, dates, `yes`, key order). Reading the frontmatter and dumping it
    again would retype values (a date became text, `yes` became `true`) and drop comments, so
    that is done only where one added line does not give the id (frontmatter written as one
    `{...}` mapping, an `engram_id:` with a value on the lines below it). ValueError if neither
    does (frontmatter that is not valid YAML)."""
    for written in (_id_line_added(text, memory_id), _id_dumped(text, memory_id)):
        if written is not None and split_frontmatter(written)[0].get("engram_id") == memory_id:
            return written
    raise ValueError("its frontmatter cannot take an engram_id (it is not a valid YAML mapping)")


def _id_dumped(text: str, memory_id: str) -> str | None:
    meta, body, problem = split_frontmatter(text)
    if problem is not None:
        return None
    return "---\n" + dump_yaml({**meta, "engram_id": memory_id}) + "---\n" + body


def _id_line_added(text: str, memory_id: str) -> str:
    line = f"engram_id: {memory_id}"
    lines = text.splitlines(keepends=True)
    if lines and lines[0].rstrip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
        if end is not None:
            head = "".join(lines[1:end])
            if _ID_LINE.search(head):  # an empty or null engram_id: filled in
                head = _ID_LINE.sub(lambda _: line, head, count=1)
            else:
                head += ("" if not head or head.endswith("\n") else "\n") + line + "\n"
            return lines[0] + head + "".join(lines[end:])
    return f"---\n{line}\n---\n{text}"


@dataclass(frozen=True)
class Rewrite:
    text: str
    conflict: bool  # both versions kept, with CONFLICT_CALLOUT between them


_LINE_END = re.compile(r"[ \t]*(\n|$)")  # the rest of a line that holds nothing more


def rewrite_note(text: str, before: Memory, after: Memory) -> Rewrite:
    """A promoted memory's note after the memory changed.

    What Engram owns: the frontmatter fields that mirror the memory (title, tags, entities,
    source, context, use count, strength) and the memory's text at the start of the body.
    Everything else — other frontmatter keys, text and sections the user added below,
    the Related links — is kept as it is. If the body no longer starts with the memory's old
    text (the user edited it in the vault), neither side wins silently: the memory's new text
    comes first, then a callout tagged CONFLICT_TAG, then the note's body as the user left it.
    """
    meta, body, problem = split_frontmatter(text)
    head: str | None = None
    if problem is None:
        # Only the fields whose value changed, each in place: the user's other keys,
        # comments and ways of writing values stay as they are (all was dumped anew: a
        # comment was lost, `reviewed: 2024-01-05` became a string, a tag added in Obsidian
        # was dropped when only the text had changed).
        now, was = _mirrored(after), _mirrored(before)
        if now["tags"] != was["tags"]:  # the memory's own changed: the note's join them
            now["tags"] = [*now["tags"], *_tags_added_in_the_vault(meta, was["tags"], now["tags"])]
        changed = {key: value for key, value in now.items() if was.get(key) != value}
        if "title" not in meta:  # a note of the user's (`vault import`): its file names it
            changed.pop("title", None)  # it was listed by its memory's new first sentence
        head = _keys_rewritten(text, changed, drop=set(was) - set(now))
        if head is None:
            meta.update(now)
    else:  # unreadable frontmatter: ours is written again, the rest is kept as body text
        meta = _mirrored(after) | {"engram_id": after.id}
        body = text
    if problem is None and before.content == after.content:
        # Only tags, strength or the like changed: the body is not Engram's to touch. It was
        # rebuilt from the memory's text, so the user's edit in the vault was put back under
        # a conflict callout, and so was a link Engram itself retargeted after a rename.
        return Rewrite("---\n" + (head or dump_yaml(meta)) + "---\n" + body, False)
    old, new = before.content.strip("\n"), after.content.strip("\n")
    # Blank lines and indentation around the text are not an edit: a note brought in by
    # `engram vault import` keeps its body as written, its memory the body stripped (or the
    # title, when the body is empty).
    # Both sides are compared without them: a memory that starts indented (a code snippet)
    # was compared with a body stripped of its indentation, and got a false conflict.
    rest, old = body.lstrip(), old.lstrip()
    unedited = not rest or (rest.startswith(old) and _LINE_END.match(rest, len(old)) is not None)
    if problem is None and unedited:
        rebuilt, conflict = new + rest[len(old) :], False
    elif problem is None:
        rebuilt, conflict = f"{new}\n\n{CONFLICT_CALLOUT}\n{rest}", True
    else:
        rebuilt, conflict = f"{new}\n\n{UNREADABLE_CALLOUT}\n{_fenced_frontmatter(rest)}", True
    if not rebuilt.endswith("\n"):
        rebuilt += "\n"
    return Rewrite("---\n" + (head or dump_yaml(meta)) + "---\n\n" + rebuilt, conflict)


def _fenced_frontmatter(text: str) -> str:
    """`text` with the frontmatter it opens with (up to its closing line) in a code block."""
    lines = text.splitlines(keepends=True)
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if not lines or lines[0].rstrip() != "---" or end is None:
        return text
    fence = "~~~~" if any(line.startswith("~~~") for line in lines[: end + 1]) else "~~~"
    block = "".join(lines[: end + 1])
    if not block.endswith("\n"):
        block += "\n"
    return f"{fence}yaml\n{block}{fence}\n" + "".join(lines[end + 1 :])


def _keys_rewritten(text: str, values: dict[str, Any], drop: set[str]) -> str | None:
    """The note's frontmatter lines with the top-level keys of `values` written anew (where
    they stand, or at the end) and those of `drop` removed, every other line as it was; None
    when that does not read back as intended (then the caller writes the mapping whole)."""
    lines = text.splitlines(keepends=True)
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if not lines or lines[0].rstrip() != "---" or end is None:
        return None
    head = lines[1:end]
    if head and not head[-1].endswith("\n"):
        head[-1] += "\n"
    for key in [*values, *drop]:
        start = next((i for i, line in enumerate(head) if _starts_key(line, key)), None)
        block = [] if key in drop else dump_yaml({key: values[key]}).splitlines(keepends=True)
        if start is None:
            head += block
            continue
        head[start : _value_end(head, start)] = block
    written = "".join(head)
    read, _, problem = split_frontmatter(f"---\n{written}---\n")
    expected, _, _ = split_frontmatter(f"---\n{dump_yaml(values)}---\n")
    if problem is not None or any(read.get(k) != v for k, v in expected.items()):
        return None
    return None if any(key in read for key in drop) else written


def _tags_added_in_the_vault(meta: dict[str, Any], was: list[str], now: list[str]) -> list[str]:
    """The note's tags its memory never had: added in Obsidian, they stay when Engram writes
    the memory's tags (a tags update dropped them without a word: a helper's probe)."""
    held = meta.get("tags")
    if not isinstance(held, list):
        return []
    ours = {*was, *now}
    return [t for t in dict.fromkeys(held) if isinstance(t, str) and t and t not in ours]


def _value_end(head: list[str], start: int) -> int:
    """Where the value of the key on line `start` ends: its lines below it (a list, a block of
    text), over blank lines and comments between them. A blank line or a comment in a tags
    list ended it there, the check failed, and the whole frontmatter was written anew: the
    user's title, comments and dates with it (a helper's probe)."""
    stop = start + 1
    while True:
        ahead = stop
        while ahead < len(head) and (not head[ahead].strip() or head[ahead].startswith("#")):
            ahead += 1
        if ahead == len(head) or not head[ahead].startswith((" ", "\t", "- ")):
            return stop
        stop = ahead + 1


def _starts_key(line: str, key: str) -> bool:
    """Whether the line opens the top-level `key` (plain or quoted)."""
    name = re.escape(key)
    return re.match(rf"""(?:{name}|"{name}"|'{name}')[ \t]*:""", line) is not None


def _mirrored(m: Memory) -> dict[str, Any]:
    data: dict[str, Any] = {
        "title": title_of(m.content),
        "tags": obsidian_tags(m.tags),
        "entities": list(m.entities),
        "use_count": m.use_count,
        "strength": round(m.strength, 6),
    }
    return data | _said_of(m)


def _said_of(m: Memory) -> dict[str, str]:
    """Where a memory came from and its context, only when it has them: `source: null` was an
    empty property on every note in Obsidian (a vault probe)."""
    return {k: v for k, v in (("source", m.source), ("context", m.context)) if v is not None}


def render_note(spec: NoteSpec) -> str:
    """The whole note: frontmatter (with the title), the content as it is, and a Related
    section of wikilinks."""
    content = spec.memory.content.strip("\n")
    parts = ["---\n", dump_yaml(frontmatter(spec)), "---\n\n", content, "\n"]
    if spec.related:
        parts.append(f"\n## {RELATED_HEADING}\n\n")
        parts.extend(f"- {link}\n" for link in spec.related)
    return "".join(parts)


def links_to(text: str, path: str) -> bool:
    """Whether the text already holds a wikilink to the note at `path`: by its path, or by
    its bare name (`[[Dana]]` for `People/Dana.md`, as Obsidian resolves it; a second link
    by path was added under Related)."""
    key, name = link_key(path), link_name(path)
    targets = [link_key(target) for target in _LINK.findall(text)]
    return any(t == key or ("/" not in t and t == name) for t in targets)


_LINK_TARGET = re.compile(r"(!?\[\[)([^\[\]|#^\n]*)")
# What ends a wikilink's target: a note named with one can be linked to by no wikilink.
_NOT_IN_LINKS = re.compile(r"[\[\]|#^]")


@dataclass(frozen=True)
class NoteMove:
    """A note renamed or moved (`old_path` to `new_path`), as `retarget_links` follows it."""

    old_path: str
    new_path: str
    name_taken: bool = False  # another note has the old name now
    new_name_shared: bool = False  # another note has the new name too


def retarget_links(text: str, moves: Sequence[NoteMove]) -> str | None:
    """The text with its wikilinks to each moved note pointed at its new path (a note renamed
    or moved outside Obsidian, which would otherwise leave them dangling); aliases and headings
    are kept. A link by full path is rewritten; a link by bare name only if the name changed (a
    bare name still finds a note moved to another folder) and no other note has the old name
    (`name_taken`): then the link finds that one, as it may always have (a link to the root
    `Atlas` was pointed at a renamed `Projects/Atlas`). A bare link becomes a link by path when
    another note has the new name too (`new_name_shared`): Obsidian would resolve the bare name
    to that other note. Every link is rewritten once, by the first move it matches: two notes
    that swapped names swap their links (one move after the other made all of them point at
    one note). None if nothing changed."""
    rules = []
    for move in moves:
        new_target = move.new_path.removesuffix(".md")
        if not can_link(new_target):
            continue  # no wikilink can name it ("Atlas [draft] #2"): left as it was
        old_name = link_name(move.old_path)
        renamed = old_name != link_name(move.new_path) and not move.name_taken
        rules.append((link_key(move.old_path), old_name if renamed else None, new_target, move))

    def swap(match: re.Match[str]) -> str:
        # In a table a link's "|" is written "\|": the backslash ends the target as read, and
        # is kept (rewritten without it, the row gained a column; a helper's probe).
        target = match.group(2)
        escape = "\\" if target.endswith("\\") else ""
        key = link_key(target.removesuffix("\\"))
        for old_key, old_name, new_target, move in rules:
            if key == old_key or ("/" not in key and key == old_name):
                bare = "/" not in key and not move.new_name_shared
                new = new_target.rsplit("/", 1)[-1] if bare else new_target
                return match.group(1) + new + escape
        return match.group(0)

    # Links in code are examples, not links (the index leaves them out, and Obsidian too).
    updated = "".join(
        _LINK_TARGET.sub(swap, part) if prose else part for part, prose in prose_parts(text)
    )
    return updated if updated != text else None


def add_related_link(text: str, link: str, path: str) -> str | None:
    """The note text with `link` (to the note at `path`) added under its Related heading,
    creating the section at the end if needed; None if it already links there."""
    return None if links_to(text, path) else add_related_item(text, link)


def add_related_item(text: str, item: str) -> str:
    """The note text with `item` as a list item under its Related heading, creating the
    section at the end if needed."""
    lines = text.splitlines(keepends=True)
    heading = re.compile(rf"^#{{1,6}}\s+{RELATED_HEADING}\s*$", re.IGNORECASE)
    # The last such heading outside code: the note's own section comes after the memory's
    # text, and a "## Related" in a code block of that text (a template) took the link into
    # the code, where it was no link and, changing the memory's text, a conflict (audit).
    prose = _prose_lines(text)
    start = next(
        (
            i
            for i in range(len(lines) - 1, -1, -1)
            if prose[i] and heading.match(lines[i].rstrip("\r\n"))
        ),
        None,
    )
    if start is None:
        body = text if text.endswith("\n") or not text else text + "\n"
        return f"{body}\n## {RELATED_HEADING}\n\n- {item}\n"
    end = len(lines)
    for i in range(start + 1, len(lines)):
        if re.match(r"^#{1,6}\s", lines[i]):
            end = i
            break
    last = start
    for i in range(start + 1, end):
        if lines[i].strip():
            last = i
    if not lines[last].endswith("\n"):
        lines[last] += "\n"
    insert = f"- {item}\n" if last > start else f"\n- {item}\n"
    lines.insert(last + 1, insert)
    return "".join(lines)


def _prose_lines(text: str) -> list[bool]:
    """For each line of the text, whether it is outside fenced code blocks."""
    out: list[bool] = []
    for part, prose in fenced_parts(text):
        out += [prose] * len(part.splitlines(keepends=True))
    return out
