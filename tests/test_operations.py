"""Operating the table like any Linux service: init, config check, exit codes, logs, status.

Real ``pokertable`` processes where the behaviour is the process's (exit
status, standard error, the socket); the pieces themselves (formatter,
throttle, status file) in-process.
"""

from __future__ import annotations

import io
import json
import logging
import os
import pathlib
import subprocess
import sys
import time

import pytest

from firmware.cli.config import EXIT_CONFIG, read_config
from firmware.cli.config_check import check_config
from firmware.cli.init import main_init
from firmware.cli.logs import JournalFormatter, Throttle, setup_logging
from firmware.cli.status import StatusFile, main_status, render
from firmware.protocol.client import TableClient

ROOT = pathlib.Path(__file__).resolve().parent.parent
POKERTABLE = pathlib.Path(sys.executable).parent / "pokertable"


def run(*args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(POKERTABLE), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        **kwargs,  # type: ignore[arg-type]
    )


def write_table(tmp_path: pathlib.Path, *extra: str) -> pathlib.Path:
    config = tmp_path / "table.toml"
    secrets = tmp_path / "terminals"
    assert (
        main_init(
            [
                "--seats",
                "2",
                "--socket",
                str(tmp_path / "table.sock"),
                "--socket-group",
                "",
                "--secrets-dir",
                str(secrets),
                "--output",
                str(config),
                *extra,
            ]
        )
        == 0
    )
    return config


@pytest.mark.parametrize("profile", ["casino-cash", "home", "tda-tournament"])
@pytest.mark.parametrize(("devices", "seats"), [("electronic", 0), ("sim", 6), ("hardware", 9)])
def test_init_writes_a_configuration_that_config_check_accepts(
    tmp_path: pathlib.Path, profile: str, devices: str, seats: int
) -> None:
    config = tmp_path / "table.toml"
    args = ["--profile", profile, "--devices", devices, "--seats", str(seats)]
    args += ["--secrets-dir", str(tmp_path / "t"), "--output", str(config)]
    assert main_init(args) == 0
    text, data = read_config(str(config))
    assert check_config(data, text, str(config)) == []
    assert sorted(data["terminals"]) == sorted(
        ["console", *(f"seat{s}" for s in range(1, seats + 1))]
    )
    for entry in data["terminals"].values():  # one credential file each, not world-readable
        mode = os.stat(entry["secret_file"]).st_mode & 0o777
        assert mode == 0o640
    assert ("levels" in data) == (profile == "tda-tournament")
    assert text.count("\n#") > 20  # commented for a person


def test_init_puts_ten_seats_on_expanders_and_config_check_accepts_it(
    tmp_path: pathlib.Path,
) -> None:
    config = tmp_path / "table.toml"
    args = ["--devices", "hardware", "--seats", "10", "--expander"]
    assert main_init([*args, "--secrets-dir", str(tmp_path / "t"), "--output", str(config)]) == 0
    text, data = read_config(str(config))
    assert check_config(data, text, str(config)) == []
    chips = [d for d in data["devices"].values() if d["backend"] == "mcp23017"]
    assert [c["address"] for c in chips] == [0x20, 0x21, 0x22, 0x23, 0x24]
    lines = sum(len(c["buttons"]) + len(c["leds"]) for c in chips)
    assert lines == 60  # four buttons and two LEDs for each of ten seats


def test_init_refuses_more_gpio_seats_than_the_header_has(tmp_path: pathlib.Path, capsys) -> None:  # type: ignore[no-untyped-def]
    args = ["--devices", "hardware", "--seats", "10", "--secrets-dir", str(tmp_path)]
    assert main_init([*args, "--output", str(tmp_path / "t.toml")]) == 1
    assert "--expander" in capsys.readouterr().err


