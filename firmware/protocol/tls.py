"""TLS helpers of the table server (split from :mod:`firmware.protocol.server`).

TCP connections use TLS with a client certificate signed by the table's CA;
the certificate's common name must be the terminal named in ``hello``.
"""

from __future__ import annotations

import ssl
from typing import Any


def common_name(cert: Any) -> str | None:
    """The subject common name of a peer certificate from ``getpeercert()``."""
    if not isinstance(cert, dict):
        return None
    for rdn in cert.get("subject", ()):
        for key, value in rdn:
            if key == "commonName":
                return str(value)
    return None


def server_ssl_context(certfile: str, keyfile: str, client_ca: str) -> ssl.SSLContext:
    """A TLS server context requiring a client certificate signed by ``client_ca``."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(certfile, keyfile)
    context.load_verify_locations(cafile=client_ca)
    context.verify_mode = ssl.CERT_REQUIRED
    return context


__all__ = ["common_name", "server_ssl_context"]
