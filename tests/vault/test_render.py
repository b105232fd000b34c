"""Rendering a memory as a note: the frontmatter survives any content through a real YAML
parser (PyYAML and python-frontmatter), slugs and tags are safe, links are Obsidian's."""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from typing import Any

import frontmatter
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engram.core.models import Memory
from engram.vault.index import parse_note, prose_parts
from engram.vault.render import (
    CONFLICT_TAG,
    RESERVED_NAMES,
    SLUG_MAX_BYTES,
    NoteMove,
    NoteSpec,
    add_related_link,
    links_to,
    obsidian_tag,
    render_note,
    retarget_links,
    rewrite_note,
    slugify,
    title_of,
    wikilink,
    with_engram_id,
)

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)

# Text that breaks naive YAML or Markdown: colons, quotes, document markers, comments, line
# breaks of every kind, YAML 1.1 booleans, unicode from every plane.
hostile = st.one_of(
    st.text(min_size=1, max_size=300),
    st.sampled_from(
        [
            "key: value",
            "'single' \"double\"",
            "---",
            "...",
            "a\n---\nb",
            "# not a comment",
            "yes",
            "null",
            "1.0",
            "- item",
            "[[x]] {y} |z|",
            "tab\there",
            "\x85 next line \u2028 line sep \u2029 para",
            "emoji 🧠 — ünïcode",
            "x" * 5_000,
            "  leading and trailing  ",
            "!!python/object:os.system",
            "&anchor *alias",
        ]
    ),
)
nonblank = hostile.filter(lambda s: s.strip() != "")


def memory(content: str, **fields: Any) -> Memory:
    base: dict[str, Any] = {
        "id": "m-1",
        "content": content,
        "created_at": T0 - timedelta(days=3),
        "last_used": T0,
        "use_count": 5,
        "strength": 1.3,
    }
    return Memory(**(base | fields))


def note(m: Memory, related: tuple[str, ...] = ()) -> str:
    spec = NoteSpec(
        memory=m, note_id="the-slug", promoted_at=T0, score=2.5, reason="usage", related=related
    )
    return render_note(spec)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    content=nonblank,
    source=hostile,
    context=hostile,
    tags=st.lists(nonblank, max_size=5),
    entities=st.lists(nonblank, max_size=5),
)
def test_any_content_round_trips_through_yaml_and_frontmatter(
    content: str, source: str, context: str, tags: list[str], entities: list[str]
) -> None:
    m = memory(content, source=source, context=context, tags=tuple(tags), entities=tuple(entities))
    text = note(m)

    post = frontmatter.loads(text)
    assert post["source"] == source
    assert post["context"] == context
    assert post["entities"] == entities
    assert post["engram_id"] == "m-1" and post["id"] == "the-slug"
    assert post["title"] == title_of(content)
    assert post["use_count"] == 5 and post["strength"] == 1.3 and post["score"] == 2.5
    assert post["created"] == "2026-02-26T09:30:00Z" and post["promoted"] == "2026-03-01T09:30:00Z"
    assert content.strip("\n") in text

    # The same with plain PyYAML on the block between the first two '---' lines.
    lines = text.split("\n")
    end = lines.index("---", 1)
    assert yaml.safe_load("\n".join(lines[1:end])) == post.metadata
    for tag in post["tags"]:
        assert re.fullmatch(r"[\w/-]+", tag) and not tag.replace("/", "").isdigit()

    # Engram's own index reads it back the same way.
    parsed = parse_note("Engram/the-slug.md", text.encode())
    assert parsed.problem is None and parsed.engram_id == "m-1"
    assert parsed.frontmatter["source"] == source


def test_a_note_has_frontmatter_content_and_related_links() -> None:
    m = memory("Decided on PostgreSQL 16: it has logical replication", tags=("decision", "db"))
    link = wikilink("Engram/atlas-deploys.md", "Atlas deploys on Fridays")
    text = note(m, related=(link,))
    assert text.startswith("---\ntitle: 'Decided on PostgreSQL 16: it has logical replication'\n")
    assert "\ntags:\n- decision\n- db\n" in text
    assert "\n---\n\nDecided on PostgreSQL 16: it has logical replication\n" in text
    assert text.endswith("## Related\n\n- [[Engram/atlas-deploys|Atlas deploys on Fridays]]\n")


def is_mark(char: str) -> bool:
    return unicodedata.category(char).startswith("M")


