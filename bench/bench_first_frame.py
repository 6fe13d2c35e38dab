"""Time to the first frame of ``pokertable screen`` (issue 15; goal under 1 s here).

This process runs a table controller and its server on a Unix socket (as
``pokertable serve`` does, without devices or a journal). Each round starts a
fresh ``python -c`` that runs ``pokertable screen --seat 1`` with SDL's dummy
driver, its ``pygame.display.flip`` wrapped to report the first frame and
exit. Reported per round: wall time from just before the process is started
to the report (interpreter start, imports, connect, hello, first view, first
draw), and the child's CPU time (user + system) at that moment, which the
load of a shared machine does not inflate. ``--importtime`` prints the
slowest imports of one more round (``python -X importtime``).

    .venv/bin/python bench/bench_first_frame.py [--rounds 7] [--importtime]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from firmware.protocol.auth import StaffDirectory, TerminalSecrets
from firmware.protocol.server import TableServer
from firmware.service.controller import Controller
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.table import Table

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

CHILD = """
import os, resource, sys
sys.path.insert(0, {root!r})
import pygame
flip = pygame.display.flip
def first_flip():
    flip()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    sys.stdout.write(f"frame {{usage.ru_utime + usage.ru_stime:.4f}}\\n")
    sys.stdout.flush()
    os._exit(0)
pygame.display.flip = first_flip
from firmware.cli.main import main
main(["screen", "--seat", "1", "--socket", {socket!r}, "--secret", {secret!r}, "--lang", "en"])
"""


def one_round(socket_path: str, secret: str, extra: list[str]) -> tuple[float, float, str]:
    """Start a screen, wait for its first frame; return (wall s, child CPU s, stderr)."""
    code = CHILD.format(root=os.path.abspath(ROOT), socket=socket_path, secret=secret)
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    env["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, *extra, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert child.stdout is not None
    line = child.stdout.readline()
    wall = time.perf_counter() - start
    _, err = child.communicate(timeout=60)
    if not line.startswith("frame "):
        raise RuntimeError(f"The screen drew no frame: {line!r} {err}")
    return wall, float(line.split()[1]), err


def main(argv: list[str] | None = None) -> int:
    """Serve a table, start screens, print the times to their first frame."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--importtime", action="store_true")
    args = parser.parse_args(argv)
    config = TableConfig("home", profile_options("home"), Stakes(small_blind=1, big_blind=2))
    table = Table(config, deck_ready=True)
    for seat in range(1, 7):
        table.apply(te.SitDown(seat, f"Player {seat}", 200))
    controller = Controller(table, {}, TagRegistry(":memory:"))
    secret = f"seat1-secret-{random.getrandbits(64):016x}"
    directory = tempfile.mkdtemp(prefix="pokertable-bench-")
    server = TableServer(
        controller,
        TerminalSecrets({"seat1": secret}),
        StaffDirectory(),
        unix_path=os.path.join(directory, "table.sock"),
    )
    server.start()
    loop = threading.Thread(target=controller.run, name="controller", daemon=True)
    loop.start()
    try:
        rounds = [one_round(server.unix_path or "", secret, []) for _ in range(args.rounds)]
        walls = sorted(r[0] for r in rounds)
        cpus = sorted(r[1] for r in rounds)
        print(f"pokertable screen --seat 1, first frame, {args.rounds} fresh processes:")
        print(f"  wall: min {walls[0]:.3f} s, median {walls[len(walls) // 2]:.3f} s (goal < 1 s)")
        print(
            f"  CPU of the screen process: min {cpus[0]:.3f} s, median {cpus[len(cpus) // 2]:.3f} s"
        )
        print(f"  load average {os.getloadavg()[0]:.1f}")
        print(f"RATIO|screen: start to first frame (s, min wall)|{walls[0]:.3f}|< 1")
        print(f"RATIO|screen: start to first frame (s, min CPU)|{cpus[0]:.3f}|-")
        if args.importtime:
            _, _, err = one_round(server.unix_path or "", secret, ["-X", "importtime"])
            rows = []
            for line in err.splitlines():
                parts = line.split("|")
                if line.startswith("import time:") and parts[1].strip().isdigit():
                    rows.append((int(parts[1]), parts[2].rstrip()))
            print("  slowest imports, cumulative µs (one more round, -X importtime):")
            for cumulative, name in sorted(rows, reverse=True)[:25]:
                print(f"  {cumulative:>9,}  {name}")
    finally:
        controller.stop()
        loop.join(5)
        server.stop()
        os.rmdir(directory)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
