"""The house's rake (HOUSE-RAKE in docs/rules.md): the policy, and the engine taking it.

Each case has a twin that just qualifies and one that just misses: no flop no
drop, the minimum pot, the cap, rounding down to the chip unit, side pots and
split pots with odd chips. Chips stay conserved: the stacks plus the rake
equal what the players brought.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware.engine.cards import parse_cards
from firmware.engine.events import DealBoard, DealHole, StartHand, from_record, to_record
from firmware.engine.hand import Hand, Phase
from firmware.engine.rules import GameKind, HandConfig, RakePolicy, Structure
from firmware.engine.showdown import auto_showdown_event
from firmware.errors import ConfigError
from tests.kit import act


def _start(stacks: list[int], rake: RakePolicy | None, chip_unit: int = 1, bb: int = 2) -> Hand:
    n = len(stacks)
    blinds = (bb, bb // 2) if n == 2 else (bb // 2, bb) + (0,) * (n - 2)
    config = HandConfig(
        Structure.NO_LIMIT, game=GameKind.CASH, min_bet=bb, chip_unit=chip_unit, rake=rake
    )
    return Hand.start(
        StartHand(
            config=config,
            seats=tuple(range(1, n + 1)),
            names=tuple(f"P{i}" for i in range(n)),
            stacks=tuple(stacks),
            antes=(0,) * n,
            blinds=blinds,
            dead=(0,) * n,
        )
    )


def _deal(hand: Hand, *holes: str) -> None:
    for player, text in enumerate(holes):
        hand.apply(DealHole(player, tuple(parse_cards(text))))


def _run_out(hand: Hand, board: str) -> None:
    cards = parse_cards(board)
    for part in (cards[:3], cards[3:4], cards[4:5]):
        if hand.phase is not Phase.BOARD:
            act_all_check(hand)
        hand.apply(DealBoard(tuple(part)))
    act_all_check(hand)
    while hand.phase is Phase.SHOWDOWN:
        hand.apply(auto_showdown_event(hand))


def act_all_check(hand: Hand) -> None:
    while hand.phase is Phase.BETTING and hand.actor is not None:
        act(hand, "c")


# ------------------------------------------------------------------- the policy


def test_rounding_down_to_the_chip_unit() -> None:
    """5 % of 490 is 24.5: 24 with a unit of 1, 20 with a unit of 5; 500 gives 25 whole."""
    five = RakePolicy(500)
    assert five.pot_rakes([490], board_cards=3, chip_unit=1) == [24]
    assert five.pot_rakes([490], board_cards=3, chip_unit=5) == [20]
    assert five.pot_rakes([500], board_cards=3, chip_unit=5) == [25]
    assert RakePolicy(250).pot_rakes([399, 400], board_cards=5, chip_unit=1) == [9, 10]


def test_no_flop_no_drop_just_qualifies_and_just_misses() -> None:
    """The flop dealt (three board cards) is raked; a hand that ends before it is not,
    unless the house turns the option off."""
    policy = RakePolicy(1000)
    assert policy.pot_rakes([100], board_cards=3, chip_unit=1) == [10]
    assert policy.pot_rakes([100], board_cards=0, chip_unit=1) == [0]
    assert RakePolicy(1000, no_flop_no_drop=False).pot_rakes([100], 0, 1) == [10]


def test_minimum_pot_just_qualifies_and_just_misses() -> None:
    """A hand whose pots total the minimum is raked; one chip less is not."""
    policy = RakePolicy(1000, min_pot=100)
    assert policy.pot_rakes([60, 40], board_cards=5, chip_unit=1) == [6, 4]
    assert policy.pot_rakes([60, 39], board_cards=5, chip_unit=1) == [0, 0]


def test_cap_across_the_hand_main_pot_first() -> None:
    """The cap bounds the whole hand: the main pot is raked first, then the side pots."""
    assert RakePolicy(500, cap=30).pot_rakes([400, 200], 5, 1) == [20, 10]  # just under
    assert RakePolicy(500, cap=29).pot_rakes([400, 200], 5, 1) == [20, 9]  # just reached
    assert RakePolicy(500, cap=15).pot_rakes([400, 200], 5, 1) == [15, 0]
    assert RakePolicy(500, cap=0).pot_rakes([4000], 5, 1) == [200]  # 0: no cap


@pytest.mark.parametrize(
    ("kwargs", "key"),
    [
        ({"basis_points": 10_001}, "config.rake.above_pot"),
        ({"basis_points": -1}, "config.rake.whole"),
        ({"basis_points": 500, "cap": -5}, "config.rake.whole"),
        ({"basis_points": 500, "min_pot": True}, "config.rake.whole"),
        ({"basis_points": 500, "no_flop_no_drop": 1}, "config.rake.flag"),
    ],
)
def test_a_rake_that_could_take_more_than_the_pot_is_refused(
    kwargs: dict[str, object], key: str
) -> None:
    """Bad rake options get a sentence with its catalog key; 100 % is the most."""
    with pytest.raises(ConfigError) as caught:
        RakePolicy(**kwargs)  # type: ignore[arg-type]
    assert caught.value.key == key
    assert RakePolicy(10_000).pot_rakes([77], 5, 1) == [77]


def test_the_policy_travels_with_the_hand_configuration() -> None:
    """The rake is journaled with the hand's start, so a replay rakes the same; an
    unraked configuration's record has no ``rake`` key (old journals read the same)."""
    policy = RakePolicy(500, cap=40, no_flop_no_drop=False, min_pot=20)
    config = HandConfig(Structure.NO_LIMIT, game=GameKind.CASH, rake=policy)
    assert HandConfig.from_record(config.to_record()) == config
    assert "rake" not in HandConfig(Structure.NO_LIMIT).to_record()
    assert HandConfig.from_record(HandConfig(Structure.NO_LIMIT).to_record()).rake is None


