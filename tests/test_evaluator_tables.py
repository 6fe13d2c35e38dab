"""The stored evaluator tables: identical to a fresh build, and a damaged file means a rebuild."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware.engine import evaluator


def test_the_stored_file_holds_exactly_the_built_tables() -> None:
    assert evaluator.TABLES_FILE.is_file()  # found in the compiled build too
    built = evaluator._build_tables()
    assert evaluator.load_tables(evaluator.TABLES_FILE.read_bytes()) == built
    loaded = (evaluator.LOW_INDEX, evaluator.HIGH_INDEX, evaluator.RANK_STRENGTHS)
    assert built == (*loaded, evaluator.FLUSH_TABLE, evaluator.CATEGORY_BOUNDS)


@pytest.mark.soak
def test_the_flat_tables_hold_the_rank_dictionary() -> None:
    table, _, _ = evaluator._build_rank_dict()
    assert len(table) == 6175 + 18395 + 49205
    assert evaluator.rank_table() == table


def small_tables() -> evaluator.FlatTables:
    """Tables of the right shape with made-up contents."""
    lows = [[1, 2], [3], [4, 5, 6]]
    return lows, [7, 8], [[9], [10, 11], [12]], list(range(8192)), list(range(9))


def test_dump_and_load_round_trip() -> None:
    assert evaluator.load_tables(evaluator.dump_tables(small_tables())) == small_tables()


@pytest.mark.parametrize(
    "content", [b"", b"PTEV2 not zlib", b"PTEV1 an older format", b"something else entirely"]
)
def test_a_missing_or_damaged_file_means_a_rebuild(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: bytes
) -> None:
    broken = tmp_path / "tables.bin"
    broken.write_bytes(content)
    monkeypatch.setattr(evaluator, "TABLES_FILE", broken)
    assert evaluator._tables() == evaluator._build_tables()
    monkeypatch.setattr(evaluator, "TABLES_FILE", tmp_path / "missing.bin")
    assert evaluator._tables()[3] == evaluator.FLUSH_TABLE


def test_a_truncated_table_is_refused() -> None:
    data = evaluator.dump_tables(small_tables())
    import zlib

    raw = zlib.decompress(data[5:])
    with pytest.raises(ValueError, match="wrong size"):
        evaluator.load_tables(data[:5] + zlib.compress(raw[:-2]))
