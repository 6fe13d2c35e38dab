"""A full disk pauses the table; it resumes when there is room, nothing lost (issue 11).

The data directory is a small tmpfs (mounted here; the test is skipped with
a message where mounting is not permitted). A filler file takes the last
byte; the journal's next write fails, the table pauses with an alert and
refuses new events; once the filler is removed the controller's next tick
finds room and the table resumes; a restart from the journal rebuilds the
same table. The diagnostics report the free space.
"""

from __future__ import annotations

import errno
import os
import pathlib
import subprocess
import time
from collections.abc import Iterator

import pytest

from firmware.service.diag import Diagnostics
from firmware.service.registry import TagRegistry
from firmware.service.storage import storage_has_room
from tests.hardening_kit import GUARD, JournaledRig, answer, table_fingerprint


@pytest.fixture
def small_disk(tmp_path: pathlib.Path) -> Iterator[pathlib.Path]:
    """An 8 MiB tmpfs, unmounted afterwards."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=8m,mode=0700", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip()}); run as root to test")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(path: pathlib.Path) -> pathlib.Path:
    """Take every free byte of the file system holding ``path``."""
    filler = path / "filler"
    for name, size in (("filler", 4096), ("filler-tail", 1)):  # then the last partial block
        with open(path / name, "wb", buffering=0) as handle:
            while True:
                try:
                    handle.write(b"\xff" * size)
                except OSError as exc:
                    assert exc.errno == errno.ENOSPC
                    break
    return filler


def wait_until(rig: JournaledRig, condition: object) -> bool:
    """Whether ``condition()`` (run on the loop) became true within the guard."""
    deadline = time.monotonic() + GUARD
    while time.monotonic() < deadline:
        if rig.on_loop(condition):  # type: ignore[arg-type]
            return True
        time.sleep(0.02)
    return False


def test_a_full_disk_pauses_the_table_and_it_resumes_when_there_is_room(
    small_disk: pathlib.Path,
) -> None:
    rig = JournaledRig(small_disk, tick_seconds=0.05)
    try:
        rig.controller.storage_ok = lambda: storage_has_room(str(small_disk), need=256 * 1024)
        rig.seat_players(3)
        seat = rig.connect("seat2")
        console = rig.console("dealer")
        filler = fill(small_disk)
        # The next events cannot be journaled: refused, the table paused, an alert shown.
        console.send({"type": "report", "report": "shuffle"})
        refused = answer(console)
        assert refused["type"] == "refused" and refused["key"] == "table.journal_full", refused
        assert "journal" in rig.controller.state.stops and rig.controller.paused
        assert any("cannot be written" in a.text for a in rig.controller.alerts)
        assert rig.table.hand is None  # nothing applied that is not on disk
        seat.send({"type": "sit_out"})
        assert answer(seat)["key"] == "table.journal_full"
        assert rig.thread.is_alive()
        # Room again: the next tick finds it and the table resumes by itself.
        os.remove(filler)
        os.remove(small_disk / "filler-tail")
        assert wait_until(rig, lambda: not rig.controller.state.stops), "it did not resume"
        assert any("resumes" in a.text for a in rig.controller.alerts)
        console.send({"type": "report", "report": "shuffle"})
        assert answer(console) == {"type": "ok", "request": "report:shuffle"}
        assert rig.table.hand is not None
        live = rig.restart()
        assert rig.problems == []
        assert table_fingerprint(rig.table) == live
    finally:
        rig.stop()


def test_the_diagnostics_report_free_space(small_disk: pathlib.Path) -> None:
    registry = TagRegistry(":memory:")
    report = Diagnostics({}, registry, data_dir=str(small_disk)).run()
    item = report.items[0]
    assert (item.device, item.item, item.passed, item.key) == (
        "storage",
        "free space",
        True,
        "diag.item.storage_ok",
    )
    fill(small_disk)
    report = Diagnostics({}, registry, data_dir=str(small_disk)).run()
    assert not report.passed and report.items[0].key == "diag.item.storage_low"
    assert "free space" in report.to_text()
    registry.close()
