"""Bad configuration files (fresh-eyes review): ``pokertable config check`` names every
problem in a sentence, and ``pokertable serve`` refuses what config check refuses
(exit 78, no traceback) instead of crashing later."""

from __future__ import annotations

import os
import pathlib
import resource
import subprocess
import sys

import pytest

POKERTABLE = pathlib.Path(sys.executable).parent / "pokertable"
GUARD = 120.0
"""A bound so a command that hangs fails the test instead of hanging it."""

HEAD = '[table]\nprofile = "home"\n'


def limited() -> None:
    """The child may use at most 1 GiB: reading an endless file fails fast, never swaps."""
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def pokertable(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(POKERTABLE), *args],
        capture_output=True,
        text=True,
        timeout=GUARD,
        check=False,
        preexec_fn=limited,
        env={k: v for k, v in os.environ.items() if k != "NOTIFY_SOCKET"},
    )


def check(tmp_path: pathlib.Path, text: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    return pokertable("config", "check", str(path))


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (HEAD + "big_blind = 99999999999999999999\n", "big blind"),
        (HEAD + "small_blind = 1\nbig_blind = 2\nante = 10000000000000\n", "ante"),
        (HEAD + "[options]\nmax_buy_in_multiple = 99999999999999999999\n", "max_buy_in_multiple"),
        ('table = "x"\n', "[table]"),
        ("options = 3\n" + HEAD, "[options]"),
        ('[table]\nprofile = "home"\n[options]\nmax_seats = "x"\n', "whole number"),
        (HEAD + "small_blind = 1.5\n", "whole number"),
    ],
    ids=["huge-blind", "huge-ante", "huge-option", "table-text", "options-number", "option-type",
         "float-blind"],
)  # fmt: skip
def test_config_check_names_a_bad_value_in_a_sentence(
    tmp_path: pathlib.Path, text: str, said: str
) -> None:
    result = check(tmp_path, text)
    assert result.returncode != 0, result.stdout
    assert said in result.stdout + result.stderr, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    for internal in ("dictionary update sequence", "argument after **", "a int"):
        assert internal not in result.stdout + result.stderr


def test_serve_stops_with_a_sentence_on_stakes_it_cannot_store(tmp_path: pathlib.Path) -> None:
    """A big blind above any chip count used to pass config check, then crash serve with
    an OverflowError traceback while writing the journal."""
    config = tmp_path / "table.toml"
    config.write_text(
        HEAD + "big_blind = 99999999999999999999\n"
        f'[server]\nsocket = "{tmp_path / "t.sock"}"\n'
        '[terminals]\nseat1 = "seat1-secret-0123456789"\n'
    )
    result = pokertable("serve", "--config", str(config), "--data", str(tmp_path / "d"))
    assert result.returncode == 78, result.stderr
    assert "Traceback" not in result.stderr and "big blind" in result.stderr


@pytest.mark.parametrize("where", ["secret", "levels", "config"])
@pytest.mark.parametrize("what", ["endless", "fifo", "binary"])
def test_a_credential_levels_or_config_file_that_is_no_small_text_file_is_named(
    tmp_path: pathlib.Path, where: str, what: str
) -> None:
    """/dev/zero as a secret file made config check read until it was killed (out of
    memory); a FIFO made it wait forever; binary levels were 'a value of the wrong type'."""
    if what == "endless":
        odd = pathlib.Path("/dev/zero")
    elif what == "fifo":
        odd = tmp_path / "fifo"
        os.mkfifo(odd)
    else:
        odd = tmp_path / "binary"
        odd.write_bytes(b"\xff\xfe\x00\x01" * 10)
    if where == "config":
        result = pokertable("config", "check", str(odd))
    elif where == "secret":
        result = check(tmp_path, HEAD + f'[terminals]\nseat1 = {{ secret_file = "{odd}" }}\n')
    else:
        result = check(
            tmp_path,
            f'[table]\nprofile = "tda-tournament"\n[tournament]\nlevels = "{odd}"\n',
        )
    out = result.stdout + result.stderr
    assert result.returncode != 0, out
    assert "Traceback" not in out and "MemoryError" not in out
    assert str(odd) in out, out
    assert "wrong type" not in out
