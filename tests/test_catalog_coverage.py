"""Every refusal and alert a screen can show goes through the message catalog (issue 12).

Two halves. The code is scanned (its syntax tree, not its text): every
refusal raised in the engine, the table procedures, the service, the
protocol and the views, every console alert, and every device fault a driver
posts names a catalog key, and passes a value for each of the key's
placeholders; the few refusals that no screen can show (a journal record
that does not parse, an engine position the table computed) are listed
below with the reason. Then the controller is walked through its alert
paths with simulated devices, and every alert on a Spanish console reads in
Spanish.
"""

from __future__ import annotations

import ast
import pathlib
import re
from collections.abc import Iterator

import pytest

from firmware.errors import IllegalAction
from firmware.i18n import CATALOG
from firmware.service.controller import Controller
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.table import Table
from firmware.views.alerts import alert_text
from firmware.views.audience import console_view, technician_view
from hal_sim.fakes import FakeButtons, FakeShoe, FakeTrays, default_card_tag
from tests.test_ui_spanish import english_in

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCANNED = ("engine", "table", "service", "protocol", "views")
"""The firmware packages whose refusals can reach a screen."""
ERRORS = {"IllegalAction", "CardError", "Refused"}

NOT_SHOWN = {
    ("engine/cards.py", "Rank {rank} and suit"): "a card built by the code from numbers",
    ("engine/cards.py", "{card} is not a card number"): "a card number from the code",
    ("engine/state.py", "{card!r} is not a card number"): "a card number from the code",
    ("table/dealing.py", "{card!r} is not a card number"): "a card number from the code",
    ("engine/events.py", "The record {record!r} names"): "a journal record that does not parse",
    ("engine/events.py", "The {kind} record {record!r}"): "a journal record that does not parse",
    ("table/event_records.py", "The record {record!r} names"): "a journal record that won't parse",
    ("table/event_records.py", "The {cls.kind} record"): "a journal record that won't parse",
    ("engine/hand.py", "A hand's events must begin"): "a journal that does not parse",
    ("engine/hand.py", "The event {event!r} cannot be applied"): "never sent by the table",
    ("engine/hand.py", "There is no player {player!r}"): "an engine position the table computed",
    ("engine/hand.py", "The hand has {n} players but"): "a hand set-up the table computed",
    ("engine/hand.py", "Every {name[:-1]} must be"): "a hand set-up the table computed",
    ("engine/hand.py", "The big blind must be one of"): "a hand set-up the table computed",
    ("engine/rulings.py", "There is no player {player!r}"): "an engine position the table computed",
    ("engine/rulings.py", "Name the winners by position"): "engine positions the table computed",
    ("engine/showdown.py", "{hand.who(player).capitalize()}'s hand"): "the table checked first",
    ("table/snapshot.py", "A snapshot is taken between hands"): "the service's own call",
    ("table/snapshot.py", "A snapshot can only start"): "a journal that does not parse",
    ("service/recovery.py", "The journal {journal.path} has no"): "at start-up, in the log",
}  # fmt: skip
"""Refusals no screen shows, by file and the start of their sentence, with why."""
NOT_SHOWN_FILES = {
    "service/floorlink.py": "answers to the floor's server (its pages), not the table's screens",
    "service/floorwire.py": "checks of the floor's commands: answered to the floor, not shown",
}


