"""Views encoded by :class:`~firmware.protocol.viewpack.ViewPacker` are the bytes
:func:`~firmware.protocol.framing.encode` writes, and the server sends a client a
view only when it differs from the one it was last given (issue 15)."""

from __future__ import annotations

import pathlib
import threading
from typing import Any

import pytest

from firmware.protocol.framing import FrameError, decode_body, encode
from firmware.protocol.viewpack import ViewPacker
from firmware.service.controller import Controller
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from firmware.views.audience import console_view, seat_view
from firmware.views.share import ViewShare
from hal_sim.table_soak import Soak
from tests.test_protocol import Rig, is_view, start_hand


class PackedSoak(Soak):
    """The soak, encoding every audience's view both ways after every event."""

    def __init__(self, seed: int) -> None:
        self.controller: Controller | None = None
        super().__init__("casino-cash", seed, incident_rate=0.3)
        self.controller = Controller(self.table, {}, TagRegistry(":memory:"))
        self.packer = ViewPacker()
        self.plain = ViewPacker()
        """Without the change's share."""
        self.compared = 0
        self.recalled = 0

    def _apply(self, event: te.TableEvent) -> bool:
        applied = super()._apply(event)
        if self.controller is not None:
            share = ViewShare()
            seats = range(1, self.table.config.options.max_seats + 1)
            views = [seat_view(self.table, s, "es", self.controller, share) for s in seats]
            views.append(console_view(self.table, "en", self.controller, share))
            for view in views:
                assert self.packer.encode(view, share) == encode(view)
                assert self.plain.encode(view) == encode(view)
                self.recalled += len(view["recall"])
            self.compared += len(views)
        return applied


def test_packed_views_are_the_framed_bytes_over_a_session() -> None:
    soak = PackedSoak(seed=5)
    for _ in range(25):
        soak.play_hand()
    assert soak.compared > 1000 and soak.recalled > 5000
    # The recall entries were written once each, then reused: far fewer kept than sent.
    assert 0 < len(soak.packer._entries) < soak.recalled // 20


def test_a_new_entry_is_encoded_again_and_untyped_or_oversize_views_refused() -> None:
    packer = ViewPacker()
    entry = {"hand": 1, "board": ["Ah"]}
    view: dict[str, Any] = {"type": "view", "recall": [entry], "n": 1}
    assert decode_body(packer.encode(view)[4:])["recall"] == [{"hand": 1, "board": ["Ah"]}]
    view["recall"] = [{"hand": 1, "board": ["Kd"]}]  # a new entry object: new bytes
    assert decode_body(packer.encode(view)[4:])["recall"][0]["board"] == ["Kd"]
    with pytest.raises(FrameError):
        packer.encode({"recall": []})
    with pytest.raises(FrameError) as caught:
        packer.encode({"type": "view", "recall": [{"x": "y" * 70_000}]})
    assert caught.value.reason == "oversize"


def test_an_unchanged_view_is_not_sent_again(tmp_path: pathlib.Path, pki: pathlib.Path) -> None:
    rig = Rig(tmp_path, pki)
    try:
        offered: list[int] = []
        lock = threading.Lock()
        server = rig.server
        offer = server._offer_view

        def counted(client_id: int, data: bytes) -> None:
            with lock:
                offered.append(client_id)
            offer(client_id, data)

        server._offer_view = counted  # type: ignore[method-assign]
        client = rig.connect("seat1")
        client.wait_for(is_view)
        rig.on_loop(lambda: None)  # nothing changed: every listener runs, nothing is sent
        rig.on_loop(lambda: None)
        rig.on_loop(lambda: None)  # the server thread ran the offers queued before this one
        with lock:
            before = len(offered)
        rig.on_loop(lambda: None)
        rig.on_loop(lambda: None)
        rig.on_loop(lambda: None)
        with lock:
            assert len(offered) == before
        start_hand(rig)  # a change: the view is sent
        view = client.wait_for(lambda m: is_view(m) and m["table"]["hand"] is not None)
        assert view["table"]["seats"][0]["cards"] != []
        with lock:
            assert len(offered) > before
    finally:
        rig.close()


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    from tests.test_protocol import make_ca, make_cert

    d = tmp_path_factory.mktemp("viewpack-pki")
    make_ca(d, "ca")
    make_cert(d, "controller", "ca", server=True)
    return d
