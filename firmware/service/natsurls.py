"""NATS server addresses from a configuration: one URL, or a cluster's list.

A table's ``[floor] url`` and the floor's ``[nats] url`` take either one
address (``"nats://10.0.0.5:4222"``), several separated by commas, or a TOML
list of them (``["nats://n1:4222", "nats://n2:4222", "nats://n3:4222"]``):
the nodes of one NATS cluster. The client tries them in turn and, when the
node it is on goes away, connects to another.
"""

from __future__ import annotations

import re

from firmware.errors import ConfigError
from firmware.i18n import tr

_URL = re.compile(r"(nats|tls)://(?:[^@/\s]+@)?(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})")


def _error(key: str, **params: str) -> ConfigError:
    return ConfigError(tr(key, "en", **params), key, **params)


def server_urls(value: object, where: str) -> tuple[str, ...]:
    """The server URLs of ``value`` (a string or a list of strings), checked.

    :param where: The option, for the sentence (``[floor] url``).
    :raises ConfigError: naming the option and the address that is wrong.
    """
    if isinstance(value, str):
        parts = [p.strip() for p in value.split(",")]
    elif isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        parts = [str(v).strip() for v in value]
    else:
        raise _error("config.nats.url_kind", where=where)
    urls = tuple(p for p in parts if p)
    if not urls:
        raise _error("config.nats.url_empty", where=where)
    for url in urls:
        found = _URL.fullmatch(url)
        if found is None or not 0 < int(found.group(3)) < 65536:
            raise _error("config.nats.url_bad", where=where, url=repr(url))
    if len(set(urls)) != len(urls):
        raise _error("config.nats.url_twice", where=where)
    return urls