# ------------------------------------------------------------------- the engine


def test_raked_at_the_award_and_shown_per_pot() -> None:
    """A pot of 480 at 5 % (cap 30) pays 460 to the winner and 20 to the house."""
    hand = _start([1000, 1000, 1000], RakePolicy(500, cap=30), chip_unit=5, bb=10)
    _deal(hand, "AsAh", "KsKh", "2c7d")
    act(hand, "r160", "c", "f")  # the button raises to 160, the blinds: SB calls, BB folds
    _run_out(hand, "2d3h8sJcQd")
    result = hand.result
    assert result is not None
    (pot,) = result.pots
    assert (pot.amount, pot.rake, pot.winners) == (330, 15, (0,))
    assert dict(pot.shares) == {0: 315}
    assert result.rake == 15
    assert sum(result.finishing_stacks) + result.rake == 3000


def test_no_flop_no_drop_in_a_played_hand() -> None:
    """Everybody folds to the big blind before the flop: the house takes nothing."""
    hand = _start([1000, 1000, 1000], RakePolicy(500))
    _deal(hand, "AsAh", "KsKh", "2c7d")
    act(hand, "r20", "f", "f")
    assert hand.result is not None and hand.result.rake == 0
    assert sum(hand.result.finishing_stacks) == 3000


def test_side_pots_each_raked_on_their_own() -> None:
    """A short all-in makes a main pot of 300 and a side pot of 400: 5 % of each."""
    hand = _start([1000, 1000, 100], RakePolicy(500))
    _deal(hand, "KsKh", "QsQh", "AsAh")
    act(hand, "r100", "r300", "c")  # the button (short) all-in 100, then raise to 300, call
    _run_out(hand, "2d3h8sJc4d")
    result = hand.result
    assert result is not None
    assert [(p.amount, p.rake) for p in result.pots] == [(300, 15), (400, 20)]
    assert dict(result.pots[0].shares) == {2: 285}
    assert dict(result.pots[1].shares) == {0: 380}
    assert result.finishing_stacks == (1080, 700, 285)
    assert sum(result.finishing_stacks) + result.rake == 2100


