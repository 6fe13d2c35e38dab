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

TERMINALS = (*tuple(f"seat{i}" for i in range(1, 11)), "console", "broadcast")
"""Every terminal name (``broadcast``: the delayed feed for a stream, BROADCAST)."""

MAX_FAILURES = 5
"""Failed logins in a row that lock a badge."""

LOCKOUT_SECONDS = 300.0
"""How long a locked badge stays locked."""

SCRYPT = {"n": 2**14, "r": 8, "p": 1}
"""scrypt cost parameters for PIN hashes."""

PIN_PATTERN = re.compile(r"^[0-9]{4,12}$")


class AuthError(PokerTableError, PermissionError):
    """Authentication refused; the message is a sentence for the screen."""


HASH_PREFIX = "scrypt"
"""First field of a PIN hash string (see :func:`hash_pin`)."""


def _scrypt(pin: str, salt: bytes | None = None) -> tuple[bytes, bytes]:
    """Return ``(salt, hash)`` of ``pin`` with scrypt (a fresh 16-byte salt if none)."""
    salt = os.urandom(16) if salt is None else salt
    digest = hashlib.scrypt(pin.encode("utf-8"), salt=salt, dklen=32, **SCRYPT)
    return salt, digest


def hash_pin(pin: str) -> str:
    """The salted scrypt hash of ``pin`` as text, for a ``[[staff]]`` entry's ``pin_hash``.

    The format is ``scrypt$<n>$<r>$<p>$<salt hex>$<hash hex>``; the PIN itself is
    never stored. Produce one with::

        .venv/bin/python -c "from firmware.protocol.auth import hash_pin; print(hash_pin('4821'))"

    :raises ConfigError: if ``pin`` is not 4 to 12 digits.
    """
    if not PIN_PATTERN.match(pin):
        raise ConfigError("A PIN must be 4 to 12 digits.", key="cli.config.pin_digits")
    salt, digest = _scrypt(pin)
    n, r, p = SCRYPT["n"], SCRYPT["r"], SCRYPT["p"]
    return f"{HASH_PREFIX}${n}${r}${p}${salt.hex()}${digest.hex()}"


def parse_pin_hash(text: str) -> tuple[bytes, bytes]:
    """Return ``(salt, hash)`` from a :func:`hash_pin` string.

    :raises ConfigError: for text in another format or with other scrypt costs.
    """
    parts = text.split("$") if isinstance(text, str) else []
    costs = [str(SCRYPT["n"]), str(SCRYPT["r"]), str(SCRYPT["p"])]
    try:
        if len(parts) != 6 or parts[0] != HASH_PREFIX or parts[1:4] != costs:
            raise ValueError(text)
        salt, digest = bytes.fromhex(parts[4]), bytes.fromhex(parts[5])
        if len(salt) != 16 or len(digest) != 32:
            raise ValueError(text)
    except ValueError:
        raise ConfigError(
            "A pin_hash must be the text hash_pin() prints (scrypt$16384$8$1$salt$hash), "
            "never the PIN itself.",
            key="config.staff.pin_hash",
        ) from None
    return salt, digest


@dataclass(frozen=True)
class StaffAccount:
    """One person's account: badge identity, name, role and salted PIN hash."""

    badge: str
    name: str
    role: str
    salt: bytes
    pin_hash: bytes


