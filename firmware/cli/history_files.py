"""Finding hand-history files under the paths given to ``pokertable replay``.

Every path is reported: a missing path, a symbolic-link loop, a link to
nothing or a folder holding no hand history is an error *entry*, and the
other paths are still searched. Folders are searched recursively (links
followed, each real folder once), files sorted by path. A folder yields the
files ending in ``.phh`` or ``.phhs`` and the ``.txt`` files that start like a
PokerStars hand history; a file named on the command line is read whatever
its name.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware.i18n import tr

PHH_SUFFIXES = (".phh", ".phhs")
"""File names a folder search takes as PHH hands or collections."""

TEXT_SUFFIXES = (".txt",)
"""File names a folder search opens to look for PokerStars-style text."""

POKERSTARS_START = b"PokerStars "
"""How a PokerStars-style hand history begins (after an optional byte-order mark)."""


@dataclass(frozen=True)
class Found:
    """A file to read, or a path that cannot be read (``error`` set: the English
    sentence; ``key`` and ``params``: the same in the catalog)."""

    path: str
    error: str | None = None
    key: str | None = None
    params: dict[str, Any] = field(default_factory=dict)


def _cannot(where: str | Path, key: str, **params: Any) -> Found:
    """A path that cannot be read, with the catalog's sentence ``key``."""
    return Found(str(where), tr(key, "en", **params), key, params)


def looks_like_pokerstars(path: Path) -> bool:
    """Whether the file starts like PokerStars hand-history text."""
    try:
        with path.open("rb") as handle:
            head = handle.read(64)
    except OSError:
        return False
    return head.removeprefix(b"\xef\xbb\xbf").lstrip().startswith(POKERSTARS_START)


def _walk(root: Path, seen: set[tuple[int, int]], out: list[Found]) -> None:
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError as exc:
        out.append(_cannot(root, "cli.replay.folder_unreadable", path=root, error=exc.strerror))
        return
    for entry in entries:
        path = Path(entry.path)
        try:
            info = path.stat()
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                out.append(_cannot(path, "cli.replay.loop", path=path))
            elif path.suffix in PHH_SUFFIXES:
                out.append(_cannot(path, "cli.replay.dangling", path=path))
            continue
        if entry.is_dir():
            key = (info.st_dev, info.st_ino)
            if key in seen:
                if entry.is_symlink():
                    out.append(
                        _cannot(
                            path, "cli.replay.loop_back", path=path, real=os.path.realpath(path)
                        )
                    )
                continue
            seen.add(key)
            _walk(path, seen, out)
        elif path.suffix in PHH_SUFFIXES or (
            path.suffix in TEXT_SUFFIXES and looks_like_pokerstars(path)
        ):
            out.append(Found(str(path)))


def find_history_files(paths: list[str]) -> Iterator[Found]:
    """Every hand-history file under ``paths``, and an error entry per bad path."""
    for raw in paths:
        path = Path(raw)
        try:
            info = path.stat()
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                yield _cannot(raw, "cli.replay.path_loop", path=raw)
            elif path.is_symlink():
                yield _cannot(raw, "cli.replay.path_dangling", path=raw)
            else:
                yield _cannot(raw, "cli.replay.path_missing", path=raw)
            continue
        if path.is_dir():
            found: list[Found] = []
            _walk(path, {(info.st_dev, info.st_ino)}, found)
            files = [f for f in found if f.error is None]
            yield from found
            if not files:
                yield _cannot(raw, "cli.replay.empty_folder", path=raw)
        else:
            yield Found(raw)