def test_split_pot_with_odd_chips_after_the_rake() -> None:
    """A tie splits what is left once the rake is out, in whole chips, the odd chip to
    the first winner left of the button (TDA-3)."""
    hand = _start([1000, 1000, 1000], RakePolicy(1000), chip_unit=25, bb=50)
    _deal(hand, "2c3d", "4h5s", "6c7d")
    act(hand, "c", "c", "c")  # 150 in the pot
    _run_out(hand, "AhKhQhJhTh")  # a royal flush on the board: all three split
    result = hand.result
    assert result is not None
    (pot,) = result.pots
    # 10 % of 150 is 15, rounded down to the unit of 25: nothing; 150 split 50 each.
    assert (pot.amount, pot.rake) == (150, 0)
    hand = _start([1000, 1000, 1000], RakePolicy(1000), chip_unit=25, bb=50)
    _deal(hand, "2c3d", "4h5s", "6c7d")
    act(hand, "r250", "c", "c")  # 750 in the pot: 75 rounds down to 75 (3 units)
    _run_out(hand, "AhKhQhJhTh")
    result = hand.result
    assert result is not None
    (pot,) = result.pots
    assert (pot.amount, pot.rake) == (750, 75)
    # 675 is 27 units for three winners: 9 each, no odd unit.
    assert dict(pot.shares) == {0: 225, 1: 225, 2: 225}
    hand = _start([1000, 1000], RakePolicy(1000), chip_unit=25, bb=50)
    _deal(hand, "2c3d", "4h5s")
    act(hand, "r250", "c")  # 500 in the pot: rake 50, 450 = 18 units, 9 each
    _run_out(hand, "AhKhQhJhTh")
    assert hand.result is not None and hand.result.rake == 50
    hand = _start([1000, 1000], RakePolicy(1200), chip_unit=25, bb=50)
    _deal(hand, "2c3d", "4h5s")
    act(hand, "r250", "c")  # 12 % of 500 is 60: 50 (2 units); 450 is 18 units: 225 each
    _run_out(hand, "AhKhQhJhTh")
    assert hand.result is not None
    (pot,) = hand.result.pots
    assert (pot.rake, dict(pot.shares)) == (50, {0: 225, 1: 225})
    hand = _start([1000, 1000], RakePolicy(1500), chip_unit=25, bb=50)
    _deal(hand, "2c3d", "4h5s")
    act(hand, "r250", "c")  # 15 % of 500 is 75 (3 units); 425 is 17 units: odd unit first
    _run_out(hand, "AhKhQhJhTh")
    assert hand.result is not None
    (pot,) = hand.result.pots
    assert (pot.rake, dict(pot.shares)) == (75, {0: 225, 1: 200})


def test_replay_rebuilds_the_rake() -> None:
    """The hand's events, through their records, replay to the same raked result."""
    hand = _start([1000, 1000, 100], RakePolicy(500, cap=25))
    _deal(hand, "KsKh", "QsQh", "AsAh")
    act(hand, "r100", "r300", "c")
    _run_out(hand, "2d3h8sJc4d")
    records = [to_record(e) for e in hand.events]
    again = Hand.replay([from_record(r) for r in records])
    assert again.result == hand.result
    assert again.result is not None and again.result.rake == 25  # 15 + 10: the cap


CARDS = parse_cards("AsKdQhJc9s8d7h6c5s4d3h2cTsTdTh")


