"""Issue 12, second round: calls for the floor, the draw for the button, seating by player
card and the action timer, at the table, through the journal and through the real server.

The table keeps each as a journaled event (so a restart rebuilds it); the
server completes the two requests a client must not choose (the draw's
cards, the carded player's name) on the controller's loop; the screens send
and show them (the screenshots are in ``tests/test_ui_game_screens.py``).
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pathlib
import random
from collections.abc import Iterator

import pygame
import pytest

from firmware.cli.config import player_directory
from firmware.engine.cards import card_rank, card_suit, format_card, parse_card
from firmware.errors import CardError, ConfigError, IllegalAction
from firmware.protocol.game import draw_button
from firmware.service.controller import Controller
from firmware.service.journal import Journal
from firmware.service.recovery import restore, store_table_setup
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.snapshot import restore_state, table_state
from firmware.table.table import Table
from firmware.views.audience import console_view, seat_view
from tests.test_ui_server_contract import Rig, console, exchange, logged, seat, send_all, taps

pytestmark = pytest.mark.xdist_group("ui_server_contract")


@pytest.fixture(autouse=True, scope="module")
def _display() -> Iterator[None]:
    pygame.init()
    pygame.display.set_mode((800, 480))
    yield
    pygame.quit()


def cash_table(**options: int) -> Table:
    config = TableConfig(
        "casino-cash", profile_options("casino-cash", **options), Stakes(small_blind=1, big_blind=2)
    )
    table = Table(config, deck_ready=True)
    for number in (1, 3, 5):
        table.apply(te.SitDown(number, f"P{number}", 200))
    return table


# ---------------------------------------------------------------- calls for the floor


def test_a_call_for_the_floor_stays_open_until_a_staff_member_answers_it() -> None:
    table = cash_table()
    table.apply(te.Tick(12.0))
    table.apply(te.FloorCall(3))
    with pytest.raises(IllegalAction, match="already called the floor") as refused:
        table.apply(te.FloorCall(3))
    assert refused.value.key == "error.floor_call.open"
    view = console_view(table, "en")
    assert view["console"]["floor_calls"] == [{"seat": 3, "name": "P3", "time": 12.0}]
    table.apply(te.Tick(40.0))
    table.apply(te.FloorAnswer(3, "Flor"))
    call = table.floor_calls.calls[0]
    assert (call.answered_by, call.answered_at) == ("Flor", 40.0)
    assert console_view(table, "en")["console"]["floor_calls"] == []
    with pytest.raises(IllegalAction, match="no open call") as refused:
        table.apply(te.FloorAnswer(3, "Flor"))
    assert refused.value.key == "error.floor_call.none"
    table.apply(te.FloorCall(3))  # answered, so the seat may call again
    assert [c.seat for c in table.floor_calls.open()] == [3]


def test_open_calls_and_the_draw_survive_a_snapshot_and_a_journal_replay(
    tmp_path: pathlib.Path,
) -> None:
    """A restart rebuilds the open calls, who answered the others, and the draw's cards."""
    journal = Journal(str(tmp_path / "journal.sqlite"))
    table = cash_table()
    config = table.config
    events: list[te.TableEvent] = [
        te.SitDown(1, "P1", 200),
        te.SitDown(3, "P3", 200),
        te.FloorCall(1),
        te.FloorCall(3),
        te.FloorAnswer(1, "Flor"),
        te.DrawButton((1, 3), (parse_card("Kh"), parse_card("Ks"))),
    ]
    store_table_setup(journal, config, True)
    fresh = Table(config, deck_ready=True)
    for event in events:
        journal.append(event)
        fresh.apply(event)
    problems: list[str] = []
    again = restore(journal, problems)
    journal.close()
    assert not problems
    assert [c.seat for c in again.floor_calls.open()] == [3]
    assert again.floor_calls.calls[0].answered_by == "Flor"
    assert again.button_draw == fresh.button_draw
    assert again.seating.next_button == 3  # king of spades over king of hearts
    # The snapshot that starts a rotated journal carries them too.
    copy = Table(config, deck_ready=True)
    restore_state(copy, table_state(again))
    assert table_state(copy)["floor_calls"] == table_state(again)["floor_calls"]
    assert copy.button_draw == again.button_draw