@given(st.text(max_size=400))
def test_slugs_are_safe_file_names(text: str) -> None:
    slug = slugify(text, fallback="memory-1234")
    # word characters and "-", and the combining marks of a word (never one on its own)
    assert slug and re.fullmatch(r"[\w-]+", "".join(c for c in slug if not is_mark(c)))
    assert not is_mark(slug[0])
    assert not any(a == "-" and is_mark(b) for a, b in pairwise(slug))
    assert len(slug.encode()) <= SLUG_MAX_BYTES
    assert slug.casefold() not in RESERVED_NAMES
    assert not slug.startswith(("-", "_", ".")) or slug == "memory-1234"


def test_slugs_read_well_and_survive_hostile_titles() -> None:
    assert slugify("Decided on PostgreSQL 16!") == "decided-on-postgresql-16"
    assert slugify("../../etc/passwd") == "etc-passwd"
    assert slugify("/absolute/path") == "absolute-path"
    assert slugify("C:\\Windows\\system32") == "c-windows-system32"
    assert slugify("CON") == "con-note" and slugify("nul") == "nul-note"
    assert slugify("a\x00b") == "a-b"
    assert slugify("Ünïcode café 日本語") == "ünïcode-café-日本語"
    # combining marks belong to their words: Hindi's vowel signs, Arabic's harakat
    assert slugify("नमस्ते दुनिया") == "नमस्ते-दुनिया"
    assert slugify("مَرْحَبًا بالعالم") == "مَرْحَبًا-بالعالم"
    assert slugify("!!!", fallback="memory-abcd") == "memory-abcd"
    long = slugify("word " * 100)
    assert len(long.encode()) <= SLUG_MAX_BYTES and not long.endswith("-")
    assert len(slugify("日" * 200).encode()) <= SLUG_MAX_BYTES


def test_obsidian_tags_keep_nesting_and_drop_what_obsidian_refuses() -> None:
    assert obsidian_tag("project/atlas") == "project/atlas"
    assert obsidian_tag("my tag") == "my-tag"
    assert obsidian_tag("../../etc/x") == "etc/x"
    assert obsidian_tag("#hash") == "hash"
    assert obsidian_tag("1984") == "_1984"
    assert obsidian_tag("!!!") is None


def test_titles_are_the_first_line_without_heading_marks() -> None:
    assert title_of("\n\n## Heading here\nbody") == "Heading here"
    assert title_of("a" * 300).endswith("…") and len(title_of("a" * 300)) == 100
    assert title_of("   ") == "Untitled memory"
    # a rule or a fence above the text is no title: a note was titled "---" (an MCP probe)
    assert title_of("---\n***\n\nAtlas runbook\nstep one") == "Atlas runbook"
    assert title_of("---\n---") == "Untitled memory"
    assert title_of("🎉🎉🎉\nparty") == "🎉🎉🎉"  # marks that say something are a title


def test_wikilinks_point_at_the_path_and_show_a_clean_title() -> None:
    assert wikilink("Engram/x.md", "X [draft] | v2") == "[[Engram/x|X draft v2]]"
    assert wikilink("Engram/x.md", "Engram/x") == "[[Engram/x]]"


def test_a_backlink_goes_under_the_related_heading_once() -> None:
    link = "[[Engram/b|B]]"
    with_section = "---\ntitle: A\n---\n\nA\n\n## Related\n\n- [[Engram/c|C]]\n\n## Later\n\nx\n"
    added = add_related_link(with_section, link, "Engram/b.md")
    assert added is not None
    assert "- [[Engram/c|C]]\n- [[Engram/b|B]]\n\n## Later" in added
    assert add_related_link(added, link, "Engram/b.md") is None  # already there
    assert links_to(added, "engram/B.md")

    without = "A user's note\nwithout a trailing newline"
    appended = add_related_link(without, link, "Engram/b.md")
    assert appended == without + "\n\n## Related\n\n- [[Engram/b|B]]\n"


