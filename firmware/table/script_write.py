"""Writing table scripts: each table event as the script line that reads back as it.

The reader is :mod:`firmware.table.script`; ``history show N --format script``
and the journal's export write with :func:`format_event` and
:func:`export_script`, so an incident on a real table replays on a laptop.
"""

from __future__ import annotations

import json

from firmware.engine.cards import format_card, format_cards
from firmware.table import event_records
from firmware.table import events as te
from firmware.table.options import TableConfig, profile_options
from firmware.table.script_text import ScriptError, quote_text


def format_event(event: te.TableEvent) -> str:
    """Write a table event as a script line (the inverse of :func:`parse_event`)."""
    if isinstance(event, te.CardDrawn):
        return f"draw {format_card(event.card)}"
    if isinstance(event, te.Act):
        return f"{event.seat} {event.action}" + (f" {event.amount}" if event.amount else "")
    simple = {
        te.Shuffle: "shuffle",
        te.Cut: "cut",
        te.PrematureCard: "dealer premature",
        te.DeckEmpty: "dealer deck-empty",
    }
    if type(event) in simple:
        return simple[type(event)]
    if isinstance(event, te.Tick):
        return f"tick {event.now:g}"
    if isinstance(event, te.WallClock):
        return f"wallclock {event.wall!r}"
    if isinstance(event, te.CallClock):
        return "clock"
    if isinstance(event, te.ExposedCard):
        return f"dealer exposed {format_card(event.card)}"
    if isinstance(event, te.FaceUpInDeck):
        return f"dealer face-up {format_card(event.card)}"
    if isinstance(event, te.MarkedCard):
        return f"dealer marked {format_card(event.card)}"
    if isinstance(event, te.BurnError):
        return f"dealer burn-error {event.case}"
    if isinstance(event, te.EmptySeatDealt):
        return f"dealer empty-seat {event.seat}"
    if isinstance(event, te.Misdeal):
        return f"dealer misdeal {_said(event.reason)}"
    if isinstance(event, te.KillSeat):
        return f"dealer kill {event.seat} {_said(event.reason)}"
    if isinstance(event, te.ShowCards):
        return f"show {event.seat} {format_cards(event.cards)}"
    if isinstance(event, te.MuckCards):
        return f"muck {event.seat}"
    if isinstance(event, te.Advance):
        return f"advance {event.seat} {event.action}"
    if isinstance(event, te.DeclareRaise):
        return f"declare {event.seat}"
    if isinstance(event, te.SitDown):
        extra = " wait" if event.wait_for_big_blind else " owes-bb" if event.owes_big_blind else ""
        card = f" card:{event.card}" if event.card else ""
        return f"sit {event.seat} {quote_text(event.player)} {event.chips}{extra}{card}"
    if isinstance(event, te.DrawButton):
        return f"drawbutton {','.join(map(str, event.seats))} {format_cards(event.cards)}"
    if isinstance(event, te.FloorCall):
        return f"callfloor {event.seat}"
    if isinstance(event, te.FloorAnswer):
        return f"floor answer {event.seat} {_said(event.staff)}"
    if isinstance(event, te.SitOut):
        return f"{'sitout' if event.out else 'sitin'} {event.seat}"
    if isinstance(event, te.Away):
        return f"{'away' if event.away else 'back'} {event.seat}"
    if isinstance(event, te.SeatRebuy):
        return f"{event.seat} rebuy {event.chips}"
    if isinstance(event, te.Rebuy):
        return f"rebuy {event.seat} {event.chips}"
    if isinstance(event, te.CashOut):
        return f"cashout {event.seat}"
    if isinstance(event, te.TimeCharge):
        card = f" card:{event.player}" if event.player else ""
        return f"timecharge {event.seat} {event.amount} {event.minutes}{card}"
    if isinstance(event, te.RakeZone):
        badge = f" {_said(event.resolved_by)}" if event.resolved_by else ""
        return f"rakezone {event.hand} {event.read} {event.computed}{badge}"
    if isinstance(event, te.SetButton):
        return f"setbutton {event.seat}"
    if isinstance(event, te.AdjustStack):
        return f"floor adjust {event.seat} {event.chips} {_said(event.reason)}"
    if isinstance(event, te.AwardPot):
        return f"floor award {','.join(map(str, event.seats))} {_said(event.reason)}"
    if isinstance(event, te.VoidByFloor):
        return f"floor void {_said(event.reason)}"
    if isinstance(event, te.UndoLast):
        return f"floor undo {_said(event.reason)}"
    if isinstance(event, te.DeckStep):
        if event.step == "show":
            return "deck show " + "".join("??" if c is None else format_card(c) for c in event.scan)
        return f"deck {event.step}"
    if isinstance(event, te.DeckChange):
        if event.by == "seat":
            return f"deck request {event.seat}"
        return f"deck change {event.by} {_said(event.reason)}".rstrip()
    if isinstance(event, te.LevelClock):
        return f"levels {event.action}" + (f" at {event.at}" if event.at is not None else "")
    if isinstance(event, te.DealOrder):
        hands = "any" if event.hands == -1 else event.hands
        return f"floor deal {hands}" + (f" round {event.round}" if event.round else "")
    if isinstance(event, te.Restore):
        return "restore " + json.dumps(event.state, separators=(",", ":"), ensure_ascii=False)
    if isinstance(event, te.JackpotAward):
        record = {k: v for k, v in event_records.to_record(event).items() if k != "kind"}
        return "jackpot " + json.dumps(record, separators=(",", ":"), ensure_ascii=False)
    if isinstance(event, te.BuyButton):
        return f"buybutton {event.seat}"
    if isinstance(event, te.Straddle):
        return f"straddle {event.seat}"
    if isinstance(event, te.ChipRace):
        return f"chiprace {event.old} {event.new} {format_cards(event.cards)}"
    if isinstance(event, te.BankOpen):  # bank_open, bank_fill, bank_credit
        what = event.kind.removeprefix("bank_").replace("open", "bank-open")
        return f"floor {what} {event.amount} {_badges(event.staff)}".rstrip()
    if isinstance(event, te.ShiftCount):
        return f"floor count {event.counted} {event.expected} {_badges(event.staff)}".rstrip()
    if isinstance(event, te.GivePenalty):
        rounds = f" {event.rounds}" if event.penalty == "rounds" else ""
        later = " next" if event.next_hand else ""
        return f"penalty {event.seat} {event.penalty}{rounds}{later} {_said(event.reason)}"
    if isinstance(event, te.RepairCard):
        return f"deck repair {format_card(event.card)}"
    if isinstance(event, te.WithdrawCard):
        return f"deck withdraw {format_card(event.card)}"
    raise ScriptError(f"The event {event!r} has no script form.")


