"""systemd readiness and watchdog notifications (sd_notify), without a library.

A datagram to ``$NOTIFY_SOCKET`` carries ``READY=1``, ``WATCHDOG=1``,
``STOPPING=1`` or ``STATUS=...``. The watchdog must be pinged from the main
loop itself, never from a helper thread, so a stuck loop stops the pings and
systemd restarts the service.
"""

from __future__ import annotations

import os
import socket


class Notifier:
    """Sends notifications to systemd when it asked for them (else does nothing).

    :param environ: The process environment (injectable for tests).
    """

    def __init__(self, environ: dict[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        address = env.get("NOTIFY_SOCKET", "")
        if address.startswith("@"):
            address = "\0" + address[1:]  # abstract namespace
        self.address = address or None
        usec = env.get("WATCHDOG_USEC")
        pid = env.get("WATCHDOG_PID")
        interval = None
        if usec and (not pid or int(pid) == os.getpid()):
            interval = int(usec) / 1e6 / 2  # ping at half the watchdog timeout
        self.watchdog_interval: float | None = interval
        self._last_ping = float("-inf")

    def send(self, message: str) -> bool:
        """Send one notification; return whether it was sent."""
        if self.address is None:
            return False
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            try:
                sock.connect(self.address)
                sock.sendall(message.encode())
            except OSError:
                return False
        return True

    def ready(self, status: str = "") -> None:
        """The service is up: devices open, table restored."""
        self.send("READY=1" + (f"\nSTATUS={status}" if status else ""))

    def stopping(self) -> None:
        """The service is shutting down."""
        self.send("STOPPING=1")

    def status(self, text: str) -> None:
        """A one-line status shown by ``systemctl status``."""
        self.send(f"STATUS={text}")

    def ping(self, now: float) -> None:
        """Ping the watchdog if half its interval has passed (call from the main loop)."""
        if self.watchdog_interval is None:
            return
        if now - self._last_ping >= self.watchdog_interval:
            self._last_ping = now
            self.send("WATCHDOG=1")