def test_a_rewrite_replaces_only_the_memorys_text_when_it_is_a_whole_line() -> None:
    before = Memory(id="m1", content="Standup at 9:30", created_at=T0, last_used=T0)
    after = before.model_copy(update={"content": "Standup at 10:00"})
    kept = rewrite_note("---\ntitle: x\n---\n\nStandup at 9:30\n\nMine.\n", before, after)
    assert not kept.conflict and kept.text.endswith("\n\nStandup at 10:00\n\nMine.\n")
    # "Standup at 9:300" only starts with the old text: it is the user's, not ours.
    edited = rewrite_note("---\ntitle: x\n---\n\nStandup at 9:300\n", before, after)
    assert edited.conflict and "Standup at 9:300" in edited.text
    assert edited.text.index("Standup at 10:00") < edited.text.index(CONFLICT_TAG)


def test_a_memory_that_starts_indented_is_rewritten_without_a_false_conflict() -> None:
    """A code snippet's first line is indented: the body was compared stripped of that
    indentation with the memory's text as stored, so a tags-only update added a conflict
    callout and a second copy of the code."""
    code = "    def retry(n):\n        return n * 2"
    before = Memory(id="m1", content=code, created_at=T0, last_used=T0)
    note = render_note(NoteSpec(before, "retry", T0, 1.0, "use_count"))
    after = before.model_copy(update={"tags": ("python",)})
    rewrite = rewrite_note(note, before, after)
    assert not rewrite.conflict and CONFLICT_TAG not in rewrite.text
    assert rewrite.text.count("return n * 2") == 1 and code in rewrite.text
    assert "python" in rewrite.text.split("---")[1]


def test_a_change_that_leaves_the_text_alone_leaves_the_body_alone() -> None:
    """A strength or tags update rebuilt the body from the memory's text: the user's edit in
    the vault went under a conflict callout below the old text, and so did a link Engram had
    retargeted itself after a rename."""
    before = Memory(id="m1", content="Atlas ships in May.", created_at=T0, last_used=T0)
    note = "---\nengram: memory\nstrength: 1.0\n---\n\nAtlas ships in June (slipped).\n"
    after = before.model_copy(update={"strength": 1.5, "tags": ("release",)})
    rewrite = rewrite_note(note, before, after)
    assert not rewrite.conflict and CONFLICT_TAG not in rewrite.text
    assert rewrite.text.endswith("---\n\nAtlas ships in June (slipped).\n")
    assert "Atlas ships in May" not in rewrite.text
    post = frontmatter.loads(rewrite.text)
    assert post["strength"] == 1.5 and post["engram"] == "memory"


def test_a_tags_list_with_a_blank_line_or_a_comment_is_rewritten_alone() -> None:
    """A blank line or a comment inside the tags list ended its block early, the in-place
    rewrite failed its check, and the whole frontmatter was written anew: the user's title
    went back, `reviewed: 2024-01-05` became a string, `done: yes` became `true` and the
    comment was lost (a helper's probe)."""
    before = Memory(
        id="m1", content="Standup moved to 9:30", tags=("team",), created_at=T0, last_used=T0
    )
    after = before.model_copy(update={"tags": ("team", "atlas")})
    for gap in ("\n", "# - old-tag\n"):
        head = (
            "---\ntitle: Standup time (my title)\ntags:\n- team\n" + gap + "- meetings\n"
            "reviewed: 2024-01-05\ndone: yes  # my checkbox\n---\n\nStandup moved to 9:30\n"
        )
        text = rewrite_note(head, before, after).text
        assert "title: Standup time (my title)\n" in text, gap
        assert "reviewed: 2024-01-05\ndone: yes  # my checkbox\n" in text, gap
        assert frontmatter.loads(text)["tags"] == ["team", "atlas", "meetings"], gap


def test_a_tag_added_in_obsidian_stays_when_the_memorys_tags_change() -> None:
    """A tags update wrote the memory's tags alone: a tag added to the note in Obsidian was
    dropped without a word (a helper's probe). One the memory dropped goes."""
    before = memory("Atlas ships in May", tags=("team", "old"))
    after = before.model_copy(update={"tags": ("team", "people")})
    note = "---\ntags:\n- team\n- old\n- obsidian-only\n---\n\nAtlas ships in May\n"
    text = rewrite_note(note, before, after).text
    assert frontmatter.loads(text)["tags"] == ["team", "people", "obsidian-only"]


def test_a_rewrite_of_a_note_with_broken_frontmatter_keeps_every_line() -> None:
    before = Memory(id="m2", content="Old", created_at=T0, last_used=T0)
    after = before.model_copy(update={"content": "New"})
    broken = "---\ntitle: [unclosed\n---\n\nOld\n"
    rewrite = rewrite_note(broken, before, after)
    post = frontmatter.loads(rewrite.text)
    assert rewrite.conflict and post["engram_id"] == before.id and post["title"] == "New"
    assert "title: [unclosed" in post.content


