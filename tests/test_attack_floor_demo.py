"""Ctrl-C on ``make floor-demo`` (fresh-eyes review): the demo stops its servers in
order and says nothing alarming.

A terminal's Ctrl-C sends SIGINT to the whole foreground process group; NATS and
PostgreSQL, started in the demo's group, died at once while the floor still used
them, and the newcomer saw "nats: encountered error" and a traceback.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

pytestmark = [pytest.mark.xdist_group("floor"), pytest.mark.slow]


def test_ctrl_c_on_the_demo_stops_it_without_a_traceback() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "firmware.cli.main", "floor", "--demo", "--tables", "2",
         "--players", "6", "--port", "0", "--pace", "0.2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group, like a shell's foreground job
    )  # fmt: skip
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if "the tournament is on" in line:
            break
    assert lines and "the tournament is on" in lines[-1], "".join(lines)
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in the terminal does
    rest = proc.communicate(timeout=120)[0]
    out = "".join(lines) + rest
    assert proc.returncode in (0, 130), out
    assert "Traceback" not in out and "encountered error" not in out, out
