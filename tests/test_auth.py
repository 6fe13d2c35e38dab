"""Staff accounts and terminal secrets: the refusals, their catalog keys and parameters.

The screens translate a refusal from its key and parameters, so a wrong key or
a missing parameter shows the wrong sentence in Spanish. Written against the
survivors of mutation testing of ``firmware/protocol/auth.py`` (docs/testing.md).
"""

from __future__ import annotations

from typing import Any

import pytest

from firmware.errors import ConfigError
from firmware.i18n import tr
from firmware.protocol.auth import AuthError, StaffDirectory, TerminalSecrets, parse_pin_hash

SECRETS = TerminalSecrets({"seat1": "seat1-secret-0123456789"})


def test_an_account_needs_a_badge_and_a_name() -> None:
    """No account without a badge identity or without a person's name."""
    staff = StaffDirectory()
    wanted = "^Every staff account needs a badge identity and a person's name\\.$"
    with pytest.raises(ConfigError, match=wanted):
        staff.add("", "Ana", "dealer", "1234")
    with pytest.raises(ConfigError, match=wanted):
        staff.add("B1", "  ", "dealer", "1234")


def test_a_pin_hash_in_another_format_is_refused_with_the_way_to_make_one() -> None:
    """A pin_hash that hash_pin() did not make (or a plain PIN) is refused, saying how to
    make a good one."""
    wanted = (
        r"^A pin_hash must be the text hash_pin\(\) prints \(scrypt\$16384\$8\$1\$salt\$hash\), "
        r"never the PIN itself\.$"
    )
    with pytest.raises(ConfigError, match=wanted):
        parse_pin_hash("4821")


def test_the_lock_refusal_carries_its_seconds_for_the_translation() -> None:
    """The refusal that locks a badge names the lock's length, in every language."""
    staff = StaffDirectory(clock=lambda: 0.0, max_failures=1, lockout_seconds=90)
    staff.add("B1", "Ana", "floor", "2468")
    with pytest.raises(AuthError) as caught:
        staff.login("B1", "0000")
    assert caught.value.key == "protocol.login.locked_now"
    assert caught.value.params == {"seconds": 90}
    assert "90" in tr(caught.value.key, "es", **caught.value.params)
    with pytest.raises(AuthError) as caught:
        staff.login("B1", "2468")
    assert caught.value.key == "protocol.login.locked"
    assert caught.value.params == {"seconds": 90}


def test_an_unknown_terminal_is_refused_as_unknown() -> None:
    """A terminal name that is no terminal is refused as unknown (not as a wrong
    secret), whatever secret it sends."""
    for terminal in ("seat11", "bogus", 7, None):
        with pytest.raises(AuthError) as caught:
            SECRETS.check(terminal, "seat1-secret-0123456789")
        assert str(caught.value) == (
            "Unknown terminal; a terminal is seat1 to seat10, console or broadcast."
        )
        assert caught.value.key == "protocol.hello.terminal"


def test_a_wrong_or_missing_secret_is_refused_naming_the_terminal() -> None:
    """A known terminal with a wrong, missing or non-text secret is not authorised."""
    for secret in ("wrong-secret-0123456789", "", None, b"seat1-secret-0123456789"):
        with pytest.raises(AuthError) as caught:
            SECRETS.check("seat1", secret)
        assert str(caught.value) == "The terminal seat1 is not authorised: wrong or missing secret."
        assert caught.value.key == "protocol.hello.secret"
        assert caught.value.params == {"terminal": "seat1"}
    assert SECRETS.check("seat1", "seat1-secret-0123456789") == "seat1"
    with pytest.raises(AuthError, match="seat2 is not authorised"):
        SECRETS.check("seat2", "seat1-secret-0123456789")  # a terminal with no secret set


def test_the_right_pin_logs_in_each_badge_and_a_lock_is_per_badge() -> None:
    """StaffDirectory.login: the right PIN returns that badge's own account; failures on
    one badge lock that badge only, and the refusal counts down the seconds left."""
    now = [1000.0]
    staff = StaffDirectory(clock=lambda: now[0], max_failures=2, lockout_seconds=90)
    ana = staff.add("B1", "Ana", "floor", "2468")
    bea = staff.add("B2", "Bea", "dealer", "1357")
    assert staff.login("B1", "2468") is ana
    assert staff.login("B2", "1357") is bea
    with pytest.raises(AuthError):
        staff.login("B2", "2468")  # Ana's PIN is not Bea's
    with pytest.raises(AuthError):
        staff.login("B1", "0000")
    with pytest.raises(AuthError) as caught:
        staff.login("B1", "0000")
    assert caught.value.key == "protocol.login.locked_now"
    assert staff.login("B2", "1357") is bea  # one failure on B2, and B2 is not locked
    now[0] += 30
    with pytest.raises(AuthError) as caught:
        staff.login("B1", "2468")
    assert caught.value.key == "protocol.login.locked"
    assert caught.value.params == {"seconds": 60}
    assert str(caught.value) == (
        "This badge is locked after 2 failed logins; try again in 60 seconds or call the floor."
    )
    now[0] += 61
    assert staff.login("B1", "2468") is ana  # the lock has expired
    with pytest.raises(AuthError) as caught:
        staff.login("B9", "2468")  # no such badge: refused like a wrong PIN
    assert caught.value.key != "protocol.login.locked"