def test_a_note_whose_frontmatter_is_unreadable_says_so_and_fences_the_old_one() -> None:
    """A vault probe changed only a memory's tags, and the callout said its text had changed;
    the old frontmatter pasted as text ended in a "---" line, which Obsidian showed as a
    heading. Nothing of the note is lost: its frontmatter is in a code block below."""
    before = Memory(id="m2", content="Atlas ships in May", created_at=T0, last_used=T0)
    after = before.model_copy(update={"tags": ("decision",)})
    broken = "---\nreviewed: [2026-11-20\naliases: [Ship date]\n---\n\nAtlas ships in May\n"
    rewrite = rewrite_note(broken, before, after)
    post = frontmatter.loads(rewrite.text)
    assert rewrite.conflict and post["engram_id"] == before.id and post["tags"] == ["decision"]
    assert "frontmatter could not be read" in post.content
    assert "changed in Engram too" not in post.content
    fenced = "~~~yaml\n---\nreviewed: [2026-11-20\naliases: [Ship date]\n---\n~~~\n"
    assert fenced in post.content and post.content.endswith("Atlas ships in May")


def test_a_link_in_a_table_keeps_the_backslash_before_its_alias() -> None:
    """Obsidian writes a link's "|" as "\\|" inside a table; the rename dropped the backslash
    and the row gained a column (a helper's probe)."""
    row = "| release | [[atlas-ships-in-may\\|Atlas release]] |"
    moved = retarget_links(
        row, [NoteMove("Engram/atlas-ships-in-may.md", "Engram/Atlas launch.md")]
    )
    assert moved == "| release | [[Atlas launch\\|Atlas release]] |"


def test_links_to_a_moved_note_follow_it_and_keep_alias_and_heading() -> None:
    text = (
        "See [[Engram/old-note|Old]], [[old-note]], [[Engram/old-note#Part]], "
        "![[Engram/old-note]] and [[other]]."
    )
    moved = retarget_links(text, [NoteMove("Engram/old-note.md", "Travel/New-Note.md")])
    assert moved == (
        "See [[Travel/New-Note|Old]], [[New-Note]], [[Travel/New-Note#Part]], "
        "![[Travel/New-Note]] and [[other]]."
    )
    # Moved to another folder under the same name: a bare name still finds it, left alone.
    folder_only = retarget_links(text, [NoteMove("Engram/old-note.md", "Travel/old-note.md")])
    assert folder_only is not None and "[[old-note]]" in folder_only
    assert retarget_links("no links here", [NoteMove("a.md", "b.md")]) is None
    # Another note has the old name: a bare link finds that one, and was pointed away from it
    # ("[[Atlas]]" for the root Atlas.md, rewritten when Projects/Atlas.md was renamed).
    lunch = "Lunch with [[Atlas]] and [[Projects/Atlas]]."
    kept = retarget_links(
        lunch, [NoteMove("Projects/Atlas.md", "Projects/Atlas 2.md", name_taken=True)]
    )
    assert kept == "Lunch with [[Atlas]] and [[Projects/Atlas 2]]."
    # Another note has the new name: a bare link would find that one (audit: "[[Plan]]" for
    # a note renamed to Engram/Plan.md while the root Plan.md exists), so it names the path.
    plan = "Remember [[atlas-deploys]]."
    shared = retarget_links(
        plan, [NoteMove("Engram/atlas-deploys.md", "Engram/Plan.md", new_name_shared=True)]
    )
    assert shared == "Remember [[Engram/Plan]]."


def test_links_in_code_stay_as_written_when_a_note_moves() -> None:
    """Every `[[…]]` was rewritten, the examples in code blocks and inline code too, which
    the index (and Obsidian) do not read as links."""
    text = (
        "Plan: [[Engram/atlas-roadmap]].\n"
        "```\nExample wiki syntax: [[Engram/atlas-roadmap]]\n```\n"
        "Inline: `[[atlas-roadmap]]` and ~~~ not a fence here\n"
    )
    moved = retarget_links(text, [NoteMove("Engram/atlas-roadmap.md", "Engram/Roadmap 2026.md")])
    assert moved == text.replace("Plan: [[Engram/atlas-roadmap]]", "Plan: [[Engram/Roadmap 2026]]")


