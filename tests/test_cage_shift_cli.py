"""``pokertable shift report``: a table's shift report from its data folder, as CSV and
as a printable PDF, in the reader's language, times in the table's zone (TABLE-BANK)."""

from __future__ import annotations

import csv
import io
import pathlib
import re
import zlib

import pytest

from firmware.cli.main import main
from firmware.i18n import tr
from firmware.service.history import HandHistory
from firmware.service.journal import Journal
from firmware.table import events as te
from firmware.table.bank import expected_on_table, seat_chips
from firmware.table.shiftreport import LINES
from firmware.table.walltime import local_text
from hal_sim.table_soak import Soak
from tests.test_cage_bank import PIT, STAKES

START = 1_780_000_000.0
"""The wall clock at the table's first event (UTC)."""
ZONE = "America/Lima"


@pytest.fixture
def data(tmp_path: pathlib.Path) -> pathlib.Path:
    """A table's data folder: a journal with a counted shift (a 25 chip missing) and an
    open one after it, and the hand history keeping the table's zone."""
    folder = tmp_path / "mesa-7"
    folder.mkdir()
    history = HandHistory(str(folder / "history.sqlite"))
    history.set_zone(ZONE)
    history.close()
    journal = Journal(str(folder / "journal.sqlite"))
    soak = Soak("casino-cash", seed=21, incident_rate=0.0, journal=journal, stakes=STAKES)
    assert soak._apply(te.WallClock(START))
    assert soak._apply(te.BankOpen(5000, PIT))
    for _ in range(12):
        soak.play_hand()
    assert soak._apply(te.BankFill(1000, PIT))
    counted = 5000 + 1000 - 25 + seat_chips(soak.table.seating)
    expected = expected_on_table(soak.table.bank, soak.table.seating)
    assert soak._apply(te.ShiftCount(counted, expected, PIT))
    soak.play_hand()
    assert soak.journal is not None
    soak.journal.close()
    return folder


def _pdf_text(pdf: bytes) -> str:
    """The text drawn in a PDF: every content stream inflated, its strings joined."""
    streams = re.findall(rb"stream\r?\n(.*?)\r?\nendstream", pdf, re.S)
    text = b""
    for stream in streams:
        try:
            text += zlib.decompress(stream)
        except zlib.error:
            text += stream
    shown = re.findall(rb"\(((?:\\.|[^\\)])*)\)\s*Tj", text)
    return " ".join(s.decode("latin-1").replace("\\(", "(").replace("\\)", ")") for s in shown)


def test_csv_and_pdf_in_spanish_with_times_in_the_tables_zone(
    data: pathlib.Path, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    csv_file, pdf_file = tmp_path / "turno.csv", tmp_path / "turno.pdf"
    argv = ["shift", "report", "--data", str(data), "--csv", str(csv_file)]
    assert main([*argv, "--pdf", str(pdf_file), "--lang", "es"]) == 0
    rows = list(csv.reader(io.StringIO(csv_file.read_text(encoding="utf-8"))))
    head, first, second = rows
    assert head[:2] == [tr("shift.line.shift", "es"), tr("shift.line.started", "es")]
    assert tr("shift.line.difference", "es") in head and "difference" not in head
    line = dict(zip(head, first, strict=True))
    assert line[tr("shift.line.float", "es")] == "5000"
    assert line[tr("shift.line.fills", "es")] == "1000"
    assert line[tr("shift.line.difference", "es")] == "-25"
    assert line[tr("shift.line.started", "es")] == local_text(START, ZONE)
    assert line[tr("shift.line.started", "es")].endswith("-05")
    assert line[tr("shift.line.staff", "es")] == " + ".join(PIT)
    counted = int(line[tr("shift.line.counted", "es")])
    assert int(line[tr("shift.line.expected", "es")]) == counted + 25
    later = dict(zip(head, second, strict=True))
    assert later[tr("shift.line.opening", "es")] == str(counted)
    assert later[tr("shift.line.counted", "es")] == ""  # the open shift: not counted yet
    pdf = pdf_file.read_bytes()
    assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF")
    text = _pdf_text(pdf)
    for key in ("shift.line.drop", "shift.line.rake", "shift.line.difference"):
        assert tr(key, "es") in text, key
    assert tr("shift.title", "es", table="mesa-7") in text
    assert "-25" in text and "Difference" not in text and "Rake" not in text
    assert capsys.readouterr().out == ""  # the CSV went to its file


def test_csv_to_standard_output_in_english(
    data: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["shift", "report", "--data", str(data), "--lang", "en", "--zone", "UTC"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert rows[0] == [
        tr(f"shift.line.{n}", "en") for n in ("shift", "started", "ended", "hands", *LINES, "staff")
    ]
    assert rows[1][1].endswith("UTC")


def test_a_folder_without_a_journal_is_one_sentence(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["shift", "report", "--data", str(tmp_path), "--lang", "es"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == "pokertable shift: " + tr("cli.shift.no_journal", "es", path=str(tmp_path))
    assert "Traceback" not in err and not list(tmp_path.iterdir())  # nothing was created


def test_a_shift_across_a_rotated_journal_is_one_shift(tmp_path: pathlib.Path) -> None:
    """The journal rotated mid-shift (archived beside the new one, which starts from a
    snapshot): the report reads the archive, then the new file, as one shift."""
    from firmware.cli.shift import journal_files, read_report
    from firmware.service.retention import rotate_journal

    journal = Journal(str(tmp_path / "journal.sqlite"))
    soak = Soak("casino-cash", seed=8, incident_rate=0.0, journal=journal, stakes=STAKES)
    assert soak._apply(te.BankOpen(3000, PIT))
    for _ in range(8):
        soak.play_hand()
    assert soak.journal is not None
    soak.journal = rotate_journal(soak.journal, soak.table, keep=4)
    assert soak._apply(te.BankFill(500, PIT))
    for _ in range(8):
        soak.play_hand()
    expected = expected_on_table(soak.table.bank, soak.table.seating)
    assert soak._apply(te.ShiftCount(expected, expected, PIT))
    soak.journal.close()
    assert [pathlib.Path(p).name for p in journal_files(str(tmp_path))] == [
        "journal-to-hand-00000008.sqlite",
        "journal.sqlite",
    ]
    [shift] = read_report(str(tmp_path)).shifts
    assert (shift.float, shift.fills, shift.hands) == (3000, 500, 16)
    assert shift.rake == soak.raked and shift.drop == soak.result.chips_in
    assert shift.difference == 0 and shift.agrees
