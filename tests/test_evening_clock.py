"""One clock for the whole evening (issue 23, item 1).

A simulated three-hour tournament evening on an injected clock: levels of 20
minutes, two breaks of 10, five pauses (one resumed with "Start clock"), a
controller restart in the middle of a break and another in the middle of a
pause. The real controller, journal and view functions run the table; two
seat screens (Spanish and English), the dealer console and the broadcast
screen (through the real delay line) get the views as the table server gives
them (only a view that changed), and every simulated second the countdown each
screen *displays* - its own text, as it would draw it - is read and compared
with an independent model of the clock and with the other screens.
"""

from __future__ import annotations

import logging
import math
import pathlib
import re
from typing import Any

import pytest

from firmware.errors import IllegalAction
from firmware.i18n import tr
from firmware.i18n.clock import level_line
from firmware.protocol.broadcast import DelayLine
from firmware.protocol.framing import HEADER, decode_body, encode
from firmware.protocol.viewfeed import ViewFeed
from firmware.protocol.viewpack import ViewPacker
from firmware.service.controller import LEVEL_JOURNAL_SECONDS, Controller
from firmware.service.journal import Journal
from firmware.service.recovery import restore, store_table_setup
from firmware.service.registry import TagRegistry
from firmware.service.safety import LogThrottle
from firmware.table import events as te
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.table import Table
from firmware.table.tournament import LevelSchedule, TournamentClock
from firmware.views.audience import console_view, seat_view
from firmware.views.broadcast import BroadcastRules
from firmware.views.levelclock import level_part, schedule_part
from firmware.views.share import ViewShare
from tests import ui_views as V
from ui.broadcast import BroadcastScreen
from ui.console import ConsoleScreen
from ui.seat import SeatScreen
from ui.widgets import Screen

BLINDS = [(25, 50), (50, 100), (75, 150), (100, 200), (150, 300), (200, 400), (300, 600)]
BLINDS.append((400, 800))
LEVELS: list[dict[str, Any]] = []
for _number, (_sb, _bb) in enumerate(BLINDS, start=1):
    LEVELS.append({"small_blind": _sb, "big_blind": _bb, "minutes": 20})
    if _number in (2, 4):
        LEVELS.append({"break_minutes": 10})

STEP = 0.25
"""Simulated seconds per step: events fall between the controller's ticks."""
EVENING = 3 * 3600.0
DELAY = 30
"""The broadcast feed's delay (its views are held; its level clock must not be)."""


def model(running: float) -> tuple[int, bool, float]:
    """The clock written out by hand: (level number, on a break, seconds left in the phase)
    after ``running`` seconds of clock time. Independent of LevelSchedule."""
    start, number = 0.0, 0
    for entry in LEVELS:
        if "break_minutes" in entry:
            length = entry["break_minutes"] * 60.0
            if running < start + length:
                return number + 1, True, start + length - running
        else:
            number += 1
            length = entry["minutes"] * 60.0
            if running < start + length:
                return number, False, start + length - running
        start += length
    return number, False, 0.0


TIME = re.compile(r"(?:(\d+):)?(\d{2}):(\d{2})")


def shown(text: str) -> int:
    """The seconds a clock line shows ("Descanso: vuelve el nivel 3 en 09:12" -> 552)."""
    found = TIME.search(text)
    assert found, f"no countdown in {text!r}"
    hours, minutes, seconds = found.groups()
    return int(hours or 0) * 3600 + int(minutes) * 60 + int(seconds)


def off(text: str, lang: str, running: float, paused: bool) -> int:
    """How many seconds ``text`` is off the model's clock after ``running`` seconds
    (a large number for the wrong level, break or pause)."""
    number, on_break, left = model(max(0.0, running))
    word = tr("ui.clock.paused", lang, what="")
    if text.startswith(word) != paused:
        return 10**6
    text = text.removeprefix(word)
    if on_break and not text.startswith(tr("ui.clock.break", lang, n=number, time="")[:-1]):
        return 10**6
    if not on_break and f" {number} " not in text:
        return 10**6
    return abs(shown(text) - math.ceil(round(left, 6)))


