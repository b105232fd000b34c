"""Domain errors. Adapters turn them into clean CLI exits and readable MCP tool errors."""

from __future__ import annotations

from pydantic import ValidationError as PydanticError


class EngramError(Exception):
    """Base class: the message is written for the person or model that caused it."""


class ValidationError(EngramError):
    """Bad input; the message names the field and the limit."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.reason = message

    def __reduce__(self) -> tuple[type[ValidationError], tuple[str, str]]:
        # Made again from what it was made of: pickled (a process pool's worker sends its
        # errors so) or copied, it was remade from its message alone and failed (a probe).
        return (type(self), (self.field, self.reason))


def from_pydantic(exc: PydanticError) -> ValidationError:
    """The first problem pydantic found in a record, naming its field ("line" for the record
    itself). Its types are Python's: a JSON list read as a tuple was "Input should be a valid
    tuple" (an import probe's `"tags": "notalist"`)."""
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "line"
    return ValidationError(where, first["msg"].replace("a valid tuple", "a list"))


class NotFoundError(EngramError):
    def __init__(self, kind: str, ident: str, hint: str = "") -> None:
        super().__init__(f"{kind} not found: {ident}" + (f" ({hint})" if hint else ""))
        self.kind, self.ident, self.hint = kind, ident, hint

    def __reduce__(self) -> tuple[type[NotFoundError], tuple[str, str, str]]:
        return (type(self), (self.kind, self.ident, self.hint))  # as ValidationError's


class ConfigError(EngramError):
    """A setting has a bad value or the store cannot be opened with the given location."""


class StoreError(EngramError):
    """The store refused an operation (locked too long, corrupt, wrong schema)."""


class RefusedDataError(StoreError):
    """The store refused the data, not the operation: a value it cannot hold (NUL in
    PostgreSQL text), a taken id. The store itself works; other records may still go in."""


class DamagedStoreError(StoreError):
    """The store's database cannot be read: its pages are damaged (a JSONL store's index,
    which is only a cache of its files, is rebuilt from them instead)."""


class UnavailableError(StoreError):
    """The store's server cannot be reached (down, restarting, the network gone): every
    operation fails alike until it is back, so a long copy stops instead of trying each record
    (a migration waited a minute for each of its relations; a helper's probe)."""


class BusyError(StoreError):
    """Another client holds a store-wide lock (`Store.exclusive`): a pipeline run or a merge
    is under way elsewhere. Nothing was done; trying again later is safe."""