def _badges(staff: tuple[str, ...]) -> str:
    """Staff badges, each one word as :func:`split_words` reads it back."""
    return " ".join(quote_text(str(b)) for b in staff)


def _said(text: str) -> str:
    """A reason or a name of several words, quoted when it would not read back as it is."""
    return quote_text(text, words=True) if text else ""


def export_script(config: TableConfig, events: list[te.TableEvent], deck_ready: bool) -> str:
    """Write a table's set-up and events as a script that replays them."""
    s = config.stakes
    lines = [f"profile {config.profile}"]
    stakes = f"stakes {s.structure.value} {s.small_blind}/{s.big_blind}"
    if s.ante:
        stakes += f" ante {s.ante}" + (" bb-ante" if s.big_blind_ante else "")
    if s.chip_unit != 1:
        stakes += f" unit {s.chip_unit}"
    if s.big_bet:
        stakes += f" big-bet {s.big_bet}"
    if s.time_charge:
        stakes += f" time {s.time_charge}/{s.time_charge_minutes}"
    lines.append(stakes)
    defaults = profile_options(config.profile)
    for name, value in vars(config.options).items():
        if getattr(defaults, name) != value:
            text = str(value).lower() if isinstance(value, bool) else str(value)
            lines.append(f"option {name} {text}")
    if deck_ready:
        lines.append("deck-ready")
    lines.extend(format_event(e) for e in events)
    return "\n".join(lines) + "\n"


__all__ = ["export_script", "format_event"]
