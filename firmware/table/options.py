"""Rules profiles: named option sets where the source documents disagree.

Every option has a documented default and the rule it comes from. A table's
TOML configuration names a profile and may override options; an unknown
option is an error that names it (a typo must stop the table, not change a
rule silently).

>>> opts = profile_options("casino-cash")
>>> opts.button, opts.missed_blinds, opts.reentry_wait_minutes
('forward', True, 30)
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from firmware.engine.rules import GameKind, HandConfig, OddChips, RakePolicy, Structure
from firmware.errors import ConfigError
from firmware.table.jackpot import JackpotRules, parse_jackpot
from firmware.table.walltime import check_zone

MAX_AMOUNT = 10**12
"""The largest amount (or whole-number option) a configuration may give: chips are
integers in the smallest unit, and the journal and the protocol carry 64-bit ones."""

TYPE_NAMES = {int: "a whole number", str: "a text", bool: "true or false", float: "a number"}
"""How a configuration value's expected type is said in a sentence."""


def type_name(expected: type) -> str:
    """``expected`` as the sentence says it (``a whole number``, ``true or false``)."""
    return TYPE_NAMES.get(expected, f"a {expected.__name__}")


def _said(key: str, text: str) -> dict[str, Any]:
    """A value that is itself a catalog sentence: an error's ``params`` carry it so a
    screen or the command translates it too (:func:`firmware.views.alerts.said`)."""
    return {"key": key, "params": {}, "text": text}


def type_said(expected: type) -> dict[str, Any]:
    """``expected`` as a translatable value (``config.type.int``: a whole number)."""
    return _said(f"config.type.{expected.__name__}", type_name(expected))