MAX_TRACKED = 4096
"""Badges whose login attempts are kept before the idle ones are forgotten."""


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
        if not PIN_PATTERN.match(pin):
            raise ConfigError(
                f"The PIN for {name} must be 4 to 12 digits.", key="config.staff.pin", name=name
            )
        salt, digest = _scrypt(pin)
        return self._add(StaffAccount(badge, name, role, salt, digest))

    def add_hashed(self, badge: str, name: str, role: str, pin_hash: str) -> StaffAccount:
        """Create one person's account from a :func:`hash_pin` string (table configuration).

        :raises ConfigError: as :meth:`add`, or for a ``pin_hash`` not made by :func:`hash_pin`.
        """
        salt, digest = parse_pin_hash(pin_hash)
        return self._add(StaffAccount(badge, name, role, salt, digest))

    def _add(self, account: StaffAccount) -> StaffAccount:
        badge, name, role = account.badge, account.name, account.role
        if role not in ROLES:
            raise ConfigError(
                f"The role {role!r} does not exist; use one of {', '.join(ROLES)}.",
                key="config.staff.role",
                role=repr(role),
                known=", ".join(ROLES),
            )
        if not isinstance(badge, str) or not badge or not isinstance(name, str) or not name.strip():
            raise ConfigError(
                "Every staff account needs a badge identity and a person's name.",
                key="config.staff.identity",
            )
        if not badge.isprintable() or not name.isprintable():
            # Names are shown on the console and written in records and exports.
            raise ConfigError(
                "A staff badge and name are printable text on one line, with no control or "
                "invisible character.",
                key="config.staff.printable",
            )
        with self._lock:
            if badge in self._accounts:
                raise ConfigError(
                    f"The badge {badge!r} already belongs to an account.",
                    key="config.staff.badge_twice",
                    badge=repr(badge),
                )
            if any(a.name == name for a in self._accounts.values()):
                raise ConfigError(
                    f"There is already an account for {name}; accounts are never shared.",
                    key="config.staff.name_twice",
                    name=name,
                )
            self._accounts[badge] = account
        return account

    def account(self, badge: str) -> StaffAccount | None:
        """The account of ``badge``, or ``None`` when it is no staff badge."""
        with self._lock:
            return self._accounts.get(badge)

    def verify(self, badge: str, pin: str) -> StaffAccount | None:
        """The account if ``pin`` is its PIN, else None, without counting a failure or
        looking at the badge's lock: for a caller that keeps its own limits (the floor's
        web login backs off per badge and client instead of locking the badge for all)."""
        with self._lock:
            account = self._accounts.get(badge)
        salt = account.salt if account is not None else b"\0" * 16
        _, digest = _scrypt(pin, salt)  # hash even for unknown badges: same timing
        expected = account.pin_hash if account is not None else b"\1" * 32
        return account if account is not None and hmac.compare_digest(digest, expected) else None

    def login(self, badge: str, pin: str) -> StaffAccount:
        """Check a login; return the account.

        :raises AuthError: for a locked badge, an unknown badge or a wrong
            PIN (the last two are counted as failures).
        """
        now = self.clock()
        with self._lock:
            if len(self._attempts) > MAX_TRACKED and badge not in self._attempts:
                # Each badge string tried gets an entry: forget the unlocked ones of badges
                # no account has (their counts protect nobody), so that a flood of
                # made-up badges cannot fill the memory.
                for key, tried in list(self._attempts.items()):
                    if key not in self._accounts and tried.locked_until <= now:
                        del self._attempts[key]
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
        _, digest = _scrypt(pin, salt)  # hash even for unknown badges: same timing
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
                    f"{name!r} is no terminal; terminals are seat1 to seat10, console and "
                    "broadcast.",
                    key="config.terminals.unknown",
                    name=repr(name),
                )
            if len(secret) < 16:
                raise ConfigError(
                    f"The secret of {name} must be at least 16 characters long.",
                    key="config.terminals.short",
                    name=name,
                )
        values = list(self.secrets.values())
        if len(set(values)) != len(values):
            raise ConfigError(
                "Two terminals share a secret; give each terminal its own.",
                key="config.terminals.shared",
            )

    def check(self, terminal: object, secret: object) -> str:
        """Return the terminal name if ``secret`` is its secret.

        :raises AuthError: for an unknown terminal or a wrong secret.
        """
        if not isinstance(terminal, str) or terminal not in TERMINALS:
            raise AuthError(
                "Unknown terminal; a terminal is seat1 to seat10, console or broadcast.",
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