def _directory_with_ana() -> StaffDirectory:
    staff = StaffDirectory()
    staff.add("B1", "Ana", "floor", "2468")
    return staff


@pytest.mark.parametrize(
    ("refused", "sentence", "key", "params"),
    [
        (
            lambda: StaffDirectory().add("B1", "Ana", "boss", "2468"),
            "The role 'boss' does not exist; use one of dealer, floor, technician.",
            "config.staff.role",
            {"role": "'boss'", "known": "dealer, floor, technician"},
        ),
        (
            lambda: StaffDirectory().add("", "Ana", "floor", "2468"),
            "Every staff account needs a badge identity and a person's name.",
            "config.staff.identity",
            {},
        ),
        (
            lambda: StaffDirectory().add("B1", "Ana\tPerez", "floor", "2468"),
            "A staff badge and name are printable text on one line, with no control or "
            "invisible character.",
            "config.staff.printable",
            {},
        ),
        (
            lambda: StaffDirectory().add("B1\n", "Ana", "floor", "2468"),
            "A staff badge and name are printable text on one line, with no control or "
            "invisible character.",
            "config.staff.printable",
            {},
        ),
        (
            lambda: _directory_with_ana().add("B1", "Bea", "dealer", "1357"),
            "The badge 'B1' already belongs to an account.",
            "config.staff.badge_twice",
            {"badge": "'B1'"},
        ),
        (
            lambda: _directory_with_ana().add("B2", "Ana", "dealer", "1357"),
            "There is already an account for Ana; accounts are never shared.",
            "config.staff.name_twice",
            {"name": "Ana"},
        ),
        (
            lambda: StaffDirectory().add("B1", "Ana", "floor", "12"),
            "The PIN for Ana must be 4 to 12 digits.",
            "config.staff.pin",
            {"name": "Ana"},
        ),
        (
            lambda: TerminalSecrets({"seat1": "x" * 16, "seat2": "y" * 15}),
            "The secret of seat2 must be at least 16 characters long.",
            "config.terminals.short",
            {"name": "seat2"},
        ),
        (
            lambda: TerminalSecrets({"seat11": "x" * 16}),
            "'seat11' is no terminal; terminals are seat1 to seat10, console and broadcast.",
            "config.terminals.unknown",
            {"name": "'seat11'"},
        ),
        (
            lambda: TerminalSecrets({"seat1": "x" * 16, "console": "x" * 16}),
            "Two terminals share a secret; give each terminal its own.",
            "config.terminals.shared",
            {},
        ),
    ],
)
def test_staff_and_terminal_configuration_refusals_word_for_word(
    refused: Any, sentence: str, key: str, params: dict[str, Any]
) -> None:
    """The configuration check shows these through their keys, in the screen's language."""
    with pytest.raises(ConfigError) as caught:
        refused()
    assert (str(caught.value), caught.value.key, caught.value.params) == (sentence, key, params)
    for lang in ("en", "es"):
        assert "{" not in tr(key, lang, **params)


def test_a_sixteen_character_terminal_secret_is_long_enough() -> None:
    assert TerminalSecrets({"seat1": "s" * 16}).check("seat1", "s" * 16) == "seat1"


def test_the_floor_web_login_check_neither_counts_nor_locks() -> None:
    """StaffDirectory.verify (the floor's web login, which keeps its own back-off): the
    right PIN gives that badge's own account; a wrong PIN, another badge's PIN or an
    unknown badge gives nothing; and no number of wrong PINs locks the badge for the
    table's console."""
    staff = StaffDirectory(max_failures=2)
    ana = staff.add("B1", "Ana", "floor", "2468")
    bea = staff.add("B2", "Bea", "dealer", "1357")
    assert staff.verify("B1", "2468") is ana
    assert staff.verify("B2", "1357") is bea
    assert staff.verify("B2", "2468") is None
    assert staff.verify("B9", "2468") is None
    assert staff.verify("", "") is None
    for _ in range(5):
        assert staff.verify("B1", "0000") is None
    assert staff.login("B1", "2468") is ana
