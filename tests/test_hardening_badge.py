"""A staff login ends when the badge leaves the console's reader (issue 11, item 7).

A real server and controller: the badge is inserted and removed through the
controller's device events, as the PC/SC reader reports them.
"""

from __future__ import annotations

import pathlib

from firmware.hal import IdCardInserted, IdCardRemoved
from tests.hardening_kit import BADGES, JournaledRig, answer


def remove_badge(rig: JournaledRig) -> None:
    rig.controller.post(IdCardRemoved("console-reader", 0.0, "console"))
    rig.on_loop(lambda: None)


def insert_badge(rig: JournaledRig, role: str) -> None:
    rig.controller.post(IdCardInserted("console-reader", 0.0, "console", BADGES[role][0]))
    rig.on_loop(lambda: None)


def test_removing_the_badge_logs_the_staff_member_out_after_the_grace(
    tmp_path: pathlib.Path,
) -> None:
    rig = JournaledRig(tmp_path, badge_grace=0.2)
    try:
        console = rig.console("floor")
        remove_badge(rig)
        out = console.wait_for(lambda m: m["type"] == "welcome")
        assert out["role"] is None and out["key"] == "protocol.login.badge_removed", out
        console.send({"type": "override", "override": "void", "reason": "test"})
        refused = answer(console)
        assert refused["key"] == "protocol.permission.floor", refused
    finally:
        rig.stop()


def test_a_badge_put_back_within_the_grace_keeps_the_login(tmp_path: pathlib.Path) -> None:
    rig = JournaledRig(tmp_path, badge_grace=3600.0)
    try:
        console = rig.console("dealer")
        remove_badge(rig)
        client = next(c for c in rig.server.clients.values() if c.terminal == "console")
        rig.on_loop(lambda: None)  # the listener handed the removal to the server thread
        console.send({"type": "report", "report": "pause"})  # still logged in meanwhile
        assert answer(console) == {"type": "ok", "request": "report:pause"}
        assert client.badge_timer is not None
        insert_badge(rig, "dealer")
        console.send({"type": "report", "report": "resume"})
        assert answer(console) == {"type": "ok", "request": "report:resume"}
        assert client.badge_timer is None and client.staff == "Dealer"
    finally:
        rig.stop()


def test_with_no_grace_the_logout_is_immediate_and_another_badge_does_not_count(
    tmp_path: pathlib.Path,
) -> None:
    rig = JournaledRig(tmp_path, badge_grace=0.0)
    try:
        console = rig.console("dealer")
        insert_badge(rig, "floor")  # another person's badge replaces the dealer's
        out = console.wait_for(lambda m: m["type"] == "welcome")
        assert out["role"] is None and out["key"] == "protocol.login.badge_removed", out
    finally:
        rig.stop()
