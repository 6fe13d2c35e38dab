"""Staff accounts and terminal secrets: the refusals, their catalog keys and parameters.

The screens translate a refusal from its key and parameters, so a wrong key or
a missing parameter shows the wrong sentence in Spanish. Written against the
survivors of mutation testing of ``firmware/protocol/auth.py`` (docs/testing.md).
"""

from __future__ import annotations

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