@settings(max_examples=150, deadline=None)
@given(
    stacks=st.lists(st.integers(min_value=1, max_value=60), min_size=2, max_size=4),
    basis_points=st.integers(min_value=0, max_value=10_000),
    cap=st.integers(min_value=0, max_value=50),
    min_pot=st.integers(min_value=0, max_value=100),
    unit=st.sampled_from([1, 2, 5]),
    no_flop_no_drop=st.booleans(),
)
def test_chips_are_conserved_with_any_rake(
    stacks: list[int],
    basis_points: int,
    cap: int,
    min_pot: int,
    unit: int,
    no_flop_no_drop: bool,
) -> None:
    """Every player all in: stacks plus the rake equal what was brought, no pot gives more
    than its share, the cap holds and every rake is whole chips of the unit."""
    stacks = [s * unit * 2 for s in stacks]
    policy = RakePolicy(basis_points, cap * unit, no_flop_no_drop, min_pot)
    hand = _start(stacks, policy, chip_unit=unit, bb=2 * unit)
    n = len(stacks)
    for player in range(n):
        hand.apply(DealHole(player, (CARDS[2 * player], CARDS[2 * player + 1])))
    while hand.phase is Phase.BETTING and hand.actor is not None:
        legal = hand.legal_actions()
        if legal.max_raise_to:
            act(hand, f"r{legal.max_raise_to}")
        else:
            act(hand, "c")
    board = CARDS[10:15]
    dealt = 0
    while hand.phase is not Phase.COMPLETE:
        if hand.phase is Phase.BOARD:
            count = 3 if dealt == 0 else 1
            hand.apply(DealBoard(tuple(board[dealt : dealt + count])))
            dealt += count
        elif hand.phase is Phase.SHOWDOWN:
            hand.apply(auto_showdown_event(hand))
        else:
            act(hand, "c")
    result = hand.result
    assert result is not None
    assert sum(result.finishing_stacks) + result.rake == sum(stacks)
    assert cap == 0 or result.rake <= cap * unit
    for pot in result.pots:
        assert pot.rake % unit == 0
        assert 0 <= pot.rake <= pot.amount * basis_points // 10_000
        assert sum(c for _p, c in pot.shares) == pot.amount - pot.rake


# ------------------------------------------------------------------- the configuration


RAKED_TOML = """
[table]
profile = "casino-cash"
small_blind = 5
big_blind = 10
chip_unit = 5
rake_basis_points = 500
rake_cap = 30
rake_min_pot = 40
"""


def test_the_stakes_name_the_rake_and_each_hand_carries_it() -> None:
    """``[table]`` rake keys become the policy of every hand's configuration."""
    from firmware.table.options import load_table_config

    config = load_table_config(RAKED_TOML)
    assert config.hand_config().rake == RakePolicy(500, cap=30, min_pot=40)
    plain = load_table_config('[table]\nprofile = "casino-cash"\n')
    assert plain.hand_config().rake is None


@pytest.mark.parametrize(
    ("extra", "key"),
    [
        ("rake_basis_points = 12000\n", "config.rake.above_pot"),
        ("rake_cap = 32\n", "config.rake.cap_unit"),
        ("rake_cap = -5\n", "config.rake.whole"),
        ('rake_no_flop_no_drop = "yes"\n', "config.table.type"),
    ],
)
def test_config_check_names_a_bad_rake_in_both_languages(extra: str, key: str) -> None:
    """``config check`` gives each bad rake option a sentence, in English and Spanish,
    and the table does not start with it."""
    import tomllib

    from firmware.cli.config_check import check_problems
    from firmware.cli.lang import said_error

    name = extra.split(" ")[0]
    lines = [line for line in RAKED_TOML.splitlines(True) if not line.startswith(name)]
    text = "".join(lines) + extra
    problems = check_problems(tomllib.loads(text), text, "table.toml")
    keys = [getattr(p, "key", None) for p in problems]
    assert key in keys, [str(p) for p in problems]
    problem = problems[keys.index(key)]
    english, spanish = said_error(problem, "en"), said_error(problem, "es")
    assert english != spanish and "{" not in spanish and "rake" in english


def test_a_raked_tournament_is_refused() -> None:
    """The rake is for cash games: a tournament configuration with one gets a sentence."""
    from firmware.table.options import load_table_config

    text = RAKED_TOML.replace("casino-cash", "tda-tournament")
    with pytest.raises(ConfigError) as caught:
        load_table_config(text)
    assert caught.value.key == "config.rake.not_cash"