def sources() -> Iterator[tuple[str, ast.Module, str]]:
    for package in SCANNED:
        for path in sorted((ROOT / "firmware" / package).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            yield str(path.relative_to(ROOT / "firmware")), ast.parse(text), text


def name_of(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def sentence(call: ast.Call, text: str) -> str:
    """The refusal's sentence as written (the f-string's source, quotes off)."""
    if not call.args:
        return ""
    segment = ast.get_source_segment(text, call.args[0]) or ""
    return re.sub(r'"\s*\n\s*f?"', "", segment).lstrip("f").strip("\"'")


def placeholders(key: str) -> set[str]:
    return set(re.findall(r"\{(\w+)", CATALOG[key]["en"]))


def check_values(where: str, key: ast.expr | None, call: ast.Call, problems: list[str]) -> None:
    """A constant key exists, and each of its placeholders gets a value."""
    if not isinstance(key, ast.Constant) or not isinstance(key.value, str):
        return  # a key chosen at run time (f"alert.shoe.{state}"): checked by the walk
    if key.value not in CATALOG:
        problems.append(f"{where}: the key {key.value} is not in the catalog")
        return
    if any(k.arg is None for k in call.keywords):
        return  # **params: checked by the walk
    given = {k.arg for k in call.keywords if k.arg not in ("key", None)}
    missing = placeholders(key.value) - given
    if missing:
        problems.append(f"{where}: {key.value} needs {sorted(missing)}")


def test_every_refusal_a_screen_can_show_has_a_catalog_key() -> None:
    problems: list[str] = []
    exempt_seen: set[tuple[str, str]] = set()
    for path, tree, text in sources():
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
                continue
            call = node.exc
            if name_of(call) not in ERRORS:
                continue
            where = f"{path}:{node.lineno}"
            key = next((k.value for k in call.keywords if k.arg == "key"), None)
            if key is not None:
                check_values(where, key, call, problems)
                continue
            said = sentence(call, text)
            if path in NOT_SHOWN_FILES:
                continue
            exempt = [e for e in NOT_SHOWN if e[0] == path and said.startswith(e[1])]
            if exempt:
                exempt_seen.update(exempt)
            else:
                problems.append(f"{where}: no catalog key for {said[:70]!r}")
    assert not problems, "\n".join(problems)
    assert set(NOT_SHOWN) == exempt_seen, f"stale exemptions: {set(NOT_SHOWN) - exempt_seen}"


def test_every_console_alert_and_device_fault_has_a_catalog_key() -> None:
    """``_alert(text, source, key, **values)``, ``Alert(..., key=...)`` and
    ``DeviceFault(device, time, detail, key, params)``; the only keyless ones pass on
    a refusal or a fault that came without a key (its English sentence as it is)."""
    problems: list[str] = []
    fallbacks = 0
    files = [(p, t, x) for p, t, x in sources()]
    for extra in ("cli/serve.py",):
        text = (ROOT / "firmware" / extra).read_text(encoding="utf-8")
        files.append((extra, ast.parse(text), text))
    for path, tree, _ in files:
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            where = f"{path}:{node.lineno}"
            if name_of(node) == "_alert" and isinstance(node.func, ast.Attribute):
                key = node.args[2] if len(node.args) > 2 else None
                if key is None:
                    # Only a refusal or a device fault without a key of its own.
                    if len(node.args) == 2 and ast.unparse(node.args[0]) in (
                        "text",
                        "event.detail + paused",
                    ):
                        fallbacks += 1
                        continue
                    problems.append(f"{where}: an alert without a key")
                    continue
                check_values(where, key, node, problems)
            elif (
                name_of(node) == "Alert"
                and path != "service/controller.py"
                and not any(k.arg == "key" for k in node.keywords)
            ):
                problems.append(f"{where}: an Alert without a key")
    assert fallbacks == 2, fallbacks  # _refusal's and the keyless device fault's
    for path in sorted((ROOT / "drivers").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Call) and name_of(node) == "DeviceFault":
                keyed = len(node.args) >= 4 or any(k.arg == "key" for k in node.keywords)
                if not keyed:
                    problems.append(f"drivers/{path.name}:{node.lineno}: a fault without a key")
    assert not problems, "\n".join(problems)


def test_the_scan_can_fail() -> None:
    """A keyless refusal, a key missing a value and an unknown key are all found."""
    code = (
        "def f(x):\n"
        "    raise IllegalAction(f'Seat {x} is empty.')\n"
        "def g(x):\n"
        "    raise IllegalAction('No.', key='alert.chips.no_chips')\n"
        "def h(x):\n"
        "    raise IllegalAction('No.', key='no.such.key')\n"
    )
    problems: list[str] = []
    tree = ast.parse(code)
    raises = [n.exc for n in ast.walk(tree) if isinstance(n, ast.Raise)]
    assert isinstance(raises[0], ast.Call) and sentence(raises[0], code) == "Seat {x} is empty."
    for call in raises[1:]:
        assert isinstance(call, ast.Call)
        key = next(k.value for k in call.keywords if k.arg == "key")
        check_values("test", key, call, problems)
    assert problems == [
        "test: alert.chips.no_chips needs ['seat']",
        "test: the key no.such.key is not in the catalog",
    ]


class Walk:
    """A controller with simulated devices, driven through its alert paths."""

    def __init__(self) -> None:
        config = TableConfig("casino-cash", profile_options("casino-cash"), Stakes(1, 2))
        self.table = Table(config, deck_ready=True)
        for seat in (1, 2, 3):
            self.table.apply(te.SitDown(seat, f"P{seat}", 200))
        self.table.apply(te.SetButton(1))
        self.registry = TagRegistry(":memory:")
        self.registry.learn_deck([default_card_tag(c) for c in range(52)], order=list(range(52)))
        self.shoe = FakeShoe("shoe", {"seed": 1})
        self.trays = FakeTrays("trays", {"zones": ["seat1.bet", "seat2.bet", "pot"]})
        self.panel = FakeButtons("panel", {"buttons": ["dealer.pause", "seat1.action"]})
        devices = {d.name: d for d in (self.shoe, self.trays, self.panel)}
        self.controller = Controller(self.table, devices, self.registry, tick_seconds=3600)
        self.controller.display_names = {"shoe": {"es": "Sabot", "en": "Card shoe"}}
        self.controller.start()

    def run(self) -> None:
        self.controller.run_pending()


@pytest.fixture
def walk() -> Iterator[Walk]:
    w = Walk()
    yield w
    w.controller.shutdown()
    w.registry.close()


def test_every_alert_path_reads_in_spanish_on_a_spanish_console(walk: Walk) -> None:
    c, shoe, trays, panel = walk.controller, walk.shoe, walk.trays, walk.panel
    shoe.unknown_tag()  # a joker in the shoe
    shoe.set_state("jam")
    shoe.set_state("cover_open")
    trays.place("pot", ["FFFF"])  # a chip tag nobody registered
    trays.antenna_fault("seat2.bet")
    (drawn,) = shoe.draw(1)  # a card between hands: the table refuses it, tag and all
    shoe_card = walk.registry.card_for(drawn)
    assert shoe_card is not None
    walk.run()
    panel.press("seat1.action")  # out of turn: refused
    panel.press("dealer.pause")
    panel.press("dealer.pause")
    shoe.fail()  # the shoe stops answering: the hand is paused
    walk.run()
    es = technician_view(c, "es")
    assert es["faults"]["shoe"].startswith("El dispositivo 'Sabot' dejó de responder")
    shoe.recover()
    walk.run()
    c.dispatch(lambda: 1 / 0)  # a fault of the firmware: paused with an alert
    c.resume_after_error()
    keys = [a.key for a in c.alerts]
    assert None not in keys, [a.text for a in c.alerts if a.key is None]
    assert {
        "alert.shoe.unknown_tag",
        "alert.shoe.jam",
        "alert.shoe.cover_open",
        "alert.chips.unknown",
        "alert.antenna.fault",
        "alert.refused_tag",
        "alert.refused",
        "alert.dealer.paused",
        "alert.dealer.resumed",
        "alert.fault.silent",
        "alert.device.back",
        "alert.stopped_error",
        "alert.resumed_after_error",
    } <= set(keys)
    shown = console_view(walk.table, "es", c)["console"]["alerts"]
    assert shown and all(a["key"] for a in shown)
    texts = [alert_text(a.key, a.params, a.text, "es", (), c.display_names) for a in c.alerts]
    assert [a["text"] for a in shown] == texts[-len(shown) :]  # what the console shows
    assert not english_in(texts), english_in(texts)
    refused = texts[keys.index("alert.refused_tag")]
    assert refused.endswith(f"(etiqueta {default_card_tag(shoe_card)})"), refused
    english = [a.text for a in c.alerts]
    assert english_in(english)  # the same alerts in English: the check can fail


def test_a_table_refusal_reaches_a_spanish_screen_in_spanish(walk: Walk) -> None:
    """The refusals that had no key (a stack adjusted during a hand, the button on an
    empty seat, a second cut) now carry one, with their values."""
    table = walk.table
    with pytest.raises(IllegalAction) as caught:
        table.apply(te.SetButton(7))
    assert caught.value.key == "error.button.empty_seat" and caught.value.params == {"seat": 7}
    table.apply(te.Shuffle())
    table.apply(te.Cut())
    with pytest.raises(IllegalAction) as caught:
        table.apply(te.AdjustStack(1, 500, "count", staff="Flor"))
    assert caught.value.key == "error.adjust.in_hand"


# --- the pokertable command (cli-i18n) -------------------------------------------------

CLI_MODULES = [
    *sorted((ROOT / "firmware" / "cli").glob("*.py")),
    ROOT / "ui" / "link.py",  # pokertable screen
    ROOT / "firmware" / "odds" / "verify.py",  # pokertable verify-evaluator
]
"""Every module of the ``pokertable`` command."""
VALIDATORS = (
    "table/options.py",
    "table/tournament.py",
    "hal/backends.py",
    "protocol/auth.py",
    "service/retention.py",
)
"""The configuration validator's modules below the command: each problem it finds
reaches ``config check`` and ``serve``, so each needs a key."""
CLI_ERRORS = {
    "ConfigError",
    "HardwareError",
    "HandHistoryError",
    "JournalError",
    "ArgumentTypeError",
    "PokerTableError",
}
WORDS = re.compile(r"[A-Za-z]{2,}")
PREFIX = re.compile(r"pokertable(?: [a-z-]*)? ?:?")
"""``pokertable CMD:`` before a sentence: the command's name, not a sentence."""


def words_in(node: ast.expr) -> str:
    """The literal text of a string or f-string (placeholders and ``pokertable`` out)
    when it holds a word, else ``""``: a sentence written in the code."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
    elif isinstance(node, ast.JoinedStr):
        text = "".join(
            v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)
        )
    elif isinstance(node, ast.BinOp):  # "..." + say(...)
        return words_in(node.left) or words_in(node.right)
    else:
        return ""
    return text if WORDS.search(PREFIX.sub("", text)) else ""


def keyless_cli_sentences(path: str, tree: ast.Module) -> list[str]:
    """Sentences a person would read that the code writes itself: a printed literal,
    ``parser.error("...")``, or an error raised with a literal and no ``key``."""
    problems: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            called = name_of(node)
            if called == "print" or (called == "error" and isinstance(node.func, ast.Attribute)):
                for arg in node.args:
                    if text := words_in(arg):
                        problems.append(f"{path}:{node.lineno}: {called}({text[:50]!r})")
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            call = node.exc
            if name_of(call) not in CLI_ERRORS or any(k.arg == "key" for k in call.keywords):
                continue
            if call.args and (text := words_in(call.args[0])):
                problems.append(f"{path}:{node.lineno}: raise {name_of(call)}({text[:50]!r})")
    return sorted(problems, key=lambda p: int(p.split(":")[1]))


def test_every_sentence_of_the_pokertable_command_has_a_catalog_key() -> None:
    """Every sentence ``pokertable`` prints or raises, and every problem the configuration
    validator reports, goes through the catalog (``say``, ``fail``, ``keyed`` or
    ``key=``), so ``--lang es`` or a Spanish locale reads it in Spanish."""
    problems: list[str] = []
    files = [(p, p.read_text(encoding="utf-8")) for p in CLI_MODULES]
    files += [(ROOT / "firmware" / v, (ROOT / "firmware" / v).read_text()) for v in VALIDATORS]
    for path, text in files:
        where = str(path.relative_to(ROOT))
        problems += keyless_cli_sentences(where, ast.parse(text))
        for node in ast.walk(ast.parse(text)):  # the keys named exist, with their values
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
                key = next((k.value for k in node.exc.keywords if k.arg == "key"), None)
                check_values(f"{where}:{node.lineno}", key, node.exc, problems)
            elif isinstance(node, ast.Call) and name_of(node) in ("say", "fail", "keyed"):
                index = {"say": 0, "fail": 1, "keyed": 1}[name_of(node)]
                if len(node.args) > index:
                    check_values(f"{where}:{node.lineno}", node.args[index], node, problems)
    assert len(files) > 12 and not problems, "\n".join(problems)


def test_every_device_option_problem_has_a_catalog_key() -> None:
    """A device's options are checked by its driver (or simulated device) when
    ``config check`` builds it: each refusal (a ``ConfigError``) names a key."""
    problems: list[str] = []
    paths = [*sorted((ROOT / "drivers").glob("*.py")), ROOT / "hal_sim" / "fakes.py"]
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
                if name_of(node.exc) != "ConfigError":
                    continue
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                key = next((k.value for k in node.exc.keywords if k.arg == "key"), None)
                if key is None:
                    problems.append(f"{where}: a device option problem without a key")
                else:
                    check_values(where, key, node.exc, problems)
    assert len(paths) > 8 and not problems, "\n".join(problems)


def test_the_command_scan_can_fail() -> None:
    """A printed sentence, a ``parser.error`` sentence and a keyless error are found;
    a key, a value alone and ``pokertable CMD: `` before a catalog sentence are not."""
    code = (
        "def f(x, parser, lang):\n"
        "    print(f'Wrote {x} files.')\n"
        "    parser.error('--seats takes a number.')\n"
        "    print(f'  - {x}')\n"
        "    print('pokertable init: ' + say('cli.init.seats', lang))\n"
        "    print(json.dumps(x))\n"
        "    raise ConfigError(f'The file {x} is missing.')\n"
        "    raise ConfigError(f'The file {x} is missing.', key='config.secret.missing', path=x)\n"
    )
    found = keyless_cli_sentences("t.py", ast.parse(code))
    assert found == [
        "t.py:2: print('Wrote  files.')",
        "t.py:3: error('--seats takes a number.')",
        "t.py:7: raise ConfigError('The file  is missing.')",
    ], found


# --- the command's --help (cli-help-i18n) ------------------------------------------------

HELP_MODULES = [
    *CLI_MODULES,
    ROOT / "firmware" / "floor" / "cli.py",  # pokertable floor
    ROOT / "firmware" / "table" / "script.py",  # pokertable script's parser
]
"""Every module that builds a parser of the ``pokertable`` command."""
PARSER_CALLS = {"ArgumentParser", "add_argument", "add_parser"}
HELP_WORDS = {"help", "description", "epilog", "usage"}
"""Keywords whose text a person reads in ``--help``: each from the catalog."""


def keyless_help(path: str, tree: ast.Module) -> list[str]:
    """Help texts not taken from the catalog: a ``help=``, ``description=``... that is not
    ``say(KEY, ...)`` / ``tr(KEY, ...)`` with a key the catalog has (a literal, an
    f-string, ``__doc__``, a variable), a ``metavar=`` literal with a word in it, and an
    ``add_argument`` without ``help=`` (an option a Spanish reader would find unexplained)."""
    problems: list[str] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and name_of(node) in PARSER_CALLS):
            continue
        where = f"{path}:{node.lineno}"
        given = {k.arg: k.value for k in node.keywords}
        for word, value in given.items():
            if word == "metavar" and (text := words_in(value)):
                problems.append(f"{where}: metavar={text!r} without a catalog key")
            if word not in HELP_WORDS:
                continue
            if isinstance(value, ast.Attribute) and value.attr == "SUPPRESS":
                continue
            keyed_text = (
                isinstance(value, ast.Call)
                and name_of(value) in ("say", "tr")
                and bool(value.args)
                and isinstance(value.args[0], ast.Constant)
            )
            if not keyed_text:
                problems.append(f"{where}: {word}={ast.unparse(value)[:50]} without a catalog key")
            else:
                assert isinstance(value, ast.Call)
                check_values(where, value.args[0], value, problems)
        if name_of(node) == "add_argument" and "help" not in given:
            problems.append(f"{where}: {ast.unparse(node)[:60]} has no help")
    return sorted(problems, key=lambda p: int(p.split(":")[1]))


def test_every_help_text_of_the_pokertable_command_has_a_catalog_key() -> None:
    """Every description and help text of ``pokertable``'s parsers comes from the catalog
    in the language of ``--lang`` or the locale (``tests/test_cli_help.py`` reads them)."""
    problems: list[str] = []
    parsers = 0
    for path in HELP_MODULES:
        text = path.read_text(encoding="utf-8")
        parsers += text.count("ArgumentParser(")
        problems += keyless_help(str(path.relative_to(ROOT)), ast.parse(text))
    assert parsers >= 13 and not problems, "\n".join(problems)


def test_the_help_scan_can_fail() -> None:
    """A literal help, the module's docstring as a description, an unknown key, a word
    as a metavar and an option without help are found; keyed texts and ``N`` are not."""
    code = (
        "def f(lang):\n"
        "    parser = argparse.ArgumentParser(prog='p', description=__doc__)\n"
        "    parser.add_argument('--x', help='the x')\n"
        "    parser.add_argument('--y', help=say('no.such.key', lang))\n"
        "    parser.add_argument('--z', metavar='DIR', help=say('cli.help.lang', lang))\n"
        "    parser.add_argument('--w')\n"
        "    parser.add_argument('--n', metavar='N', help=tr('cli.help.run.hands', lang))\n"
        "    sub.add_parser('list', help=f'list {lang}')\n"
        "    parser.add_argument('--s', help=say('cli.help.serve.status', lang))\n"
    )
    found = keyless_help("t.py", ast.parse(code))
    assert found == [
        "t.py:2: description=__doc__ without a catalog key",
        "t.py:3: help='the x' without a catalog key",
        "t.py:4: the key no.such.key is not in the catalog",
        "t.py:5: metavar='DIR' without a catalog key",
        "t.py:6: parser.add_argument('--w') has no help",
        "t.py:8: help=f'list {lang}' without a catalog key",
        "t.py:9: cli.help.serve.status needs ['path']",
    ], found
