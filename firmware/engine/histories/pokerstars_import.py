"""Reading PokerStars-style hand-history text into PHH hands.

A card room checking a dispute may hold only another system's PokerStars-
style history. :func:`loads_pokerstars` turns each hand of such a text into a
:class:`~firmware.engine.histories.phh.PHHHand`, which ``pokertable replay``
then plays through our engine like any PHH hand: seats in play order (the
player left of the button first, the button last), posts as blinds, antes
(dead money, as PokerStars antes are) and dead blinds, ``Dealt to`` and shown
cards as hole cards (``????`` when unseen), each street's board, the actions
(``calls``/``checks`` to ``cc``, ``bets X`` and ``raises X to Y`` to ``cbr``),
and what each player ``collected`` as the hand's ``winnings``. The rake of
the summary line is kept (``PHHHand.ignored["_rake"]``, chip units) so the
replay can take it before comparing winnings.

Hold'em no-limit and fixed-limit hands are read; any other game is an error
for that hand only. Lines a site adds that change nothing (chat, players
joining, leaving, sitting out, timing out) are skipped.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from firmware.engine.histories.amounts import to_chips, unit_for
from firmware.engine.histories.phh_hand import MAX_PLAYERS, PHHHand
from firmware.engine.histories.phh_writer import slots_to_players
from firmware.engine.histories.phhs import PHHSEntry
from firmware.errors import HandHistoryError

_HAND_START = re.compile(r"^\ufeff?PokerStars (?:Hand|Game|Zoom Hand) #", re.MULTILINE)
_HEADER = re.compile(r"^PokerStars (?:Hand|Game|Zoom Hand) #(?P<id>\d+): *(?P<rest>.*)")
_STAKES = re.compile(r"\((?P<small>[^/()]+)/(?P<big>[^)\s]+)(?: [A-Z]{3})?\)")
_GAMES = {"Hold'em No Limit": "NT", "Hold'em Limit": "FT"}
_TABLE = re.compile(
    r"^Table '.*' (?:\d+-max )?(?:\(Play Money\) )?Seat #(?P<button>\d+) is the button"
)
_SEAT = re.compile(r"^Seat (?P<seat>\d+): (?P<name>.+?) \((?P<stack>[^ ]+) in chips")
_NUMBER = re.compile(r"[0-9][0-9,]*(?:\.[0-9]+)?")
_CARDS = re.compile(r"\[([2-9TJQKA][cdhs](?: [2-9TJQKA][cdhs])*)\]")
_STREETS = {"FLOP": 3, "TURN": 4, "RIVER": 5}


def _amount(text: str, where: str) -> Decimal:
    """The number in ``text`` (``$1,234.50`` is 1234.50)."""
    found = _NUMBER.search(text)
    if found is None:
        raise HandHistoryError(f"{where}: {text.strip()!r} gives no amount; write a number.")
    try:
        return Decimal(found.group(0).replace(",", ""))
    except InvalidOperation as exc:  # pragma: no cover - the pattern only matches numbers
        raise HandHistoryError(f"{where}: {text.strip()!r} is not a number.") from exc


def split_pokerstars(text: str) -> list[tuple[int, str]]:
    """``(first line, text)`` of every hand in a PokerStars-style file."""
    starts = [m.start() for m in _HAND_START.finditer(text)]
    out = []
    for k, begin in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(text)
        out.append((text.count("\n", 0, begin) + 1, text[begin:end]))
    return out


def loads_pokerstars(
    text: str, *, name: str = "<text>", unit: Decimal | None = None
) -> list[PHHSEntry]:
    """Every hand of a PokerStars-style text, read or with the reason it cannot be.

    :raises HandHistoryError: if the text holds no PokerStars hand at all.
    """
    hands = split_pokerstars(text)
    if not hands:
        raise HandHistoryError(
            f"{name} holds no PokerStars hand (a hand starts with 'PokerStars Hand #')."
        )
    entries = []
    for line, body in hands:
        found = _HEADER.match(body.lstrip("\ufeff"))
        label = found.group("id") if found else None
        where = f"{name} hand #{label}" if label else name
        try:
            entries.append(PHHSEntry(label, line, _read_hand(body, where, unit, line)))
        except HandHistoryError as exc:
            entries.append(PHHSEntry(label, line, None, str(exc)))
    return entries


def _read_hand(text: str, name: str, unit: Decimal | None, first: int) -> PHHHand:
    """One hand; ``name`` names it in errors, ``first`` is its first line in the file."""
    where = f"{name} (line {first})"
    lines = [raw.strip() for raw in text.lstrip("\ufeff").splitlines()]
    header = _HEADER.match(lines[0])
    if header is None:
        raise HandHistoryError(f"{where}: the first line is not a PokerStars hand header.")
    rest_of_header = header.group("rest")
    variant = next((v for g, v in _GAMES.items() if f" {g} " in f" {rest_of_header}"), None)
    stakes = _STAKES.search(rest_of_header)
    if variant is None or stakes is None:
        game = rest_of_header.split(" - ")[0]
        raise HandHistoryError(
            f"{where}: the game {game!r} is not read; only Hold'em No Limit and Hold'em Limit "
            "with their stakes in brackets, for example ($0.25/$0.50 USD)."
        )
    small, big = _amount(stakes.group("small"), where), _amount(stakes.group("big"), where)
    table = _TABLE.match(lines[1]) if len(lines) > 1 else None
    if table is None:
        raise HandHistoryError(
            f"{name}, line {first + 1}: expected \"Table '...' Seat #N is the button\"."
        )
    button = int(table.group("button"))
    seats: dict[int, tuple[str, Decimal]] = {}
    for raw in lines[2:]:
        seat = _SEAT.match(raw)
        if seat is None:
            if seats:
                break
            continue
        if "sitting out" not in raw:
            stack = _amount(seat.group("stack"), where)
            seats[int(seat.group("seat"))] = (seat.group("name"), stack)
    if not 2 <= len(seats) <= MAX_PLAYERS:
        raise HandHistoryError(
            f"{where}: {len(seats)} players are dealt in; a hand has 2 to {MAX_PLAYERS}."
        )
    order = sorted(seats, key=lambda s: (s <= button, s))  # left of the button first
    names = [seats[s][0] for s in order]
    index = {n: i for i, n in enumerate(names)}
    by_length = sorted(names, key=len, reverse=True)
    n = len(order)
    blinds = [Decimal(0)] * n
    antes = [Decimal(0)] * n
    dead = [Decimal(0)] * n
    holes: list[str | None] = [None] * n
    won = [Decimal(0)] * n
    actions: list[str] = []
    rake = Decimal(0)
    board: list[str] = []
    summary = False

    def who(line: str) -> tuple[int, str] | None:
        for player in by_length:
            if line.startswith(player + ": "):
                return index[player], line[len(player) + 2 :]
            if line.startswith(player + " collected "):
                return index[player], line[len(player) + 1 :]
        return None

    for number, line in enumerate(lines[2:], start=first + 2):
        at = f"{name}, line {number}"
        if line.startswith("*** "):
            title = line.strip("* ").split(" ***")[0]
            summary = summary or title == "SUMMARY"
            if title in _STREETS:
                cards = _CARDS.findall(line)
                dealt = " ".join(cards).split()
                fresh = dealt[len(board) :] if len(dealt) == _STREETS[title] else dealt
                if len(board) + len(fresh) != _STREETS[title]:
                    raise HandHistoryError(f"{at}: the {title.lower()} does not show its cards.")
                board.extend(fresh)
                actions.append("d db " + "".join(fresh))
            continue
        if summary:
            if line.startswith("Total pot"):
                _pot, _sep, rest = line.partition("| Rake")
                rake = _amount(rest, at) if rest else Decimal(0)
            continue
        found = who(line)
        if found is None:
            if line.startswith("Dealt to ") and not any(
                line.startswith(f"Dealt to {label}") for label in names
            ):
                raise HandHistoryError(f"{at}: {line!r} names a player who is not seated.")
            continue  # "Uncalled bet ... returned", chat, joins and leaves: nothing to replay
        player, rest = found
        p = f"p{player + 1}"
        rest = rest.removesuffix(" and is all-in")  # the engine knows who is all-in
        if rest.startswith("posts "):
            amount = _amount(rest, at)
            if "ante" in rest:
                antes[player] += amount
            elif "small & big" in rest:  # a dead small blind and a live big blind
                live = min(amount, small if variant == "FT" else big)
                blinds[player] += live
                dead[player] += amount - live
            else:
                blinds[player] += amount
        elif rest == "folds":
            actions.append(f"{p} f")
        elif rest in ("checks",) or rest.startswith("calls "):
            actions.append(f"{p} cc")
        elif rest.startswith("bets "):
            actions.append(f"{p} cbr {_plain(_amount(rest, at))}")
        elif rest.startswith("raises "):
            _by, _sep, to = rest.partition(" to ")
            if not to:
                raise HandHistoryError(f"{at}: write a raise as 'raises X to Y'.")
            actions.append(f"{p} cbr {_plain(_amount(to, at))}")
        elif rest.startswith("shows "):
            cards = _CARDS.findall(rest)
            if not cards:
                raise HandHistoryError(f"{at}: the shown cards are not written as [Ah Kd].")
            shown = "".join(cards[0].split())
            holes[player] = holes[player] or shown
            actions.append(f"{p} sm {shown}")
        elif rest.startswith("mucks"):
            actions.append(f"{p} sm")
        elif rest.startswith("collected "):
            won[player] += _amount(rest, at)
    for line in lines:
        if line.startswith("Dealt to "):
            for label in by_length:
                if line.startswith(f"Dealt to {label} ["):
                    cards = _CARDS.findall(line[len(label) + 9 :])
                    if cards:
                        holes[index[label]] = "".join(cards[-1].split())
                    break
    deals = [f"d dh p{i + 1} {holes[i] or '????'}" for i in range(n)]
    stacks = [seats[s][1] for s in order]
    money = [small, big, *stacks, *blinds, *antes, *dead, *won, rake]
    money.extend(Decimal(a.split()[-1]) for a in actions if " cbr " in a)
    chips_unit = unit if unit is not None else unit_for(money)

    def chips(values: list[Decimal], what: str) -> tuple[int, ...]:
        """Each of ``values`` in chips; ``what`` names one of them (``a starting stack``)."""
        return tuple(to_chips(v, chips_unit, what, where) for v in values)

    ignored: dict[str, object] = {"_rake": to_chips(rake, chips_unit, "the rake", where)}
    fixed = variant == "FT"
    return PHHHand(
        source=where,
        variant=variant,
        antes=slots_to_players(chips(antes, "an ante")),
        blinds_or_straddles=slots_to_players(chips(blinds, "a blind")),
        min_bet=None if fixed else to_chips(big, chips_unit, "the big blind", where),
        small_bet=to_chips(small, chips_unit, "the small bet", where) if fixed else None,
        big_bet=to_chips(big, chips_unit, "the big bet", where) if fixed else None,
        starting_stacks=chips(stacks, "a starting stack"),
        actions=tuple(deals + actions),
        ante_trimming_status=False,
        seats=tuple(order),
        players=tuple(names),
        dead=chips(dead, "a dead blind") if any(dead) else None,
        ignored=ignored,
        unit=chips_unit,
        winnings=chips(won, "an amount won"),
    )


def _plain(value: Decimal) -> str:
    """An amount as PHH action text: ``6`` for 6.00, ``0.06`` for 0.060."""
    text = format(value.normalize(), "f")
    return text


__all__ = ["loads_pokerstars", "split_pokerstars"]