@dataclass(frozen=True)
class TableOptions:
    """House options of a table. Each field's docstring names its source rule."""

    game: str = "cash"
    """``cash`` or ``tournament`` (CC-8: the fixed-limit cap heads-up differs)."""
    button: str = "forward"
    """``forward`` (CC-12: cash games) or ``dead`` (TDA-6: tournaments)."""
    missed_blinds: bool = True
    """Missed-blind markers ML/MS and posting on return (CC-14, CC-15, HG-15)."""
    dead_small_blind: bool = True
    """The small-blind part posted on return is dead (CC-14, CC-15, HG-15)."""
    missed_blinds_free_in_big_blind: bool = False
    """The common "wait for the big blind" exception: a marked player who comes back
    exactly in the big blind posts only the big blind. Off (the seeds): he also posts
    the dead small blind he owes (CC-14, HG-15)."""
    absent_dealt_in: bool = False
    """Absent players are dealt in and their hands killed (TDA-8, HG-17)."""
    buy_button: bool = False
    """A new player at the button may pay both blinds and play at once (HG-16)."""
    straddle: bool = False
    """The player left of the big blind may post a live straddle of two big blinds
    (cash-game house option)."""
    auto_all_in_below_small_blind: bool = False
    """A stack below the small blind is all-in next hand in any position (HG-18)."""
    raise_cap: int = 4
    """Fixed-limit: most full bets in a round, big blind included (CC-8)."""
    limit_all_in_percent: int = 50
    """Fixed-limit: an all-in of at least this percentage of a bet counts as a full
    bet or raise and reopens the betting (TDA 2022 rule 47B); 100: only a full bet."""
    odd_chips: str = "first"
    """Leftover units of a split: ``first`` winner left of the button or ``one-each`` (TDA-3)."""
    min_buy_in_multiple: int = 10
    """Minimum buy-in as a multiple of the lower limit / big blind (CC-16)."""
    max_buy_in_multiple: int = 0
    """Maximum buy-in as a multiple of the big blind; 0 means no maximum (house)."""
    reentry_wait_minutes: int = 30
    """After cashing out, minutes before the same player may sit again (HG-6)."""
    deck_change_on_request: bool = True
    """Players may ask for a deck change for good reason (PE-1; TDA-16 says no)."""
    pot_display: str = "always"
    """``always`` or ``pot-limit-only`` (TDA-34: the pot is told only in pot-limit)."""
    chip_race_round_up: bool = True
    """Round the raced odd-chip total up to whole higher chips (HG-19)."""
    clock_seconds: int = 60
    """Time a player has once the clock is called (TDA-5)."""
    clock_countdown_seconds: int = 10
    """The last seconds of the clock counted down aloud (TDA-5)."""
    action_timer_seconds: int = 0
    """Automatic action timer: seconds for every decision, then the time bank, then the
    hand is dead; 0 disables it (house option beside TDA-5)."""
    time_bank_seconds: int = 0
    """The time bank of each player for the automatic action timer, per hand."""
    max_seats: int = 10
    """Seats at the table; at most 10 (CC-16)."""
    void_on_recovery: bool = False
    """After a power loss, void the open hand with exact refunds instead of resuming."""

    def __post_init__(self) -> None:
        choices = {
            "game": ("cash", "tournament"),
            "button": ("forward", "dead"),
            "odd_chips": ("first", "one-each"),
            "pot_display": ("always", "pot-limit-only"),
        }
        for name, allowed in choices.items():
            if getattr(self, name) not in allowed:
                raise ConfigError(
                    f"The option {name} must be one of {', '.join(allowed)}, "
                    f"not {getattr(self, name)!r}.",
                    key="config.option.choice",
                    option=name,
                    allowed=", ".join(allowed),
                    value=repr(getattr(self, name)),
                )
        if not 2 <= self.max_seats <= 10:
            raise ConfigError(
                f"The option max_seats must be from 2 to 10 (CC-16), not {self.max_seats}.",
                key="config.option.max_seats",
                value=self.max_seats,
            )
        for name in ("raise_cap", "clock_seconds"):
            if getattr(self, name) < 1:
                raise ConfigError(
                    f"The option {name} must be at least 1.",
                    key="config.option.positive",
                    option=name,
                )
        for name in (
            "action_timer_seconds",
            "time_bank_seconds",
            "min_buy_in_multiple",
            "max_buy_in_multiple",
            "reentry_wait_minutes",
        ):
            if getattr(self, name) < 0:
                raise ConfigError(
                    f"The option {name} must be 0 or more.",
                    key="config.option.not_negative",
                    option=name,
                )
        if not 0 <= self.clock_countdown_seconds <= self.clock_seconds:
            raise ConfigError(
                f"The option clock_countdown_seconds ({self.clock_countdown_seconds}) must be "
                f"from 0 to clock_seconds ({self.clock_seconds}): the last seconds of the clock "
                "are counted down (TDA-5).",
                key="config.option.countdown",
                countdown=self.clock_countdown_seconds,
                clock=self.clock_seconds,
            )
        if 0 < self.max_buy_in_multiple < self.min_buy_in_multiple:
            raise ConfigError(
                f"The option max_buy_in_multiple ({self.max_buy_in_multiple}) is below "
                f"min_buy_in_multiple ({self.min_buy_in_multiple}): no buy-in could be "
                "accepted (CC-16). Raise the maximum, or give 0 for none.",
                key="config.option.buy_in",
                most=self.max_buy_in_multiple,
                least=self.min_buy_in_multiple,
            )
        if not 1 <= self.limit_all_in_percent <= 100:
            raise ConfigError(
                "The option limit_all_in_percent must be from 1 to 100, not "
                f"{self.limit_all_in_percent}.",
                key="config.option.percent",
                value=self.limit_all_in_percent,
            )


PROFILES: dict[str, dict[str, Any]] = {
    "tda-tournament": {
        "game": "tournament",
        "button": "dead",
        "missed_blinds": False,
        "absent_dealt_in": True,
        "deck_change_on_request": False,
        "pot_display": "pot-limit-only",
        "chip_race_round_up": True,
        "min_buy_in_multiple": 0,
        "reentry_wait_minutes": 0,
    },
    "casino-cash": {
        "game": "cash",
        "button": "forward",
        "missed_blinds": True,
        "dead_small_blind": True,
        "min_buy_in_multiple": 10,
        "reentry_wait_minutes": 30,
        "deck_change_on_request": True,
    },
    "home": {
        "game": "cash",
        "button": "forward",
        "missed_blinds": True,
        "dead_small_blind": True,
        "min_buy_in_multiple": 10,
        "reentry_wait_minutes": 30,
        "deck_change_on_request": True,
        "buy_button": True,
        "auto_all_in_below_small_blind": True,
    },
}
"""The shipped profiles, as overrides of :class:`TableOptions` defaults."""

OPTION_NAMES = tuple(f.name for f in dataclasses.fields(TableOptions))


