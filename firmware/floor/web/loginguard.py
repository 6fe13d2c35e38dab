"""Limits on the floor's staff login that nobody else can turn against a person.

Before (issue 27): ten failures a minute from one address returned 429 to
everyone behind it (all staff behind the recommended reverse proxy), five
wrong PINs locked a badge for five minutes whoever typed them, and the login
form had no CSRF check. Now:

* **The client** is the connection's address, or, when that address is a
  configured reverse proxy (``trusted``), the right-most address of
  ``X-Forwarded-For`` that is not itself a trusted proxy (the proxy appends
  the address it saw; anything further left was written by the client and is
  not trusted).
* **Per badge and client, exponential backoff**: the first
  :data:`FREE_FAILURES` wrong PINs for a badge from a client cost nothing;
  then each failure doubles the wait before that client may try that badge
  again (:data:`BACKOFF_BASE` seconds, up to :data:`BACKOFF_MAX`). Another
  client (the badge's owner at another tablet) is not held back.
* **Per client**: :data:`CLIENT_FAILURES` failures a minute over all badges
  make that client wait out the minute (guessing many badges).
* **Per badge, many clients** (a guess spread over addresses): after
  :data:`BADGE_FAILURES` failures for one badge in :data:`BADGE_WINDOW`
  seconds, clients that never logged in with that badge wait
  :data:`BACKOFF_MAX` per try; a browser where the badge logged in before
  carries a signed cookie (:meth:`LoginGuard.device_mark`) and is not held.
* **Login CSRF**: the login form carries a token bound to a cookie of the
  login page (an HMAC of it with the server's secret), checked with the
  ``Origin`` on every login.

Memory is bounded: at most :data:`MAX_TRACKED` entries of each kind are kept,
the ones whose wait has passed are forgotten first.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

FREE_FAILURES = 2
BACKOFF_BASE = 2.0
BACKOFF_MAX = 300.0
CLIENT_FAILURES = 10
CLIENT_WINDOW = 60.0
BADGE_FAILURES = 30
BADGE_WINDOW = 3600.0
MAX_TRACKED = 4096


@dataclass
class _Backoff:
    failures: int = 0
    until: float = 0.0


def client_address(peer: str, forwarded: str | None, trusted: frozenset[str]) -> str:
    """The client a request comes from: ``peer``, or behind a trusted proxy the right-most
    untrusted address of ``X-Forwarded-For``.

    >>> client_address("10.0.0.5", "6.6.6.6, 192.168.1.20", frozenset({"10.0.0.5"}))
    '192.168.1.20'
    >>> client_address("192.168.1.9", "1.2.3.4", frozenset({"10.0.0.5"}))
    '192.168.1.9'
    """
    if peer not in trusted or not forwarded:
        return peer
    for part in reversed([p.strip() for p in forwarded.split(",")]):
        try:
            address = str(ipaddress.ip_address(part))
        except ValueError:
            return peer  # a malformed list: the proxy's own address is all we know
        if address not in trusted:
            return address
    return peer


class LoginGuard:
    """Login limits (thread-safe).

    :param clock: Monotonic seconds (injectable for tests).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._secret = secrets.token_bytes(32)
        self._lock = threading.Lock()
        self._pairs: dict[tuple[str, str], _Backoff] = {}
        self._clients: dict[str, list[float]] = {}
        self._badges: dict[str, list[float]] = {}

    # ------------------------------------------------------------ tokens

    def _mac(self, purpose: str, value: str) -> str:
        return hmac.new(self._secret, f"{purpose}:{value}".encode(), hashlib.sha256).hexdigest()

    def login_token(self, cookie: str) -> str:
        """The CSRF token of the login form for the login page's cookie."""
        return self._mac("login", cookie)

    def token_ok(self, cookie: str, token: str) -> bool:
        """Whether a login form's token belongs to its cookie (constant time)."""
        return bool(cookie) and hmac.compare_digest(self.login_token(cookie), token)

    def device_mark(self, badge: str) -> str:
        """The cookie value a browser keeps after ``badge`` logged in on it."""
        return self._mac("device", badge)

    def knows(self, badge: str, mark: str) -> bool:
        """Whether ``mark`` says ``badge`` logged in on this browser before."""
        return bool(mark) and hmac.compare_digest(self.device_mark(badge), mark)

    # ------------------------------------------------------------ limits

    @staticmethod
    def _recent(times: list[float], now: float, window: float) -> list[float]:
        return [t for t in times if now - t < window]

    def wait(self, client: str, badge: str, known: bool) -> tuple[str, float]:
        """What holds this try back (``client``, ``badge`` or ``''``) and the seconds left."""
        now = self.clock()
        with self._lock:
            recent = self._recent(self._clients.get(client, []), now, CLIENT_WINDOW)
            if len(recent) >= CLIENT_FAILURES:
                return "client", CLIENT_WINDOW - (now - recent[0])
            pair = self._pairs.get((badge, client))
            if pair is not None and pair.until > now:
                return "badge", pair.until - now
            if not known:
                spread = self._recent(self._badges.get(badge, []), now, BADGE_WINDOW)
                if len(spread) >= BADGE_FAILURES and now - spread[-1] < BACKOFF_MAX:
                    return "badge", BACKOFF_MAX - (now - spread[-1])
        return "", 0.0

    def failed(self, client: str, badge: str, known: bool) -> None:
        """Count a wrong badge or PIN."""
        now = self.clock()
        with self._lock:
            self._prune(now)
            pair = self._pairs.setdefault((badge, client), _Backoff())
            pair.failures += 1
            if pair.failures > FREE_FAILURES:
                steps = pair.failures - FREE_FAILURES - 1
                pair.until = now + min(BACKOFF_BASE * 2 ** min(steps, 30), BACKOFF_MAX)
            recent = self._recent(self._clients.get(client, []), now, CLIENT_WINDOW)
            self._clients[client] = [*recent, now][-CLIENT_FAILURES:]
            if not known:
                spread = self._recent(self._badges.get(badge, []), now, BADGE_WINDOW)
                self._badges[badge] = [*spread, now][-BADGE_FAILURES:]

    def succeeded(self, client: str, badge: str) -> None:
        """A good login clears that client's backoff for the badge."""
        with self._lock:
            self._pairs.pop((badge, client), None)

    def _prune(self, now: float) -> None:
        if len(self._pairs) > MAX_TRACKED:
            for pair in [k for k, v in self._pairs.items() if v.until <= now]:
                del self._pairs[pair]
        for kept, window in ((self._clients, CLIENT_WINDOW), (self._badges, BADGE_WINDOW)):
            if len(kept) > MAX_TRACKED:
                for key in [k for k, v in kept.items() if now - v[-1] >= window]:
                    del kept[key]
        # Still too many (a flood from many addresses): the oldest go first.
        for pair in list(self._pairs)[: max(0, len(self._pairs) - MAX_TRACKED)]:
            del self._pairs[pair]
        for kept in (self._clients, self._badges):
            for key in list(kept)[: max(0, len(kept) - MAX_TRACKED)]:
                del kept[key]

    @property
    def tracked(self) -> int:
        """Entries kept (for the memory bound's test)."""
        with self._lock:
            return len(self._pairs) + len(self._clients) + len(self._badges)
