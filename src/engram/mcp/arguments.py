"""Tool arguments checked by name before the SDK validates them.

The SDK ignores arguments a tool does not declare, so a model that writes `tag` for `tags`
gets a save without tags and no word about it. Here every argument must be a declared
parameter, or an error names it and the closest valid name. Callers written for the seed
(CortexGraph) spell a few parameters differently; those spellings are accepted as aliases
(docs/tools.md lists them).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping
from typing import Any

import pydantic

from engram.errors import ValidationError


def _one_or_many(value: Any) -> Any:
    """The seed's `cluster_id` names one cluster; ours takes a list."""
    return [value] if isinstance(value, str) else value


# tool → seed spelling → (our parameter, how the value changes)
ALIASES: dict[str, dict[str, tuple[str, Callable[[Any], Any] | None]]] = {
    "touch_memory": {"boost_strength": ("boost", None)},
    "search_memory": {"top_k": ("limit", None)},
    "search_unified": {"top_k": ("limit", None)},
    "cluster_memories": {"threshold": ("similarity_threshold", None)},
    "consolidate_memories": {"cluster_id": ("cluster_ids", _one_or_many)},
}


# tool → seed flags whose `true` this tool always does: the seed's own example of
# search_unified asks for `"verbose": true` (scores in the results), which ours always carry.
ALWAYS_ON: dict[str, frozenset[str]] = {"search_unified": frozenset({"verbose"})}


def checked_arguments(
    tool: str, arguments: Mapping[str, Any], parameters: frozenset[str]
) -> dict[str, Any]:
    """`arguments` with the seed's spellings renamed; a ValidationError for any argument that
    is neither a parameter of `tool` nor an alias of one."""
    aliases = ALIASES.get(tool, {})
    out: dict[str, Any] = {}
    given: dict[str, str] = {}  # our parameter -> the name the caller gave it
    for name, value in arguments.items():
        if name in ALWAYS_ON.get(tool, ()) and name not in parameters:
            if value is not True:  # false (or anything else) asks for what it cannot have
                raise ValidationError(
                    name, f"{tool} always gives its scores: only true is accepted"
                )
            continue
        if name in parameters:
            target, convert = name, None
        elif name in aliases:
            target, convert = aliases[name]
        else:
            raise ValidationError(name, _unknown(tool, name, parameters | aliases.keys()))
        if target in out:
            alias = name if name != target else given[target]
            raise ValidationError(alias, f"is another name for {target!r}: give only one of them")
        given[target] = name
        out[target] = value if convert is None else convert(value)
    return out


def _unknown(tool: str, name: str, valid: frozenset[str] | set[str]) -> str:
    close = difflib.get_close_matches(name, sorted(valid), n=1, cutoff=0.5)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    listed = ", ".join(sorted(valid)) or "none"
    return f"is not an argument of {tool}{hint} (valid: {listed})"


def aliases_given(tool: str, arguments: Mapping[str, Any]) -> dict[str, str]:
    """Our parameter -> the seed's spelling the caller used for it, for the arguments given."""
    aliases = ALIASES.get(tool, {})
    return {aliases[name][0]: name for name in arguments if name in aliases}


def named_as_given(message: str, renamed: Mapping[str, str]) -> str:
    """An error about renamed arguments, naming them as the caller did: a CortexGraph call
    that gave `top_k` was told about `limit`, a field its API does not have. Both wordings are
    covered: the SDK's validation report (the field alone on a line, "cluster_ids.0") and a
    service's error ("…: limit: must be …")."""
    for ours, theirs in renamed.items():
        message = re.sub(rf"(?m)(^|: ){re.escape(ours)}(?=[.:\s]|$)", rf"\g<1>{theirs}", message)
    return message


def validation_report(tool: str, error: BaseException) -> str | None:
    """The arguments the tool's schema refused (the SDK's error, caused by pydantic's), one
    field after another: "content: String should have at least 1 character". The SDK's report
    put the model's name ("1 validation error for save_memoryArguments"), the value again and a
    web address in every answer a model reads. None for any other error."""
    cause = error.__cause__
    if not isinstance(cause, pydantic.ValidationError):
        return None
    parts = []
    for problem in cause.errors(include_url=False, include_input=False):
        field = ".".join(str(part) for part in problem["loc"]) or "arguments"
        said = "is required" if problem["type"] == "missing" else problem["msg"]
        parts.append(f"{field}: {said.removeprefix('Value error, ')}")
    return f"Error executing tool {tool}: " + "; ".join(parts)