class Clock:
    """The injected monotonic clock."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


class Evening:
    """The table, its screens and the feed as the table server would run them."""

    def __init__(self, tmp_path: pathlib.Path) -> None:
        self.path = str(tmp_path / "journal.sqlite")
        self.clock = Clock()
        journal = Journal(self.path)
        config = TableConfig("tda-tournament", profile_options("tda-tournament"), Stakes())
        store_table_setup(journal, config, deck_ready=True, schedule=LEVELS)
        self.journal = journal
        self.table = Table(config, deck_ready=True, schedule=LevelSchedule.from_dicts(LEVELS))
        self.screens: dict[str, Screen] = {}
        self.given: dict[str, bytes] = {}
        self.start_controller()

    def start_controller(self) -> None:
        self.controller = Controller(
            self.table, {}, TagRegistry(":memory:"), journal=self.journal.append, clock=self.clock
        )
        self.controller.listeners.append(self.on_change)
        self.next_tick = self.controller.next_tick_at(self.clock.t)
        # The broadcast part of the real table server: its rules, delay line and packer.
        self.feed = ViewFeed()
        self.feed.broadcast = BroadcastRules(delay_seconds=DELAY)
        self.feed._line = DelayLine(DELAY, self.clock)
        self.feed._packer = ViewPacker()
        self.feed.throttle = LogThrottle(logging.getLogger("test"))

    def restart(self, down: float) -> None:
        """The controller stops (its screens keep their last view), is down ``down``
        seconds, and starts again from its journal; the screens reconnect."""
        self.journal.close()
        self.clock.t += down
        self.journal = Journal(self.path)
        self.table = restore(self.journal)
        self.start_controller()
        self.given.clear()
        self.screens.pop("broadcast", None)  # a new delay line: nothing released yet
        self.on_change(self.controller)

    def on_change(self, controller: Controller) -> None:
        """The table server's ``_on_change``: every screen gets its view if it changed."""
        share = ViewShare()
        views = {
            "seat1": seat_view(controller.table, 1, "es", controller, share),
            "seat2": seat_view(controller.table, 2, "en", controller, share),
            "console": console_view(controller.table, "es", controller, share),
        }
        for name, view in views.items():
            self.give(name, encode(view))
        self.feed._queue_broadcast(controller, share)

    def give(self, name: str, data: bytes) -> None:
        if self.given.get(name) == data:
            return  # byte for byte the view it has: not sent again
        self.given[name] = data
        view = decode_body(data[HEADER.size :])
        screen = self.screens.get(name)
        if screen is None:
            kinds = {"seat": SeatScreen, "console": ConsoleScreen, "broadcast": BroadcastScreen}
            self.screens[name] = kinds[view["audience"]](view)
        else:
            screen.set_view(view)

    def advance(self, seconds: float) -> None:
        """Time passes: the controller's loop ticks, the screens count, the feed releases."""
        target = round(self.clock.t + seconds, 6)
        while self.next_tick <= target:  # the loop ticks when Controller.run would
            self._move(self.next_tick)
            self.controller._tick(self.clock.t)  # new views come now
            self.next_tick = self.controller.next_tick_at(self.clock.t)
        self._move(target)
        line = self.feed._line
        assert line is not None
        released = line.due().get("es")  # the broadcast terminal watches in Spanish
        if released is not None:
            self.give("broadcast", released)

    def _move(self, to: float) -> None:
        """The clock reaches ``to``; the screens count the views they had meanwhile."""
        passed, self.clock.t = to - self.clock.t, to
        for screen in self.screens.values():
            screen.tick(passed)

    def do(self, action: str) -> None:
        """The floor presses a clock button on the console (its request runs on the loop)."""
        self.controller.dispatch(lambda: self.controller.submit(te.LevelClock(action)))

    def texts(self) -> dict[str, str]:
        """What each screen shows of the level clock now, drawn by its own code."""
        out = {}
        for name, screen in self.screens.items():
            style = "console" if isinstance(screen, ConsoleScreen) else "seat"
            out[name] = screen.level_text(style)
        return out


