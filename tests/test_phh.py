"""PHH reading and writing (firmware.engine.histories.phh): syntax, order, strictness."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from firmware.engine.cards import parse_card
from firmware.engine.events import (
    BetRaise,
    CheckCall,
    DealBoard,
    DealHole,
    Fold,
    Muck,
    Show,
    StartHand,
)
from firmware.engine.hand import Hand, Phase
from firmware.engine.histories.phh import (
    dump_phh,
    dumps_phh,
    hand_to_phh,
    load_phh,
    loads_phh,
    play_phh,
)
from firmware.engine.rules import GameKind, HandConfig, Structure
from firmware.errors import HandHistoryError

DATA = Path(__file__).parent / "data" / "phh"

HEADS_UP = """
variant = "NT"
antes = [0, 0]
blinds_or_straddles = [1, 2]
min_bet = 2
starting_stacks = [100, 50]
actions = ["d dh p1 AcKd", "d dh p2 2c3d", "p2 cc", "p1 cc",
           "d db JcJdJh", "p1 cc", "p2 cc", "d db 2h", "p1 cc", "p2 cc",
           "d db 5s", "p1 cbr 10", "p2 f"]
"""


def test_heads_up_blind_slots_are_reversed_to_positions() -> None:
    phh = loads_phh(HEADS_UP)
    start = phh.start_event()
    # p1 (position 0) is the big blind, p2 (position 1, the button) posts the small blind.
    assert start.blinds == (2, 1)
    hand = Hand.start(start)
    assert hand.stacks == [98, 49]
    replay = play_phh(phh)
    assert replay.hand.result is not None
    assert replay.hand.result.finishing_stacks == (102, 48)


def test_three_players_slots_are_positions_and_antes_kinds() -> None:
    text = """
variant = "NT"
ante_trimming_status = true
antes = [1, 1, 1]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [10, 20, 30]
actions = []
"""
    start = loads_phh(text).start_event()
    assert start.blinds == (1, 2, 0)
    assert start.antes == (1, 1, 1) and start.dead == (0, 0, 0)
    dead = loads_phh(text.replace("true", "false")).start_event()
    assert dead.antes == (0, 0, 0) and dead.dead == (1, 1, 1)


def test_fixed_limit_config_and_unknown_fields_ignored() -> None:
    phh = load_phh(DATA / "ft_four_handed_bb_ante_unknown_cards.phh")
    config = phh.config(GameKind.CASH)
    assert config == HandConfig(Structure.FIXED_LIMIT, GameKind.CASH, min_bet=10, big_bet=20)
    assert phh.start_event().dead == (0, 10, 0, 0)
    events = phh.to_events()
    assert events[1] == DealHole(0, (None, None))
    assert events[2] == DealHole(1, (parse_card("Qs"), parse_card("Qd")))
    assert Fold(2) in events and BetRaise(3, 20) in events


def test_action_syntax_to_events() -> None:
    text = """
variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [100, 100, 100]
actions = ["d dh p1 Ac??", "# a comment only", "p3 cbr 6 # raise", "p1 cc", "p2 f",
           "d db 2c3c4c", "p1 sm AcKd", "p2 sm"]
"""
    events = loads_phh(text).to_events()
    assert isinstance(events[0], StartHand)
    assert events[1:] == [
        DealHole(0, (parse_card("Ac"), None)),
        BetRaise(2, 6),
        CheckCall(0),
        Fold(1),
        DealBoard((parse_card("2c"), parse_card("3c"), parse_card("4c"))),
        Show(0, (parse_card("Ac"), parse_card("Kd"))),
        Muck(1),
    ]


@pytest.mark.parametrize(
    ("action", "fragment"),
    [
        ("p1 xx", "not Texas hold'em PHH syntax"),
        ("p9 f", "has players p1 to p3"),
        ("q1 f", "not a player label"),
        ("p1 cbr 2,5", "write an amount"),
        ("d db ??2c3c", "unknown card"),
        ("p1 sm -", "without naming them"),
        ("p1 sd", "not Texas hold'em PHH syntax"),
        ("d dh p1 AcKx", "not valid"),
    ],
)
def test_bad_action_syntax_names_file_index_and_text(action: str, fragment: str) -> None:
    text = f"""
variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [100, 100, 100]
actions = ["d dh p2 AcKd", "{action}"]
"""
    with pytest.raises(HandHistoryError) as info:
        loads_phh(text, name="bad.phh").to_events()
    message = str(info.value)
    assert "bad.phh" in message and "action 1" in message and repr(action) in message
    assert fragment in message


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (('variant = "NT"', 'variant = "PO"'), "not a Texas hold'em variant"),
        (("min_bet = 2\n", ""), "lacks the field 'min_bet'"),
        (("starting_stacks = [100, 50]", "starting_stacks = [100, 50, 7]"), "one value per player"),
        (("starting_stacks = [100, 50]", "starting_stacks = [100, -50]"), "from 0 to"),
        (("variant", "variant = = "), "not valid TOML"),
    ],
)
def test_bad_fields(change: tuple[str, str], fragment: str) -> None:
    with pytest.raises(HandHistoryError, match=fragment):
        loads_phh(HEADS_UP.replace(*change, 1))


def test_missing_check_is_an_error_not_a_repair() -> None:
    with pytest.raises(HandHistoryError) as info:
        play_phh(load_phh(DATA / "illegal_missing_check.phh"))
    message = str(info.value)
    assert "illegal_missing_check.phh" in message
    assert "action 7 ('p2 cbr 4')" in message
    assert "not legal" in message


def test_incomplete_hand_is_reported_unless_it_stops_at_showdown() -> None:
    phh = load_phh(DATA / "ft_four_handed_bb_ante_unknown_cards.phh")
    with pytest.raises(HandHistoryError, match="waits for p2 to show or muck"):
        play_phh(phh)
    played = play_phh(phh, finish_showdown=True)
    assert played.auto_showdown == 2
    assert played.hand.result is not None
    assert list(played.hand.result.finishing_stacks) == list(phh.finishing_stacks or ())
    cut = loads_phh(HEADS_UP.replace(', "p2 f"]', "]"), name="cut.phh")
    with pytest.raises(HandHistoryError, match="waits for an action by p2"):
        play_phh(cut, finish_showdown=True)


def test_action_after_the_end_is_an_error() -> None:
    extra = HEADS_UP.replace('"p2 f"]', '"p2 f", "p1 sm AcKd"]')
    with pytest.raises(HandHistoryError, match="after the hand is already over"):
        play_phh(loads_phh(extra))


def test_allin_shows_before_runout_and_muck_refused() -> None:
    played = play_phh(load_phh(DATA / "nt_heads_up_allin.phh"))
    assert played.hand.result is not None
    assert played.hand.result.finishing_stacks == (0, 200)
    text = (DATA / "nt_heads_up_allin.phh").read_text().replace('"p1 sm AcKd"', '"p1 sm"')
    with pytest.raises(HandHistoryError, match="cannot be mucked"):
        play_phh(loads_phh(text))
    wrong = (DATA / "nt_heads_up_allin.phh").read_text().replace('"p1 sm AcKd"', '"p1 sm AhKd"')
    with pytest.raises(HandHistoryError, match="action 5"):
        play_phh(loads_phh(wrong))


def test_sample_files_replay_to_their_finishing_stacks() -> None:
    for path in sorted(DATA.glob("*.phh")):
        if path.name.startswith("illegal"):
            continue
        phh = load_phh(path)
        played = play_phh(phh, finish_showdown=True)
        assert played.hand.result is not None
        assert phh.finishing_stacks is not None
        assert list(played.hand.result.finishing_stacks) == list(phh.finishing_stacks), path


def test_export_round_trip(tmp_path: Path) -> None:
    for path in sorted(DATA.glob("*.phh")):
        if path.name.startswith("illegal"):
            continue
        first = play_phh(load_phh(path), finish_showdown=True).hand
        out = tmp_path / path.name
        dump_phh(first, out)
        again = play_phh(load_phh(out)).hand
        assert again.snapshot()["board"] == first.snapshot()["board"]
        assert again.result is not None and first.result is not None
        assert again.result.finishing_stacks == first.result.finishing_stacks
        reread = load_phh(out)
        assert reread.finishing_stacks == first.result.finishing_stacks
        assert loads_phh(dumps_phh(reread), name=str(out)) == reread


def test_export_mixed_antes_and_dead_and_refuse_pot_limit() -> None:
    config = HandConfig(Structure.NO_LIMIT, min_bet=2)
    start = StartHand(
        config, (1, 2, 3), ("a", "b", "c"), (50, 50, 50), (1, 1, 1), (1, 2, 0), (1, 0, 0)
    )
    hand = Hand.start(start)
    text = hand_to_phh(hand)
    back = loads_phh(text).start_event()
    assert back == start
    pl = Hand.start(
        StartHand(
            HandConfig(Structure.POT_LIMIT), (1, 2), ("a", "b"), (9, 9), (0, 0), (2, 1), (0, 0)
        )
    )
    with pytest.raises(HandHistoryError, match="pot-limit"):
        hand_to_phh(pl)


def test_unreadable_path() -> None:
    with pytest.raises(HandHistoryError, match="cannot be read"):
        load_phh(Path("/nonexistent/hand.phh"))


def test_hand_phase_after_replay_is_complete() -> None:
    played = play_phh(load_phh(DATA / "nt_three_way_side_pot.phh"))
    assert played.hand.phase is Phase.COMPLETE
    assert played.hand.names == ("Alice", "Bob", "Carol")


# ------------------------------------------------------- the fast TOML subset


def _exported_hands(count: int) -> list[str]:
    from tests.pokerkit_harness import play_random_hand

    texts = []
    for seed in range(count):
        outcome = play_random_hand(seed)
        start = outcome.start
        if outcome.findings or start.config.structure is Structure.POT_LIMIT:
            continue
        if any(start.antes) and any(start.dead):
            continue
        texts.append(hand_to_phh(outcome.hand))
    return texts


@pytest.mark.soak
@pytest.mark.filterwarnings("ignore:A card being dealt:UserWarning")
def test_fast_toml_reads_exactly_what_tomllib_reads() -> None:
    import tomllib

    from firmware.engine.histories.fasttoml import fast_toml

    data_dir = Path(__file__).parent / "data" / "phh"
    texts = [p.read_text(encoding="utf-8") for p in sorted(data_dir.glob("*.phh"))]
    texts += _exported_hands(int(os.environ.get("POKERTABLE_DIFF_HANDS", "2000")))
    from pokerkit import HandHistory

    texts += [HandHistory.loads(t).dumps() for t in texts[:300]]  # PokerKit's own writer
    assert len(texts) > 1000
    for text in texts:
        ours = fast_toml(text)
        assert ours is not None, text  # every file we and PokerKit write is in the subset
        theirs = tomllib.loads(text)
        assert ours == theirs
        assert [type(v) for v in ours.values()] == [type(v) for v in theirs.values()]
        assert [type(x) for v in ours.values() if isinstance(v, list) for x in v] == [
            type(x) for v in theirs.values() if isinstance(v, list) for x in v
        ]
    for text in (
        "",
        "a=1",
        "a = [1, 2, ]  # c\n# x\nb = true",
        "a = [\n 1, # one\n 2\n]\n",
        "k-1 = -0",
        'a = ["x", 2, false]',
        "a = []",
        'a = ["#", "t"] # "q"',
        'a = ["x" # "y", 3\n, "z"]',
        'a = "x"\t# t\n',
        'a = [true, "f"]',
        '  a  =  "é"  ',
        "a = 'x'",
        "a = ['d dh p1 AcKd', 'p2 f', '']",
        "a = ['a\"b#c', \"it's\"] # 'c'",
        "a = [\n  'x', # 'y'\n  'z',\n]",
        "a = [\n    1,\n    -2,\n]\nb = 'x'\n\nc = [\n]\n",
        "a = ['x', 'y']\nb = [1, 2]\nc = true\nd = ''\n",
        'a = "x\ty"\nb = [\n    "O\'Brien",\n]\n',
        'a = ["x", "y"]\nb = [\n    false,\n    true\n]\n',
        "a = [1, 2]  ",
    ):
        assert fast_toml(text) == tomllib.loads(text), text


@pytest.mark.parametrize(
    "text",
    [
        "a = 1.5",
        "a = 1\na = 2",
        "[t]\na = 1",
        'a = "x\\n"',
        "a = [1,,2]",
        "a = [,]",
        "a = 1 2",
        "a =\n1",
        "a = +1",
        "a = 'x''y'",
        "a = 01",
        'a = """x"""',
        "a.b = 1",
        "a = {x = 1}",
        "a = [1\n2]",
        "= 1",
        "a = 1979-05-27",
        "a = [[1]]",
        'a = "x"\r\n',
        "a = 12345678901234567890",
        "a = [\n    1,\n    12345678901234567890,\n]\n",
        "a = [\n,\n]\n",
        "a = NaN",
        "a = null",
        "a = 1e5",
        'a = {"x": 1}',
        "a = [\n    [1],\n]\n",
        'a = "x"\nb = "\x7f"\n',
    ],
)
def test_fast_toml_leaves_everything_else_to_tomllib(text: str) -> None:
    from firmware.engine.histories.fasttoml import fast_toml

    assert fast_toml(text) is None  # the caller falls back to tomllib
