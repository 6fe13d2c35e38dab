"""What an idle table writes: journal records, bytes and write calls per idle hour.

Starts the real ``pokertable serve`` on a fully electronic table (virtual
shoe, a socket, no screen connected), lets it stand idle, and counts what it
wrote to its data folder: journal records, the folder's bytes, and the
process's write calls and written bytes (``/proc/PID/io``). The figures are
scaled to one hour.

    .venv/bin/python bench/bench_idle.py --seconds 300
    .venv/bin/python bench/bench_idle.py --seconds 300 --src /path/to/other/checkout
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sqlite3
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


def folder_bytes(path: pathlib.Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def journal_records(path: pathlib.Path) -> int:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT COUNT(*) FROM events").fetchone()[0])
    finally:
        db.close()


def io_counters(pid: int) -> dict[str, int]:
    fields = {}
    for line in pathlib.Path(f"/proc/{pid}/io").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = int(value)
    return fields


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--src", default=str(ROOT), help="checkout whose firmware runs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        folder = pathlib.Path(work)
        config = folder / "table.toml"
        config.write_text(
            '[table]\nprofile = "casino-cash"\n'
            f'[server]\nsocket = "{folder / "table.sock"}"\n'
            '[terminals]\nconsole = "a-secret-of-sixteen-characters"\n'
            '[devices.shoe]\nkind = "shoe"\nbackend = "virtual"\n'
        )
        data = folder / "data"
        env = dict(os.environ, PYTHONPATH=args.src)
        code = "from firmware.cli.main import main; raise SystemExit(main())"
        command = [sys.executable, "-c", code, "serve", "--config", str(config)]
        process = subprocess.Popen(  # cwd: not this checkout, so --src is what runs
            [*command, "--data", str(data)], env=env, stderr=subprocess.DEVNULL, cwd=folder
        )
        try:
            journal = data / "journal.sqlite"
            while not (folder / "table.sock").exists():  # started and listening
                if process.poll() is not None:
                    raise SystemExit("serve stopped at start")
                time.sleep(0.1)
            time.sleep(2.0)  # past the start-up writes
            records, size = journal_records(journal), folder_bytes(data)
            io = io_counters(process.pid)
            time.sleep(args.seconds)
            records2, size2 = journal_records(journal), folder_bytes(data)
            io2 = io_counters(process.pid)
        finally:
            process.terminate()
            process.wait(30)
    scale = 3600.0 / args.seconds
    print(f"idle {args.seconds:.0f} s, firmware from {args.src}; per idle hour:")
    print(f"  (before: {records} journal records, {size} bytes in the data folder)")
    print(f"  journal records      {(records2 - records) * scale:10.0f}")
    print(f"  data folder growth   {(size2 - size) * scale:10.0f} bytes")
    print(f"  write calls          {(io2['syscw'] - io['syscw']) * scale:10.0f}")
    print(f"  bytes written        {(io2['wchar'] - io['wchar']) * scale:10.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
