"""The floor's schema has one source: the versioned migrations.

The store's tables, indexes and views are made and changed only by the SQL
files in ``firmware/floor/store/migrations/`` (applied by yoyo, see docs/floor.md).
A statement that makes or changes them elsewhere in the floor's code would
be a second copy that drifts from the migrations (an old ``CREATE TABLE IF
NOT EXISTS`` that runs after them changes nothing today and hides what the
schema is tomorrow).
"""

from __future__ import annotations

import re
from pathlib import Path

FLOOR = Path(__file__).resolve().parents[1] / "firmware" / "floor"
DDL = re.compile(
    r"\b(CREATE\s+(UNIQUE\s+)?(TABLE|INDEX|VIEW|MATERIALIZED\s+VIEW|SEQUENCE|TRIGGER|FUNCTION)"
    r"|ALTER\s+(TABLE|INDEX|VIEW|SEQUENCE)|DROP\s+(TABLE|INDEX|VIEW))\b",
    re.IGNORECASE,
)


def test_no_floor_module_makes_or_changes_the_schema_outside_the_migrations() -> None:
    modules = sorted(FLOOR.rglob("*.py"))
    assert len(modules) > 10  # the floor's code is where it is looked for
    found = [
        f"{path.relative_to(FLOOR)}:{number}: {line.strip()}"
        for path in modules
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if DDL.search(line)
    ]
    assert not found, "schema statements outside firmware/floor/store/migrations/:\n" + "\n".join(
        found
    )
    migrations = sorted((FLOOR / "store" / "migrations").glob("*.sql"))
    assert migrations and all(DDL.search(p.read_text(encoding="utf-8")) for p in migrations[:1])