def test_config_check_names_every_problem(tmp_path: pathlib.Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(
        '[table]\nprofile = "nope"\nsmall_blind = "x"\n'
        '[server]\nsockt = "/run/x"\n'
        '[terminals]\nseat1 = "short"\nseat12 = "aaaaaaaaaaaaaaaaaaaaaa"\n'
        'console = { secret_file = "/nonexistent/console.secret" }\n'
        '[devices.shoe]\nkind = "shoe"\nbackend = "serial"\n'
        '[devices.b]\nkind = "buttons"\nbackend = "gpio"\npin_factory = "x"\n'
        "[retention]\nkeep = 3\n"
    )
    result = run("config", "check", str(bad))
    assert result.returncode == 1
    for named in (
        "small_blind",
        "'nope'",
        "port",
        "pin_factory",
        "sockt",
        "seat1",
        "seat12",
        "console.secret",
        "[retention]",
    ):
        assert named in result.stdout, named
    assert "Traceback" not in result.stdout + result.stderr


def test_serve_stops_on_a_bad_configuration_with_the_status_units_do_not_restart(
    tmp_path: pathlib.Path,
) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[table]\nprofile = "casino-cash"\n[devices.shoe]\nkind = "shoe"\n')
    result = run("serve", "--config", str(config), "--data", str(tmp_path / "d"))
    assert result.returncode == EXIT_CONFIG == 78
    assert "[devices.shoe] must say its kind" in result.stderr
    assert "Traceback" not in result.stderr
    missing = run("serve", "--config", str(tmp_path / "none.toml"), "--data", str(tmp_path / "d"))
    assert missing.returncode == 78 and "does not exist" in missing.stderr
    for unit in ("pokertable.service", "pokertable-console.service", "pokertable-seat@.service"):
        assert "RestartPreventExitStatus=78" in (ROOT / "systemd" / unit).read_text()


def test_a_screen_with_a_wrong_secret_says_it_was_refused_and_exits(
    tmp_path: pathlib.Path,
) -> None:
    config = write_table(tmp_path)
    status_file = tmp_path / "status.json"
    serve = subprocess.Popen(
        [str(POKERTABLE), "serve", "--config", str(config), "--data", str(tmp_path / "d"),
         "--status", str(status_file)],
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, JOURNAL_STREAM=""),
    )  # fmt: skip
    try:
        assert serve.stderr is not None
        for line in serve.stderr:  # wait for the start line: the socket is listening
            if "Table started" in line:
                break
        assert "listening on unix socket" in line and "profile casino-cash" in line
        wrong = tmp_path / "wrong.secret"
        wrong.write_text("not-the-secret-of-seat-1\n")
        env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
        result = run(
            "screen",
            "--seat",
            "1",
            "--socket",
            str(tmp_path / "table.sock"),
            "--secret-file",
            str(wrong),
            env=env,
        )
        assert result.returncode == 78
        assert "refused seat1" in result.stderr and "secret" in result.stderr
        assert "Traceback" not in result.stderr
        # The right secret but no such display driver: a sentence, status 2.
        env["SDL_VIDEODRIVER"] = "no-such-driver"
        result = run(
            "screen",
            "--seat",
            "2",
            "--socket",
            str(tmp_path / "table.sock"),
            "--secret-file",
            str(tmp_path / "terminals" / "seat2.secret"),
            env=env,
        )
        assert result.returncode == 2
        assert "display cannot be opened" in result.stderr and "Traceback" not in result.stderr
        # A terminal that connects shows in `pokertable status`.
        client = TableClient.unix(str(tmp_path / "table.sock"))
        secret = (tmp_path / "terminals" / "console.secret").read_text().strip()
        client.hello("console", secret, "en")
        assert client.wait_for(lambda m: m["type"] == "welcome", 30)["terminal"] == "console"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # the status file follows within a second
            shown = run("status", "--file", str(status_file))
            if "Terminals connected: console." in shown.stdout:
                break
        assert "Terminals connected: console." in shown.stdout, shown.stdout + shown.stderr
        assert "Table (casino-cash): between hands" in shown.stdout
        client.sock.close()
    finally:
        serve.terminate()
        assert serve.wait(60) == 0


def test_read_only_commands_never_create_a_missing_database(tmp_path: pathlib.Path) -> None:
    for args in (
        ("audit", "verify", str(tmp_path / "journal.sqlite")),
        ("history", "--db", str(tmp_path / "history.sqlite"), "list"),
        ("diag", "--config", str(tmp_path / "none.toml"), "--data", str(tmp_path)),
    ):
        result = run(*args)
        assert result.returncode != 0, args
        said = (result.stdout + result.stderr).strip()
        assert "Traceback" not in said and said.endswith("."), args
    assert list(tmp_path.iterdir()) == []