def test_every_screen_shows_the_same_level_clock_all_evening(tmp_path: pathlib.Path) -> None:
    evening = Evening(tmp_path)
    for seat, name in ((1, "Ana"), (2, "Bruno"), (3, "Carla")):
        event = te.SitDown(seat, name, 5000)
        evening.controller.dispatch(lambda e=event: evening.controller.submit(e))
    # What happens, at which moment of the evening (simulated seconds):
    plan: list[tuple[float, str]] = [
        (10.0, "start"),
        (700.4, "pause"),
        (760.6, "start"),  # "Start clock" on a paused clock resumes it
        (2700.3, "restart"),  # mid-break (the first break runs from about 2470 to 3070)
        (3600.7, "pause"),
        (3650.2, "restart"),  # mid-pause
        (3720.5, "resume"),
        (5100.1, "pause"),
        (5190.9, "resume"),
        (5900.3, "pause"),  # in the second break (from about 5730 to 6330)
        (5961.0, "resume"),
        (8400.8, "pause"),
        (8520.2, "resume"),
    ]
    running, paused, started = 0.0, False, False
    worst = 0
    samples = 0
    seen = {"break": 0, "paused": 0, "levels": set()}
    while evening.clock.t < EVENING:
        while plan and plan[0][0] <= evening.clock.t + 1e-9:
            _, action = plan.pop(0)
            if action == "restart":
                before = running
                evening.restart(down=45.0)
                levels = evening.table.levels
                assert levels is not None
                running = levels.running_seconds(evening.table.now)
                # A restart loses at most the time not yet journaled; never adds any.
                assert 0.0 <= before - running <= LEVEL_JOURNAL_SECONDS + STEP
                if paused:
                    assert before == running  # a pause is journaled when pressed
                continue
            evening.do(action)
            if action == "start" and not started:
                started = True
            elif action == "pause":
                paused = True
            else:
                paused = False
        evening.advance(STEP)
        if started and not paused:
            running += STEP
        if not started or abs(evening.clock.t - round(evening.clock.t)) > 1e-9:
            continue
        texts = evening.texts()
        assert {"seat1", "seat2", "console"} <= set(texts)
        for name, text in texts.items():
            lang = evening.screens[name].lang
            # The table sees a level or a break end at its next tick, at most a second
            # late: a screen may show the phase that just ended at 00:00 until then.
            errors = [off(text, lang, running, paused), off(text, lang, running - 1.0, paused)]
            assert min(errors) <= 1, (evening.clock.t, name, text, running)
            worst = max(worst, min(errors))
        values = {shown(text) for text in texts.values()}
        assert max(values) - min(values) <= 1, (evening.clock.t, texts)
        number, on_break, _ = model(running)
        samples += 1
        seen["break"] += on_break
        seen["paused"] += paused
        seen["levels"].add(number)  # type: ignore[union-attr]
    # The evening went through what it was meant to: breaks, pauses, several levels.
    assert seen["break"] >= 1100 and seen["paused"] >= 350 and len(seen["levels"]) == 8  # type: ignore[arg-type]
    assert samples > 10000
    assert worst <= 1
    print(f"{samples} seconds sampled on {len(evening.screens)} screens; worst {worst} s off")


def test_start_clock_on_a_paused_clock_resumes_it() -> None:
    table = Table(
        TableConfig("tda-tournament", profile_options("tda-tournament"), Stakes()),
        deck_ready=True,
        schedule=LevelSchedule.from_dicts(LEVELS),
    )
    table.apply(te.LevelClock("start", 0.0))
    table.apply(te.LevelClock("pause", 100.0))
    table.apply(te.LevelClock("start", 160.0))  # "Iniciar reloj" while paused
    assert table.levels is not None and not table.levels.paused
    assert table.levels.running_seconds(200.0) == 140.0
    with pytest.raises(IllegalAction) as running:
        table.apply(te.LevelClock("start", 210.0))
    assert running.value.key == "error.levels.started"
    assert tr("ui.level.pause", "es") in tr("error.levels.started", "es")  # says how