def profile_options(profile: str, **overrides: Any) -> TableOptions:
    """Return the options of ``profile`` with ``overrides`` applied.

    :raises ConfigError: for an unknown profile or option, naming it.
    """
    if profile not in PROFILES:
        raise ConfigError(
            f"There is no rules profile '{profile}'; choose one of {', '.join(PROFILES)}.",
            key="config.profile.unknown",
            profile=profile,
            known=", ".join(PROFILES),
        )
    unknown = sorted(set(overrides) - set(OPTION_NAMES))
    if unknown:
        raise ConfigError(
            f"Unknown table option(s): {', '.join(unknown)}. Known options are: "
            f"{', '.join(OPTION_NAMES)}.",
            key="config.option.unknown",
            unknown=", ".join(unknown),
            known=", ".join(OPTION_NAMES),
        )
    values = {**PROFILES[profile], **overrides}
    for field in dataclasses.fields(TableOptions):
        if field.name in values:
            expected = type(field.default)
            value = values[field.name]
            if type(value) is not expected:
                raise ConfigError(
                    f"The option {field.name} must be {type_name(expected)}, not {value!r}.",
                    key="config.option.type",
                    option=field.name,
                    expected=type_said(expected),
                    value=repr(value),
                )
            if isinstance(value, int) and abs(value) > MAX_AMOUNT:
                raise ConfigError(
                    f"The option {field.name} = {value} is out of range; "
                    f"give at most {MAX_AMOUNT}.",
                    key="config.option.range",
                    option=field.name,
                    value=value,
                    most=MAX_AMOUNT,
                )
    return TableOptions(**values)


MAX_TIME_CHARGE_MINUTES = 1440
"""The longest period of the time charge (HOUSE-TIME): a day."""


def check_time_charge(stakes: Stakes) -> None:
    """Refuse a time charge that cannot be taken (HOUSE-TIME), with a sentence.

    :raises ConfigError: a negative or oversized charge, one not in whole chips, a
        period outside 1 to 1440 minutes, or a time charge together with a rake.
    """
    charge, minutes = stakes.time_charge, stakes.time_charge_minutes
    if not 0 <= charge <= MAX_AMOUNT:
        raise ConfigError(
            f"The time_charge must be a whole number of chips from 0 to {MAX_AMOUNT}, "
            f"not {charge}.",
            key="config.time_charge.amount",
            amount=charge,
            most=MAX_AMOUNT,
        )
    if not 1 <= minutes <= MAX_TIME_CHARGE_MINUTES:
        raise ConfigError(
            f"The time_charge_minutes must be from 1 to {MAX_TIME_CHARGE_MINUTES} "
            f"(the period charged for), not {minutes}.",
            key="config.time_charge.minutes",
            minutes=minutes,
            most=MAX_TIME_CHARGE_MINUTES,
        )
    if charge % stakes.chip_unit:
        raise ConfigError(
            f"The time_charge ({charge}) must be a multiple of the chip unit "
            f"({stakes.chip_unit}): it is taken in whole chips.",
            key="config.time_charge.unit",
            amount=charge,
            unit=stakes.chip_unit,
        )
    if charge and stakes.rake_basis_points:
        raise ConfigError(
            "The stakes set both a rake (rake_basis_points) and a time charge (time_charge); "
            "the house takes one or the other: set one of them to 0.",
            key="config.time_charge.with_rake",
        )


