"""Optional compiled build of the rules engine (mypyc).

``pip install -e .`` (or ``make test``) installs the pure-Python package, as
always. With ``POKERTABLE_MYPYC=1`` set, the engine's hot modules listed in
``COMPILED`` are also compiled with mypyc into C extensions that sit next to
the ``.py`` files and are imported in their place (``make compiled`` builds
them in place, ``make pure`` removes them). The ``.py`` files stay the source
of truth: the extensions are built from them and behave identically.
Building needs a C compiler and the Python headers (gcc, python3-dev).
"""

from __future__ import annotations

import os

from setuptools import setup

COMPILED = [
    "firmware/engine/betting.py",
    "firmware/engine/cards.py",
    "firmware/engine/evaluator.py",
    "firmware/engine/events.py",
    "firmware/engine/hand.py",
    "firmware/engine/histories/amounts.py",
    "firmware/engine/histories/fasttoml.py",
    "firmware/engine/histories/phh.py",
    "firmware/engine/histories/phh_actions.py",
    "firmware/engine/histories/phh_hand.py",
    "firmware/engine/histories/phh_play.py",
    "firmware/engine/histories/phh_writer.py",
    "firmware/engine/histories/phhs.py",
    "firmware/engine/histories/pokerstars.py",
    "firmware/engine/histories/pokerstars_import.py",
    "firmware/engine/histories/rake.py",
    "firmware/engine/histories/unknown.py",
    "firmware/engine/pots.py",
    "firmware/engine/rulings.py",
    "firmware/engine/showdown.py",
    "firmware/engine/state.py",
]
"""Modules compiled by ``POKERTABLE_MYPYC=1``. ``firmware/engine/rules.py`` stays
interpreted: ``HandConfig`` checks its own field types and says what to fix, where a
compiled class would refuse a wrong type with a bare ``TypeError`` first."""

if os.environ.get("POKERTABLE_MYPYC") == "1":
    import sys

    from mypyc.build import mypycify

    # Progress for whoever waits (install.sh on a Pi: 10-20 minutes in all): mypyc
    # type-checks and generates C for every module first, then the compiler runs.
    print(
        f"pokertable: mypyc compiles {len(COMPILED)} engine modules: type check and C "
        "generation first (several minutes on a Pi), then one compiler run per module.",
        file=sys.stderr,
        flush=True,
    )
    modules = mypycify(COMPILED, group_name="firmware.engine.compiled", verbose=True)
    print("pokertable: C generated; compiling it now.", file=sys.stderr, flush=True)
    setup(ext_modules=modules)
else:
    setup()