# ---------------------------------------------------------------- the draw for the button


def expected_winner(seats: tuple[int, ...], cards: tuple[int, ...]) -> int:
    """Highest rank, then spades > hearts > diamonds > clubs (computed from rank and suit)."""
    best = max(range(len(seats)), key=lambda i: (card_rank(cards[i]), card_suit(cards[i])))
    return seats[best]


@pytest.mark.parametrize("seed", range(40))
def test_tda_13_the_button_goes_to_the_highest_card_and_the_next_hand_uses_it(seed: int) -> None:
    """TDA-13: one card to each seated player; the highest card, suits breaking a tie in
    rank, takes the button of the next hand; the draw shows until that hand starts."""
    table = cash_table()
    rng = random.Random(seed)
    deck = list(range(52))
    rng.shuffle(deck)
    cards = tuple(deck[:3])
    if seed % 4 == 0:  # two cards of the same rank: the suit decides
        rank = card_rank(cards[0])
        cards = (rank * 4 + 0, rank * 4 + 3, cards[2]) if card_rank(cards[2]) != rank else cards
    table.apply(te.DrawButton((1, 3, 5), cards))
    winner = expected_winner((1, 3, 5), cards)
    view = seat_view(table, 5, "en")["table"]["button_draw"]
    assert view["button"] == winner
    assert [c["card"] for c in view["cards"]] == [format_card(c) for c in cards]
    table.apply(te.Shuffle())
    assert table.hand is not None and table.hand.plan.button == winner
    assert seat_view(table, 5, "en")["table"]["button_draw"] is None


@pytest.mark.parametrize(
    ("seats", "cards", "key"),
    [
        ((1, 3), (1, 2), "error.draw_button.seats"),  # seat 5 left out
        ((1, 3, 5, 7), (1, 2, 3, 4), "error.draw_button.seats"),  # an empty seat dealt
        ((3, 1, 5), (1, 2, 3), "error.draw_button.seats"),  # out of seat order
        ((1, 3, 5), (1, 2), "error.draw_button.seats"),  # a card short
        ((1, 3, 5), (1, 2, 99), "error.draw_button.card"),
    ],
)
def test_a_draw_that_does_not_match_the_seats_is_refused(
    seats: tuple[int, ...], cards: tuple[int, ...], key: str
) -> None:
    table = cash_table()
    with pytest.raises(IllegalAction, match="draw") as refused:
        table.apply(te.DrawButton(seats, cards))
    assert refused.value.key == key
    assert table.button_draw is None and table.seating.next_button is None


def test_a_card_twice_in_the_draw_and_a_draw_during_a_hand_are_refused() -> None:
    table = cash_table()
    with pytest.raises(CardError, match="appears twice"):
        table.apply(te.DrawButton((1, 3, 5), (7, 7, 8)))
    table.apply(te.SetButton(1))
    table.apply(te.Shuffle())
    with pytest.raises(IllegalAction, match="during a hand"):
        table.apply(te.DrawButton((1, 3, 5), (1, 2, 3)))


def test_the_controller_draws_from_its_random_source_and_journals_the_cards() -> None:
    table = cash_table()
    journaled: list[te.TableEvent] = []
    controller = Controller(table, {}, TagRegistry(":memory:"), journal=journaled.append)
    event = draw_button(controller, random.Random(3))
    assert journaled[-1] == event and event.seats == (1, 3, 5)
    assert len(set(event.cards)) == 3
    assert table.seating.next_button == expected_winner(event.seats, event.cards)
    alone = Table(table.config, deck_ready=True)
    alone.apply(te.SitDown(2, "Solo", 100))
    lonely = Controller(alone, {}, TagRegistry(":memory:"), journal=journaled.append)
    with pytest.raises(IllegalAction, match="at least two") as refused:
        draw_button(lonely)
    assert refused.value.key == "error.draw_button.players"
    assert journaled[-1] == event  # nothing refused reaches the journal