@dataclass(frozen=True)
class Stakes:
    """Betting structure and forced bets of a table (or of a tournament level),
    and the house's rake at these stakes (HOUSE-RAKE; cash games only).

    ``rake_basis_points`` is the share of each pot in hundredths of a percent
    (500: 5 %; 0: no rake), ``rake_cap`` the most taken from one hand (0: no
    cap), ``rake_min_pot`` the smallest hand total raked (0: every hand) and
    ``rake_no_flop_no_drop`` leaves a hand that ends before the flop unraked.
    ``time_charge`` is the house's charge per seated player per period of
    ``time_charge_minutes`` instead of a rake (HOUSE-TIME; 0: none); the two
    are mutually exclusive.
    """

    structure: Structure = Structure.NO_LIMIT
    small_blind: int = 1
    big_blind: int = 2
    ante: int = 0
    big_blind_ante: bool = False
    big_bet: int = 0
    chip_unit: int = 1
    rake_basis_points: int = 0
    rake_cap: int = 0
    rake_min_pot: int = 0
    rake_no_flop_no_drop: bool = True
    time_charge: int = 0
    time_charge_minutes: int = 30

    def rake(self) -> RakePolicy | None:
        """The rake policy at these stakes, or ``None`` when nothing is raked."""
        if not self.rake_basis_points:
            return None
        return RakePolicy(
            basis_points=self.rake_basis_points,
            cap=self.rake_cap,
            no_flop_no_drop=self.rake_no_flop_no_drop,
            min_pot=self.rake_min_pot,
        )

    def __post_init__(self) -> None:
        if self.big_blind < 1 or self.small_blind < 0 or self.ante < 0 or self.chip_unit < 1:
            raise ConfigError(
                "Stakes need a big blind of at least 1, a small blind and ante of 0 or more "
                "and a chip unit of at least 1.",
                key="config.stakes.minimum",
            )
        amounts = {
            "small blind": self.small_blind,
            "big blind": self.big_blind,
            "ante": self.ante,
            "big bet": self.big_bet,
            "chip unit": self.chip_unit,
        }
        for name, amount in amounts.items():
            if amount > MAX_AMOUNT:
                raise ConfigError(
                    f"The {name} ({amount}) is above any chip count; give at most {MAX_AMOUNT}.",
                    key="config.stakes.too_large",
                    name=_said(f"config.stake.{name.replace(' ', '_')}", name),
                    amount=amount,
                    most=MAX_AMOUNT,
                )
        if self.small_blind > self.big_blind:
            raise ConfigError(
                f"The small blind ({self.small_blind}) cannot exceed the big blind "
                f"({self.big_blind}).",
                key="config.stakes.small_above_big",
                small=self.small_blind,
                big=self.big_blind,
            )
        policy = RakePolicy(  # checks the rake options (a sentence for each bad one)
            basis_points=self.rake_basis_points,
            cap=self.rake_cap,
            no_flop_no_drop=self.rake_no_flop_no_drop,
            min_pot=self.rake_min_pot,
        )
        for name, amount in (("cap", policy.cap), ("min_pot", policy.min_pot)):
            if amount > MAX_AMOUNT:
                raise ConfigError(
                    f"The rake_{name} ({amount}) is above any chip count; give at most "
                    f"{MAX_AMOUNT}.",
                    key="config.stakes.too_large",
                    name=f"rake_{name}",
                    amount=amount,
                    most=MAX_AMOUNT,
                )
        if policy.cap % self.chip_unit:
            raise ConfigError(
                f"The rake_cap ({policy.cap}) must be a multiple of the chip unit "
                f"({self.chip_unit}): the rake is taken in whole chips.",
                key="config.rake.cap_unit",
                cap=policy.cap,
                unit=self.chip_unit,
            )
        check_time_charge(self)


@dataclass(frozen=True)
class TableConfig:
    """A table's configuration: profile, options and stakes."""

    profile: str
    options: TableOptions
    stakes: Stakes
    timezone: str = ""
    """The table's time zone for showing real times (``[table] timezone``, an IANA name;
    "": the system's). Records keep UTC (:mod:`firmware.table.walltime`)."""
    jackpot: JackpotRules | None = None
    """The ``[jackpot]`` section (JACKPOT; cash games only), ``None`` without one."""

    def hand_config(self, stakes: Stakes | None = None) -> HandConfig:
        """The engine's :class:`HandConfig` for a hand at these (or given) stakes."""
        s = stakes or self.stakes
        return HandConfig(
            structure=s.structure,
            game=GameKind(self.options.game),
            min_bet=s.big_blind,
            big_bet=s.big_bet,
            chip_unit=s.chip_unit,
            odd_chips=OddChips(self.options.odd_chips),
            raise_cap=self.options.raise_cap,
            limit_all_in_percent=self.options.limit_all_in_percent,
            rake=s.rake() if self.options.game == "cash" else None,
            jackpot_drop=self.jackpot.drop_policy()
            if self.jackpot is not None and self.options.game == "cash"
            else None,
        )


_STAKE_KEYS = (
    "structure",
    "small_blind",
    "big_blind",
    "ante",
    "big_blind_ante",
    "big_bet",
    "chip_unit",
    "rake_basis_points",
    "rake_cap",
    "rake_min_pot",
    "rake_no_flop_no_drop",
    "time_charge",
    "time_charge_minutes",
)