def test_the_runtime_plays_without_numpy(tmp_path: pathlib.Path) -> None:
    block = (
        "import sys; sys.modules['numpy'] = None\n"
        "from firmware.cli.main import main\n"
        "raise SystemExit(main(['run', '--hands', '2', '--lang', 'en', '--seed', '3']))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", block],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
        env=dict(os.environ, SDL_VIDEODRIVER="dummy", DISPLAY=""),
    )
    assert result.returncode == 0, result.stderr
    text = (ROOT / "pyproject.toml").read_text()
    runtime = text.split("dependencies = [", 1)[1].split("]", 1)[0]
    assert "numpy" not in runtime and 'odds = ["numpy' in text


def test_journal_lines_carry_the_syslog_priority() -> None:
    formatter = JournalFormatter("%(name)s: %(message)s")
    record = logging.LogRecord("pokertable", logging.WARNING, "", 0, "two\nlines", None, None)
    assert formatter.format(record) == "<4>pokertable: two\n<4>lines"
    record = logging.LogRecord("x", logging.ERROR, "", 0, "bad", None, None)
    assert formatter.format(record).startswith("<3>")


def test_setup_logging_keeps_info_and_uses_priorities_under_systemd(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("JOURNAL_STREAM", "8:1234")
    out = io.StringIO()
    setup_logging("info", out)
    try:
        logging.getLogger("pokertable.serve").info("Table started")
        logging.getLogger("pokertable.serve").debug("not kept")
    finally:
        setup_logging("warning", io.StringIO())
    assert out.getvalue() == "<6>pokertable.serve: Table started\n"


def test_a_repeated_error_is_throttled_and_counted() -> None:
    now = [0.0]
    throttle = Throttle(burst=3, window=60.0, clock=lambda: now[0])

    def record() -> logging.LogRecord:
        return logging.LogRecord("p", logging.ERROR, "", 0, "lost %s", ("x",), None)

    passed = [throttle.filter(record()) for _ in range(1000)]
    assert passed.count(True) == 3
    now[0] = 61.0
    late = record()
    assert throttle.filter(late) and "997 more like it" in str(late.msg)


def test_status_file_is_written_only_when_the_status_changes(tmp_path: pathlib.Path) -> None:
    state = {
        "pid": os.getpid(),
        "profile": "home",
        "state": "between hands",
        "hands": 0,
        "devices": {},
        "terminals": [],
        "alerts": [],
    }
    status = StatusFile(str(tmp_path / "status.json"), lambda: dict(state))
    for second in range(100):
        status.update(float(second))
    assert status.writes == 1  # idle: one write, then nothing
    state["terminals"] = ["console"]
    status.update(100.0)
    assert status.writes == 2
    assert json.loads((tmp_path / "status.json").read_text())["terminals"] == ["console"]
    assert "Terminals connected: console." in render(state)


def test_status_says_when_the_controller_is_not_running(tmp_path: pathlib.Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main_status(["--file", str(tmp_path / "status.json")]) == 3
    assert "not running" in capsys.readouterr().err


def test_the_example_in_docs_configuration_passes_config_check(tmp_path: pathlib.Path) -> None:
    doc = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    example = doc.split("```toml\n", 1)[1].split("```", 1)[0]
    for terminal in ("console", *(f"seat{s}" for s in range(1, 7))):
        (tmp_path / f"{terminal}.secret").write_text(f"{terminal}-secret-of-the-docs-example\n")
    text = example.replace('"/etc/pokertable-terminals/', f'"{tmp_path}/')
    config = tmp_path / "table.toml"
    config.write_text(text)
    _, data = read_config(str(config))
    assert check_config(data, text, str(config)) == []
    assert {"server", "terminals", "staff", "devices", "retention"} <= set(data)


def test_the_header_wiring_table_in_docs_hardware_is_what_init_writes() -> None:
    from firmware.cli.init import gpio_section

    doc = (ROOT / "docs" / "hardware.md").read_text(encoding="utf-8")
    section = doc.split("### Header wiring", 1)[1].split("###", 1)[0]
    documented = {}
    for row in section.splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[1].isdigit():
            for bcm, signal in ((cells[1], cells[2]), (cells[4], cells[5])):
                documented[signal.split(" ")[0]] = int(bcm)
    written = gpio_section(9, "lgpio")
    pins = {}
    for line in written.splitlines():
        if line.startswith(("buttons = ", "leds = ")):
            for pair in line.split("{", 1)[1].rstrip("}").split(","):
                name, _, pin = pair.partition("=")
                pins[name.strip().strip('"')] = int(pin)
    assert documented == pins
