"""Where the journal's seal key lives, and when ``serve`` may make one.

The journal's head is signed with a key (HMAC-SHA256, see
:mod:`firmware.service.journal`). A key kept beside the journal seals nothing
against whoever holds the data folder: they recompute the chain and sign it
again with it (issue 27, item 5). So:

* the key is looked for, in order, in ``serve --key FILE``, in systemd's
  credentials folder (``$CREDENTIALS_DIRECTORY/journal.key``: the unit loads it
  with ``LoadCredential=`` from ``/etc/pokertable/seal/journal.key``, a
  root-only folder the controller cannot write and that is not in its data
  folder), and only then beside the journal (a table run by hand, for
  development);
* ``serve`` creates a key only for an empty journal, never over a journal that
  has records: deleting the key and the head is then refused with a sentence
  instead of a new key signing whatever the journal now says. A journal
  written before keys existed is sealed on purpose, after ``audit verify``,
  with ``pokertable audit seal``.
"""

from __future__ import annotations

import os

from firmware.cli.lang import keyed
from firmware.service.journal import Journal, JournalError, load_or_create_key, read_key

KEY_NAME = "journal.key"
SEAL_KEY = "/etc/pokertable/seal/journal.key"
"""Where install.sh keeps the key (root only); the unit hands it to the controller."""


def seal_key_path(given: str | None, data_dir: str) -> tuple[str, bool]:
    """The key's path and whether ``serve`` may create it there (only beside the
    journal or where ``--key`` names: never in systemd's read-only credentials)."""
    if given:
        return given, True
    credentials = os.environ.get("CREDENTIALS_DIRECTORY")
    if credentials:
        return os.path.join(credentials, KEY_NAME), False
    return os.path.join(data_dir, KEY_NAME), True


def open_sealed(path: str, key_path: str, may_create: bool) -> Journal:
    """The journal at ``path`` opened with its seal key (``serve``'s open: no page check).

    :raises JournalError: if the journal has records and the key is missing (a key
        is never made over an existing journal), or the key cannot be read.
    """
    journal = Journal(path, check=False)
    try:
        if os.path.exists(key_path):
            journal.key = read_key(key_path)
        elif len(journal) == 0 and may_create:
            journal.key = load_or_create_key(key_path)
        elif len(journal) == 0:
            raise keyed(JournalError, "cli.serve.seal_missing_new", seal=key_path)
        else:
            raise keyed(
                JournalError,
                "cli.serve.seal_missing",
                journal=path,
                records=len(journal),
                seal=key_path,
            )
    except BaseException:
        journal.close()
        raise
    return journal


__all__ = ["KEY_NAME", "SEAL_KEY", "open_sealed", "seal_key_path"]
