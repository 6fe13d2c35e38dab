"""Idle seat screen: frame cost of the run loop at 30 fps (redraw only on change) and of a
full redraw.

Two figures for one seat screen at 800x480 with SDL's dummy driver: the time of a full
redraw plus ``flip`` (the seat to act, the busiest screen), and the CPU share of the
screen's run loop (:func:`ui.app.run`) left idle at 30 fps on a view that waits for
another seat, whose clock changes the displayed second once a second.

    .venv/bin/python bench/bench_ui_idle.py [--redraws 200] [--frames 300]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import pygame

from tests import ui_views as V
from ui.app import ViewSource, run
from ui.seat import SeatScreen


def full_redraw_ms(redraws: int) -> float:
    """Milliseconds of one full redraw and flip of the seat-to-act screen."""
    pygame.init()
    surface = pygame.display.set_mode((800, 480))
    screen = SeatScreen(V.seat_to_act(), surface=surface)
    start = time.perf_counter()
    for _ in range(redraws):
        screen.dirty = True
        screen.draw()
        pygame.display.flip()
    return (time.perf_counter() - start) / redraws * 1000


def idle_loop(frames: int, fps: int) -> tuple[float, float]:
    """Run the screen loop idle for ``frames`` frames; return (wall s, CPU s)."""
    view = V.seat_waiting_turn()
    view["table"]["clock"]["left"] = 60.0
    cpu, wall = time.process_time(), time.perf_counter()
    run(ViewSource([view]), fps=fps, max_frames=frames)
    return time.perf_counter() - wall, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    """Print the full-redraw time and the idle loop's CPU share."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redraws", type=int, default=200, help="full redraws timed (200)")
    parser.add_argument("--frames", type=int, default=300, help="idle frames (300: 10 s)")
    parser.add_argument("--fps", type=int, default=30, help="frame rate of the loop (30)")
    args = parser.parse_args(argv)
    ms = full_redraw_ms(args.redraws)
    print(f"full redraw + flip (seat to act, 800x480): {ms:.2f} ms/frame")
    wall, cpu = idle_loop(args.frames, args.fps)
    share = 100 * cpu / wall
    print(
        f"idle loop: {args.frames} frames at {args.fps} fps in {wall:.2f} s, "
        f"CPU {cpu:.3f} s = {share:.2f}% of one core (goal: < 5%)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