def load_table_config(text: str, source: str = "given as text") -> TableConfig:
    """Parse a TOML table configuration.

    The file has a ``[table]`` section with ``profile`` and the stakes
    (``structure`` = NL/PL/FL, ``small_blind``, ``big_blind``, ``ante``,
    ``big_blind_ante``, ``big_bet``, ``chip_unit``) and an optional
    ``[options]`` section overriding profile options. ``source`` names the
    configuration in sentences (its path).

    :raises ConfigError: naming unknown sections, keys or bad values.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"The configuration {source} is not valid TOML: {exc}.",
            key="config.toml",
            source=source,
            error=str(exc),
        ) from exc
    return table_config_from(data, source)


def table_config_from(data: Mapping[str, Any], source: str = "given as text") -> TableConfig:
    """The table configuration of parsed TOML ``data`` (see :func:`load_table_config`).

    :raises ConfigError: naming the first unknown section, key or bad value
        (``config check`` calls it once per key to name every one).
    """
    known = {
        "table",
        "options",
        "devices",
        "seats",
        "server",
        "terminals",
        "staff",
        "players",
        "retention",
        "levels",
        "tournament",
        "floor",
        "diag",
        "broadcast",
        "jackpot",
    }
    unknown_sections = sorted(set(data) - known)
    if unknown_sections:
        raise ConfigError(
            f"Unknown section(s) in the configuration {source}: {', '.join(unknown_sections)}; "
            "expected [table], [options], [devices], [server], [terminals], [staff], "
            "[[players]], [retention], [[levels]], [tournament], [floor], [diag], "
            "[broadcast] and [jackpot].",
            key="config.section.unknown",
            source=source,
            unknown=", ".join(unknown_sections),
        )
    for section in ("table", "options"):
        if not isinstance(data.get(section, {}), dict):
            raise ConfigError(
                f"In the configuration {source}, [{section}] must be a section (a table of keys), "
                f"not {data[section]!r}.",
                key="config.section.not_table",
                source=source,
                section=section,
                value=repr(data[section]),
            )
    table = dict(data.get("table", {}))
    profile = table.pop("profile", None)
    timezone = check_zone(table.pop("timezone", ""))
    if not isinstance(profile, str):
        raise ConfigError(
            f'The configuration {source} must name a profile in [table], e.g. profile = "home".',
            key="config.profile.missing",
            source=source,
        )
    unknown = sorted(set(table) - set(_STAKE_KEYS))
    if unknown:
        raise ConfigError(
            f"Unknown key(s) in [table] of the configuration {source}: {', '.join(unknown)}; "
            f"known keys are profile, timezone, {', '.join(_STAKE_KEYS)}.",
            key="config.table.unknown",
            source=source,
            unknown=", ".join(unknown),
            known=", ".join(("timezone", *_STAKE_KEYS)),
        )
    for key, value in table.items():
        flags = ("big_blind_ante", "rake_no_flop_no_drop")
        expected: type = bool if key in flags else (str if key == "structure" else int)
        if type(value) is not expected:
            raise ConfigError(
                f"In [table] of the configuration {source}, {key} must be "
                f"{type_name(expected)}, not {value!r}.",
                key="config.table.type",
                source=source,
                option=key,
                expected=type_said(expected),
                value=repr(value),
            )
    if "structure" in table:
        try:
            table["structure"] = Structure(str(table["structure"]).upper())
        except ValueError as exc:
            raise ConfigError(
                f"The structure must be NL, PL or FL, not {table['structure']!r}.",
                key="config.structure",
                value=repr(table["structure"]),
            ) from exc
    options = profile_options(profile, **data.get("options", {}))
    if table.get("rake_basis_points") and options.game != "cash":
        raise ConfigError(
            f"The configuration {source} rakes a {options.game} game; the rake "
            '(rake_basis_points) is for cash games only. Remove it, or set game = "cash".',
            key="config.rake.not_cash",
            source=source,
            game=options.game,
        )
    if table.get("time_charge") and options.game != "cash":
        raise ConfigError(
            f"The configuration {source} charges time in a {options.game} game; the time "
            'charge (time_charge) is for cash games only. Remove it, or set game = "cash".',
            key="config.time_charge.not_cash",
            source=source,
            game=options.game,
        )
    jackpot = None
    if "jackpot" in data:
        if options.game != "cash":
            raise ConfigError(
                f"The configuration {source} has a [jackpot] section for a {options.game} "
                'game; jackpots are for cash games only. Remove it, or set game = "cash".',
                key="config.jackpot.not_cash",
                source=source,
                game=options.game,
            )
        jackpot = parse_jackpot(data["jackpot"])
    return TableConfig(
        profile=profile,
        options=options,
        stakes=Stakes(**table),
        timezone=timezone,
        jackpot=jackpot,
    )
