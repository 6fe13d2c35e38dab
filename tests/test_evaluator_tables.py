"""The stored evaluator tables: identical to a fresh build, and a damaged file means a rebuild."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware.engine import evaluator


def test_the_stored_file_holds_exactly_the_built_tables() -> None:
    assert evaluator.TABLES_FILE.is_file()  # found in the compiled build too
    built = evaluator._build_tables()
    assert evaluator.load_tables(evaluator.TABLES_FILE.read_bytes()) == built
    assert built == (evaluator.RANK_TABLE, evaluator.FLUSH_TABLE, evaluator.CATEGORY_BOUNDS)


def test_dump_and_load_round_trip() -> None:
    tables = ({5: 1, 1 << 30: 7462}, list(range(8192)), list(range(9)))
    assert evaluator.load_tables(evaluator.dump_tables(*tables)) == tables


@pytest.mark.parametrize("content", [b"", b"PTEV1 not zlib", b"something else entirely"])
def test_a_missing_or_damaged_file_means_a_rebuild(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: bytes
) -> None:
    broken = tmp_path / "tables.bin"
    broken.write_bytes(content)
    monkeypatch.setattr(evaluator, "TABLES_FILE", broken)
    assert evaluator._tables() == evaluator._build_tables()
    monkeypatch.setattr(evaluator, "TABLES_FILE", tmp_path / "missing.bin")
    assert evaluator._tables()[1] == evaluator.FLUSH_TABLE


def test_a_truncated_table_is_refused() -> None:
    tables = ({5: 1, 6: 2}, list(range(8192)), list(range(9)))
    data = evaluator.dump_tables(*tables)
    import zlib

    raw = zlib.decompress(data[5:])
    with pytest.raises(ValueError, match="wrong size"):
        evaluator.load_tables(data[:5] + zlib.compress(raw[:-2]))
