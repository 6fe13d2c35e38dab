"""Shared fixtures: the floor's real servers (``tests/floor_kit.py``).

The ``pokertable`` command speaks the locale's language (``firmware.i18n.language_of``);
the tests read its English unless they ask for Spanish (``--lang es``, or a subprocess
with ``LANG=es_PE.UTF-8``), so a Spanish locale on the machine running them is set
aside here.
"""

import os

from firmware.i18n import LOCALE_VARIABLES, language_of

pytest_plugins = ["tests.floor_kit"]

if language_of() != "en":
    for _name in LOCALE_VARIABLES:
        os.environ.pop(_name, None)
    os.environ["LANG"] = "C.UTF-8"
