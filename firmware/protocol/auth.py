"""Who may talk to the table: terminals with per-terminal secrets, staff with badge and PIN.

* Terminals (``seat1``..``seat10``, ``console``) authenticate with ``hello``:
  the terminal's name and its secret from the table configuration, compared
  in constant time (:func:`hmac.compare_digest`). Over TLS the client
  certificate's common name must also be the terminal's name.
* Staff log in on the console with the badge the console's smart-card reader
  reads and a PIN. Each account is one person with one badge and one role
  (``dealer``, ``floor``, ``technician``): no shared accounts. PINs are kept
  only as salted scrypt hashes. After :data:`MAX_FAILURES` failed logins in a
  row a badge is locked for :data:`LOCKOUT_SECONDS` (time is injectable).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from firmware.errors import ConfigError, PokerTableError

ROLES = ("dealer", "floor", "technician")
"""Staff roles."""

TERMINALS = (*tuple(f"seat{i}" for i in range(1, 11)), "console")
"""Every terminal name."""

MAX_FAILURES = 5
"""Failed logins in a row that lock a badge."""

LOCKOUT_SECONDS = 300.0
"""How long a locked badge stays locked."""

SCRYPT = {"n": 2**14, "r": 8, "p": 1}
"""scrypt cost parameters for PIN hashes."""

PIN_PATTERN = re.compile(r"^[0-9]{4,12}$")


class AuthError(PokerTableError, PermissionError):
    """Authentication refused; the message is a sentence for the screen."""


def hash_pin(pin: str, salt: bytes | None = None) -> tuple[bytes, bytes]:
    """Return ``(salt, hash)`` of ``pin`` with scrypt and a fresh 16-byte salt."""
    salt = os.urandom(16) if salt is None else salt
    digest = hashlib.scrypt(pin.encode("utf-8"), salt=salt, dklen=32, **SCRYPT)
    return salt, digest


@dataclass(frozen=True)
class StaffAccount:
    """One person's account: badge identity, name, role and salted PIN hash."""

    badge: str
    name: str
    role: str
    salt: bytes
    pin_hash: bytes


@dataclass
class _Attempts:
    failures: int = 0
    locked_until: float = 0.0


class StaffDirectory:
    """Staff accounts and login attempts (thread-safe).

    :param clock: Monotonic seconds (injectable for tests).
    :param max_failures: Failed logins in a row that lock a badge.
    :param lockout_seconds: How long the lock lasts.
    """

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        max_failures: int = MAX_FAILURES,
        lockout_seconds: float = LOCKOUT_SECONDS,
    ) -> None:
        self.clock = clock
        self.max_failures = max_failures
        self.lockout_seconds = lockout_seconds
        self._accounts: dict[str, StaffAccount] = {}
        self._attempts: dict[str, _Attempts] = {}
        self._lock = threading.Lock()

    def add(self, badge: str, name: str, role: str, pin: str) -> StaffAccount:
        """Create one person's account.

        :raises ConfigError: for an unknown role, a PIN that is not 4 to 12
            digits, or a badge or name already used (no shared accounts).
        """
        if role not in ROLES:
            raise ConfigError(f"The role {role!r} does not exist; use one of {', '.join(ROLES)}.")
        if not PIN_PATTERN.match(pin):
            raise ConfigError(f"The PIN for {name} must be 4 to 12 digits.")
        if not badge or not name.strip():
            raise ConfigError("Every staff account needs a badge identity and a person's name.")
        with self._lock:
            if badge in self._accounts:
                raise ConfigError(f"The badge {badge!r} already belongs to an account.")
            if any(a.name == name for a in self._accounts.values()):
                raise ConfigError(
                    f"There is already an account for {name}; accounts are never shared."
                )
            salt, digest = hash_pin(pin)
            account = StaffAccount(badge, name, role, salt, digest)
            self._accounts[badge] = account
        return account

    def login(self, badge: str, pin: str) -> StaffAccount:
        """Check a login; return the account.

        :raises AuthError: for a locked badge, an unknown badge or a wrong
            PIN (the last two are counted as failures).
        """
        now = self.clock()
        with self._lock:
            attempts = self._attempts.setdefault(badge, _Attempts())
            if attempts.locked_until > now:
                left = attempts.locked_until - now
                raise AuthError(
                    f"This badge is locked after {self.max_failures} failed logins; try again in "
                    f"{left:.0f} seconds or call the floor.",
                    key="protocol.login.locked",
                    seconds=round(left),
                )
            account = self._accounts.get(badge)
        salt = account.salt if account is not None else b"\0" * 16
        _, digest = hash_pin(pin, salt)  # hash even for unknown badges: same timing
        expected = account.pin_hash if account is not None else b"\1" * 32
        ok = account is not None and hmac.compare_digest(digest, expected)
        with self._lock:
            if ok:
                attempts.failures = 0
                assert account is not None
                return account
            attempts.failures += 1
            if attempts.failures >= self.max_failures:
                attempts.failures = 0
                attempts.locked_until = self.clock() + self.lockout_seconds
                raise AuthError(
                    f"Wrong badge or PIN; after {self.max_failures} failed logins this badge is "
                    f"locked for {self.lockout_seconds:.0f} seconds.",
                    key="protocol.login.locked_now",
                    seconds=round(self.lockout_seconds),
                )
        raise AuthError("Wrong badge or PIN; try again.", key="protocol.login.failed")


@dataclass
class TerminalSecrets:
    """Each terminal's secret from the table configuration."""

    secrets: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, secret in self.secrets.items():
            if name not in TERMINALS:
                raise ConfigError(
                    f"{name!r} is no terminal; terminals are seat1 to seat10 and console."
                )
            if len(secret) < 16:
                raise ConfigError(f"The secret of {name} must be at least 16 characters long.")
        values = list(self.secrets.values())
        if len(set(values)) != len(values):
            raise ConfigError("Two terminals share a secret; give each terminal its own.")

    def check(self, terminal: object, secret: object) -> str:
        """Return the terminal name if ``secret`` is its secret.

        :raises AuthError: for an unknown terminal or a wrong secret.
        """
        if not isinstance(terminal, str) or terminal not in TERMINALS:
            raise AuthError(
                "Unknown terminal; a terminal is seat1 to seat10 or console.",
                key="protocol.hello.terminal",
            )
        expected = self.secrets.get(terminal)
        given = secret.encode("utf-8") if isinstance(secret, str) else b""
        # Compare digests: equal length, constant time, whatever was sent.
        ok = expected is not None and hmac.compare_digest(
            hashlib.sha256(given).digest(), hashlib.sha256(expected.encode("utf-8")).digest()
        )
        if not ok:
            raise AuthError(
                f"The terminal {terminal} is not authorised: wrong or missing secret.",
                key="protocol.hello.secret",
                terminal=terminal,
            )
        return terminal