# ---------------------------------------------------------------- the action timer


def test_the_action_timer_then_the_time_bank_show_on_the_seats_and_the_bank_kills() -> None:
    """The acting seat's timer counts down, then its bank; when both are spent the
    controller's own tick journals the time and the hand is dead (no other event needed)."""
    table = cash_table(action_timer_seconds=20, time_bank_seconds=30)
    table.apply(te.SetButton(1))
    journaled: list[te.TableEvent] = []
    clock = [0.0]
    controller = Controller(
        table, {}, TagRegistry(":memory:"), journal=journaled.append, clock=lambda: clock[0]
    )
    controller.submit(te.Shuffle())
    controller.submit(te.Cut())
    card = 0
    th = table.hand
    assert th is not None
    while th.next_card_role()[0] == "hole":
        controller.submit(te.CardDrawn(card))
        card += 1
    actor = th.seat(th.hand.actor) if th.hand.actor is not None else None
    assert actor is not None
    timer = seat_view(table, actor, "en")["table"]["timer"]
    assert timer["seat"] == actor and timer["phase"] == "action" and timer["bank"] == 30
    controller.tick(table.now + 12)  # nothing changes but the clock: nothing journaled
    assert not isinstance(journaled[-1], te.Tick)
    timer = seat_view(table, actor, "en")["table"]["timer"]
    assert timer["phase"] == "action" and timer["left"] == pytest.approx(8, abs=0.01)
    controller.tick(table.now + 18)  # 30 s into the turn: 20 of bank left
    timer = seat_view(table, actor, "en")["table"]["timer"]
    assert timer["phase"] == "bank" and timer["left"] == pytest.approx(20, abs=0.01)
    position = th.position(actor)
    assert not th.hand.folded[position]
    controller.tick(table.now + 21)  # the bank is spent: the tick matters and is journaled
    assert isinstance(journaled[-1], te.Tick)
    assert table.hand is None or table.hand.hand.folded[position]


# ---------------------------------------------------------------- player cards


def test_the_player_directory_is_checked() -> None:
    assert player_directory([{"card": "P-1", "name": "Ana"}]) == {"P-1": "Ana"}
    for bad in (
        [{"card": "P-1"}],
        [{"card": "P-1", "name": "Ana", "pin": "1"}],
        [{"card": "P-1", "name": "Ana"}, {"card": "P-1", "name": "Bea"}],
        [{"card": "P-1", "name": "x" * 41}],
        {"card": "P-1"},
    ):
        with pytest.raises(ConfigError, match=r"[Pp]layer"):
            player_directory(bad)


@pytest.fixture
def rig(tmp_path: pathlib.Path) -> Iterator[Rig]:
    r = Rig(tmp_path)
    yield r
    r.close()


def put_card(rig: Rig, reader: str, identity: str | None) -> None:
    def run() -> None:
        if identity is None:
            rig.controller.state.readers.pop(reader, None)
        else:
            rig.controller.state.readers[reader] = identity

    rig.on_loop(run)


def test_cc_16_a_player_card_on_a_seats_reader_seats_that_player_from_the_console(
    rig: Rig,
) -> None:
    """CC-16: the card on seat 6's reader names the player; the console takes the buy-in
    and the seat; the table journals the seat with the card's id."""
    rig.controller.players = {"P-000123": "Ana Pérez"}
    put_card(rig, "seat6", "player:P-000123")
    client, screen = console(rig, "dealer")
    _, view = exchange(client, {"type": "language", "lang": "en"})
    screen.set_view(view)
    assert view["console"]["player_cards"] == [
        {"reader": "seat6", "seat": 6, "card": "P-000123", "name": "Ana Pérez"}
    ]
    screen.page = "game"
    screen.draw()
    assert any("Ana Pérez" in t for t in screen.drawn)  # the notice with its Seat button
    assert taps(screen, "seat_by_card") == []  # card and seat chosen: the buy-in is next
    out = taps(screen, "key_1", "key_5", "key_0", "flow_next")
    assert out == []
    summary = screen._summary()
    assert "Ana Pérez (P-000123)" in summary and "Buy-in: 150" in summary
    out = taps(screen, "flow_confirm")
    assert out == [
        {"type": "report", "report": "sit_card", "reader": "seat6", "seat": 6, "chips": 150}
    ]
    assert not send_all(client, screen, out)
    assert te.SitDown(6, "Ana Pérez", 150, card="P-000123") in logged(rig, te.SitDown)
    # The same card cannot take a second seat.
    refusals, _ = exchange(
        client, {"type": "report", "report": "sit_card", "reader": "seat6", "seat": 7, "chips": 50}
    )
    assert [r["key"] for r in refusals] == ["error.table.card_seated"]


