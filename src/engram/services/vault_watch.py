"""Keeping the vault's index live while a server runs.

Notes change in Obsidian, in a git pull, in a sync client; users expect unified search to see
those edits without running `engram index-ltm`. `watchfiles` (inotify, FSEvents or
ReadDirectoryChangesW underneath, polling where none works) reports changes under the vault,
grouped over a short debounce window; each group is followed by one incremental index run,
which reads only the files whose size or mtime moved. The watcher catches up once when it
starts watching, so edits made while no server ran (or lost to a crash mid-run) are picked up
too, and a run that failed is tried again.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)

DEBOUNCE_MS = 500  # changes closer together than this are indexed in one run
TICK_MS = 1000  # how long the watcher waits for a change before it looks at what is due
RETRY_SECONDS = 5.0  # after a failed index run, the next try waits at least this long
STOP_SECONDS = 5.0


def outside_hidden_folders(root: Path) -> Callable[[object, str], bool]:
    """A change filter: `.obsidian/` (workspace state rewritten on every click), `.git/`,
    `.trash/` are not notes; the index skips them too (`engram.vault.index.scan`). Judged on
    the path inside the vault: a vault that itself lives under a hidden folder (`~/.notes`)
    is still watched."""
    base = root.resolve()

    def keep(_change: object, path: str) -> bool:
        try:
            inside = Path(path).resolve().relative_to(base)
        except ValueError:
            return True
        return not any(part.startswith(".") for part in inside.parts)

    return keep


class VaultWatcher:
    def __init__(self, root: Path, on_change: Callable[[], object]) -> None:
        self.root = root
        self._on_change = on_change
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._folder = _identity(root)
        # The last index run failed: the index may lack changes that will not be reported again.
        self.behind = False
        self._failed_at = 0.0

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="engram-vault-watch", daemon=True)
        self._thread.start()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def stale(self) -> bool:
        """Whether the folder at the vault's path is no longer the one watched: a drive
        unmounted and mounted again, a sync client that replaced the folder. Its changes never
        reach this watcher."""
        return _identity(self.root) != self._folder

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(STOP_SECONDS)

    def _run(self) -> None:
        from watchfiles import watch  # imported by the server only, when it watches a vault

        caught_up = False
        try:
            # The catch-up runs once watching has begun (the first tick): run before, it missed
            # every edit made while it read the vault, until some other file changed. A tick
            # with no change retries an index run that failed (a busy store).
            for changes in watch(
                self.root,
                watch_filter=outside_hidden_folders(self.root),
                debounce=DEBOUNCE_MS,
                stop_event=self._stop,
                raise_interrupt=False,
                rust_timeout=TICK_MS,
                yield_on_timeout=True,
            ):
                if not caught_up:
                    caught_up = True
                    self._sync("catching up")
                elif changes:
                    self._sync("the vault changed")
                elif self.behind and time.monotonic() - self._failed_at >= RETRY_SECONDS:
                    self._sync("trying again")
        except Exception as exc:  # no watching here (a limit on watches, an unmounted folder)
            log.warning(
                "cannot watch the vault %s (%s): unified search re-scans it instead", self.root, exc
            )

    def _sync(self, why: str) -> None:
        try:
            self._on_change()
            self.behind = False
        except Exception as exc:  # tried again on a quiet tick, or by the next unified search
            self.behind, self._failed_at = True, time.monotonic()
            log.warning("indexing the vault (%s) failed: %s", why, exc)


def _identity(folder: Path) -> tuple[int, int] | None:
    try:
        info = folder.stat()
    except OSError:
        return None
    return info.st_dev, info.st_ino