def test_a_note_renamed_to_a_name_no_link_can_hold_leaves_the_links() -> None:
    """Renamed in a file manager to "Atlas [draft] #2": the links became
    [[Engram/Atlas [draft] #2|…]], which neither Obsidian nor the index can read."""
    text = "See [[Engram/atlas-roadmap|the roadmap]]."
    assert (
        retarget_links(text, [NoteMove("Engram/atlas-roadmap.md", "Engram/Atlas [draft] #2.md")])
        is None
    )


@pytest.mark.parametrize(
    "text",
    [
        "",
        "plain\n",
        "a `code` b\n```py\nx = `y`\n```\nafter",
        "```\nnever closed\n[[x]]",
        "~~~~\n~~~\nstill code\n~~~~\nprose `tick",
    ],
)
def test_prose_and_code_pieces_make_the_text_again(text: str) -> None:
    parts = prose_parts(text)
    assert "".join(part for part, _ in parts) == text
    assert all("[[x]]" not in part for part, prose in parts if prose)


def test_a_link_by_bare_name_is_a_link_to_the_note() -> None:
    """Related links were added beside a bare-name link to the same note, which Obsidian
    resolves by its name."""
    text = "Atlas ships in May. Owner is [[Dana|D.]]."
    assert links_to(text, "People/Dana.md") and not links_to(text, "People/Dan.md")
    assert add_related_link(text, "[[People/Dana|Dana]]", "People/Dana.md") is None


def test_an_engram_id_is_added_to_the_frontmatter_as_a_line_of_its_own() -> None:
    head = "---\n# comment\nengram: memory\nwhen: 2024-01-05\n---\n"
    expected = head.replace("2024-01-05\n", "2024-01-05\nengram_id: m1\n") + "Body\n"
    assert with_engram_id(head + "Body\n", "m1") == expected
    # An empty one is filled in, not written twice; a note without frontmatter gets one.
    assert with_engram_id("---\nengram_id:\nengram: memory\n---\nB", "m2") == (
        "---\nengram_id: m2\nengram: memory\n---\nB"
    )
    assert with_engram_id("Just text\n", "m3") == "---\nengram_id: m3\n---\nJust text\n"
    assert parse_note("n.md", with_engram_id("---\n---\nB", "m4").encode()).engram_id == "m4"


def test_a_backlink_goes_under_the_notes_related_heading_not_one_in_code() -> None:
    """A memory holding a note template ("## Related" in a fenced block) had its backlinks
    written into the code block: no link in Obsidian, and a change to the memory's text that
    the next update reported as a conflict (audit)."""
    body = "Template:\n\n```markdown\n## Related\n\n## Decisions\n```\n\nUse it.\n"
    link = "[[Engram/rfc-12|RFC 12]]"
    first = add_related_link(body, link, "Engram/rfc-12.md")
    assert first == body + "\n## Related\n\n- [[Engram/rfc-12|RFC 12]]\n"
    second = add_related_link(first, "[[Engram/adr-3|ADR 3]]", "Engram/adr-3.md")
    assert second == first + "- [[Engram/adr-3|ADR 3]]\n"


def test_two_notes_that_swapped_names_swap_their_links() -> None:
    """Moves were followed one after the other: the links to A went to B, then every link to
    B, those included, went to A."""
    text = "See [[Engram/alpha]] and [[beta]]."
    swap = [
        NoteMove("Engram/alpha.md", "Engram/beta.md"),
        NoteMove("Engram/beta.md", "Engram/alpha.md"),
    ]
    assert retarget_links(text, swap) == "See [[Engram/beta]] and [[alpha]]."


def test_a_note_names_a_source_only_when_its_memory_has_one() -> None:
    """`source: null` stood on every note, an empty property in Obsidian (a vault probe)."""
    before = memory("Atlas ships in May")
    note = render_note(NoteSpec(before, "atlas", T0, 1.0, "use_count"))
    assert "source" not in frontmatter.loads(note).metadata
    after = before.model_copy(update={"source": "standup"})
    assert frontmatter.loads(rewrite_note(note, before, after).text)["source"] == "standup"
    sourced = render_note(NoteSpec(after, "atlas", T0, 1.0, "use_count"))
    assert frontmatter.loads(sourced)["source"] == "standup"