def test_a_late_pause_never_turns_the_clock_back() -> None:
    """A floor's pause carries the moment it was pressed (``at``) and may arrive late:
    a moment before the clock last started running would count a pause twice (or one
    before the start), and the level shown would go back."""
    table = Table(
        TableConfig("tda-tournament", profile_options("tda-tournament"), Stakes()),
        deck_ready=True,
        schedule=LevelSchedule.from_dicts(LEVELS),
    )
    table.apply(te.LevelClock("start", 0.0))
    table.apply(te.LevelClock("pause", 100.0))
    table.apply(te.LevelClock("resume", 200.0))
    clock = table.levels
    assert clock is not None and clock.running_seconds(300.0) == 200.0
    for early in (150.0, 199.0):
        with pytest.raises(IllegalAction) as caught:
            table.apply(te.LevelClock("pause", early))  # inside the last pause
        assert caught.value.key == "error.levels.pause_early"
        assert not clock.paused and clock.running_seconds(300.0) == 200.0
    assert tr("error.levels.pause_early", "es") != tr("error.levels.pause_early", "en")
    table.apply(te.LevelClock("pause", 250.0))  # after the resume: fine
    assert clock.running_seconds(300.0) == 150.0


@pytest.mark.parametrize(("at", "shown"), [(2400.0, "10:00"), (2999.6, "00:01"), (2999.0, "00:01")])
def test_a_hand_refused_in_a_break_says_the_time_left_as_the_screens_do(
    at: float, shown: str
) -> None:
    """Levels 1 and 2 last 20 minutes, then a 10-minute break: never "0 seconds" or
    "1 segundos", and the same reading as the clock on every screen."""
    clock = TournamentClock(LevelSchedule.from_dicts(LEVELS))
    clock.start(0.0)
    with pytest.raises(IllegalAction) as caught:
        clock.stakes_for_hand(at)
    assert caught.value.key == "error.levels.on_break"
    for lang in ("es", "en"):
        said = tr("error.levels.on_break", lang, **caught.value.params)
        assert shown in said and "0 seg" not in said and " 1 seg" not in said, said
    assert shown in str(caught.value)


def test_the_console_header_says_paused_and_break() -> None:
    view = V.console_dealing()
    level = view["console"]["level"]
    for extra, expected in (
        ({"paused": True}, tr("ui.clock.paused", "es", what="")),
        ({"on_break": True}, tr("ui.clock.break", "es", n=3, time="09:00")),
    ):
        view["console"]["level"] = {**level, **extra}
        console = ConsoleScreen(view)
        console.draw()
        assert any(text.startswith(expected) for text in console.drawn), console.drawn


def test_the_floor_clock_page_reads_what_the_tables_show() -> None:
    """The floor keeps its clock as a start, pauses and now (webstore.clock_elapsed);
    schedule_part on it gives the part a table that got the same instants shows."""
    table = Table(
        TableConfig("tda-tournament", profile_options("tda-tournament"), Stakes()),
        deck_ready=True,
        schedule=LevelSchedule.from_dicts(LEVELS),
    )
    schedule = LevelSchedule.from_dicts(LEVELS)
    table.apply(te.LevelClock("start", 0.0))
    pauses = [(1000.0, 1300.0), (2600.0, 2700.0)]  # one in a level, one in the break
    presses = [
        (t, action) for p in pauses for t, action in zip(p, ("pause", "resume"), strict=True)
    ]
    for now in range(0, 9000, 7):
        while presses and presses[0][0] <= now:
            at, action = presses.pop(0)
            table.apply(te.LevelClock(action, at))
        paused_seconds = sum(max(0.0, min(end, now) - begin) for begin, end in pauses)
        paused = any(begin <= now < end for begin, end in pauses)
        floor = schedule_part(schedule, now - paused_seconds, paused)
        assert floor == level_part(table.levels, float(now)), now
        assert level_line(floor, 0.0, "es", "panel") == level_line(
            level_part(table.levels, float(now)) or {}, 0.0, "es", "panel"
        )