@pytest.mark.parametrize(
    ("identity", "key"),
    [
        (None, "error.player_card.none"),
        ("staff:F-001", "error.player_card.not_player"),
        ("uid:04A1B2", "error.player_card.not_player"),
        ("player:P-999", "error.player_card.unknown"),
    ],
)
def test_only_a_known_player_card_on_the_reader_seats_a_player(
    rig: Rig, identity: str | None, key: str
) -> None:
    rig.controller.players = {"P-000123": "Ana Pérez"}
    put_card(rig, "seat6", identity)
    client, _ = console(rig, "dealer")
    message = {"type": "report", "report": "sit_card", "reader": "seat6", "seat": 6, "chips": 50}
    refusals, _ = exchange(client, message)
    assert [r["key"] for r in refusals] == [key]
    assert not [e for e in logged(rig, te.SitDown) if e.seat == 6]
    # A seat's terminal cannot seat anyone, and the name never comes from the message.
    seat_client, _ = seat(rig, 2)
    refusals, _ = exchange(seat_client, message)
    assert refusals and refusals[0]["key"].startswith("protocol.permission")
    refusals, _ = exchange(client, {**message, "player": "Mallory"})
    assert [r["key"] for r in refusals] == ["protocol.fields"]


# ---------------------------------------------------------------- through the server


def test_a_seats_call_for_the_floor_is_journaled_and_answered_from_the_console(
    rig: Rig,
) -> None:
    seat_client, seat_screen = seat(rig, 2)
    out = taps(seat_screen, "call_floor")
    assert not send_all(seat_client, seat_screen, out)
    assert logged(rig, te.FloorCall) == [te.FloorCall(2)]
    for _ in range(20):  # calling again and again while the call is open
        refusals, _ = exchange(seat_client, {"type": "call_floor"})
        assert [r["key"] for r in refusals] == ["error.floor_call.open"]
    assert logged(rig, te.FloorCall) == [te.FloorCall(2)]
    assert [a.key for a in rig.controller.alerts].count("alert.call_floor") == 1
    client, screen = console(rig, "floor")
    _, view = exchange(client, {"type": "language", "lang": "en"})
    screen.set_view(view)
    assert [c["seat"] for c in view["console"]["floor_calls"]] == [2]
    screen.draw()
    assert "Seat 2 calls the floor." in screen.drawn
    out = taps(screen, "answer_floor")
    assert out == [{"type": "report", "report": "answer_floor", "seat": 2}]
    assert not send_all(client, screen, out)
    answered = logged(rig, te.FloorAnswer)
    assert len(answered) == 1 and answered[0].seat == 2 and answered[0].staff != "floor"
    assert screen.console["floor_calls"] == []


def test_the_console_draws_for_the_button(rig: Rig) -> None:
    client, screen = console(rig, "dealer")
    out = taps(screen, "game", "game_draw_button", "flow_confirm")
    assert out == [{"type": "report", "report": "draw_button"}]
    assert not send_all(client, screen, out)
    (draw,) = logged(rig, te.DrawButton)
    assert draw.seats == (1, 2, 3)
    winner = expected_winner(draw.seats, draw.cards)
    assert rig.table.seating.next_button == winner
    assert screen.table["button_draw"]["button"] == winner
    refusals, _ = exchange(
        client, {"type": "report", "report": "draw_button", "cards": ["As", "Ks", "Qs"]}
    )
    assert [r["key"] for r in refusals] == ["protocol.fields"]  # the console picks no card
