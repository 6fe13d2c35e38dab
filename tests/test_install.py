"""Deployment on the Pi: what ``systemd/install.sh`` leaves behind, and the units' sandboxing.

``install.sh --root DIR`` runs the real script on a temporary root (users
created in DIR's own /etc files, no packages, no virtual environment); the
tests then read every file's owner and mode and check who may read what: the
screens' users must not reach the configuration, another terminal's secret or
the journal (issue 11, item 3). ``systemd-analyze security --offline=yes``
rates every unit; above :data:`THRESHOLD` fails (item 8). The full install
on an emulated arm64 Pi is ``systemd/check-emulated-pi.sh`` (not in this suite).
"""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
INSTALL = ROOT / "systemd" / "install.sh"
UNITS = sorted((ROOT / "systemd").glob("*.service"))
THRESHOLD = 3.0
"""The highest ``systemd-analyze security`` exposure a unit may have (3.0 is "OK")."""


def _runner() -> list[str]:
    if os.geteuid() == 0:
        return []
    if shutil.which("fakeroot"):
        return ["fakeroot"]
    pytest.skip("install.sh needs root or fakeroot to create users on a test root")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[pathlib.Path]:
    """A test root after ``install.sh --root ROOT --seats 3``."""
    root = tmp_path_factory.mktemp("piroot")
    etc = root / "etc"
    etc.mkdir()
    (etc / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    (etc / "group").write_text("root:x:0:\n")
    (etc / "shadow").write_text("root:*:19000:0:99999:7:::\n")
    (etc / "gshadow").write_text("root:*::\n")
    listing = root.parent / f"{root.name}.listing"
    script = (
        f'bash "{INSTALL}" --root "{root}" --seats 3 && '
        f'find "{root}" -printf \'%m %U %G %p\\n\' > "{listing}"'
    )
    result = subprocess.run(
        [*_runner(), "bash", "-c", script],
        capture_output=True,
        text=True,
        check=False,
        env=dict(os.environ, PATH=f"{pathlib.Path(sys.executable).parent}:{os.environ['PATH']}"),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    yield root


class Account:
    """A user of the test root: uid and every group it is in."""

    def __init__(self, root: pathlib.Path, name: str) -> None:
        passwd = {
            line.split(":")[0]: line.split(":")
            for line in (root / "etc" / "passwd").read_text().splitlines()
        }
        self.name = name
        self.uid = int(passwd[name][2])
        self.primary = int(passwd[name][3])
        self.gids = {self.primary}
        for line in (root / "etc" / "group").read_text().splitlines():
            _, _, gid, members = line.split(":")
            if name in members.split(","):
                self.gids.add(int(gid))


def listing(root: pathlib.Path) -> dict[str, tuple[int, int, int]]:
    """path (inside the root) -> (mode, uid, gid), as the install left them."""
    entries = {}
    for line in (root.parent / f"{root.name}.listing").read_text().splitlines():
        mode, uid, gid, path = line.split(" ", 3)
        entries["/" + os.path.relpath(path, root)] = (int(mode, 8), int(uid), int(gid))
    return entries


def may(account: Account, entry: tuple[int, int, int], bit: int) -> bool:
    """Whether ``account`` has permission ``bit`` (4 read, 1 search) on a file."""
    mode, uid, gid = entry
    if account.uid == uid:
        return bool(mode & (bit << 6))
    if gid in account.gids:
        return bool(mode & (bit << 3))
    return bool(mode & bit)


def can_read(root: pathlib.Path, account: Account, path: str) -> bool:
    """Read access through every folder on the way (search) and on the file itself."""
    files = listing(root)
    parts = pathlib.PurePosixPath(path).parts
    for depth in range(2, len(parts)):
        folder = "/" + "/".join(parts[1:depth])
        if folder in files and not may(account, files[folder], 1):
            return False
    return may(account, files[path], 4)


def test_install_sh_gives_every_file_its_owner_and_mode(installed: pathlib.Path) -> None:
    files = listing(installed)
    controller = Account(installed, "pokertable")
    group = controller.primary  # the controller's own group
    assert files["/etc/pokertable"] == (0o750, 0, group)
    assert files["/etc/pokertable/table.toml"] == (0o640, 0, group)
    assert files["/etc/pokertable-terminals"] == (0o711, 0, 0)
    for terminal in ("console", "seat1", "seat2", "seat3"):
        screen = Account(installed, f"pokertable-{terminal}")
        secret = files[f"/etc/pokertable-terminals/{terminal}.secret"]
        assert secret == (0o440, 0, screen.primary)  # root's file, the terminal's group
    assert files["/var/lib/pokertable"] == (0o700, controller.uid, group)
    # The journal's seal key: root's alone, outside the data folder (issue 27, item 5);
    # the unit hands the controller a copy, which it cannot change.
    assert files["/etc/pokertable/seal"] == (0o700, 0, 0)
    assert files["/etc/pokertable/seal/journal.key"] == (0o600, 0, 0)
    assert (installed / "etc/pokertable/seal/journal.key").stat().st_size == 32
    assert not can_read(installed, controller, "/etc/pokertable/seal/journal.key")
    unit_text = (installed / "etc/systemd/system/pokertable.service").read_text()
    assert "LoadCredential=journal.key:/etc/pokertable/seal/journal.key" in unit_text
    for unit in ("pokertable.service", "pokertable-console.service", "pokertable-seat@.service"):
        assert files[f"/etc/systemd/system/{unit}"][:2] == (0o644, 0)
    enabled = installed / "etc/systemd/system/multi-user.target.wants"
    assert sorted(p.name for p in enabled.iterdir()) == [
        "pokertable-console.service",
        "pokertable-seat@1.service",
        "pokertable-seat@2.service",
        "pokertable-seat@3.service",
        "pokertable.service",
    ]


def test_the_controller_reads_the_configuration_and_every_secret(installed: pathlib.Path) -> None:
    controller = Account(installed, "pokertable")
    secrets = [p for p in listing(installed) if p.startswith("/etc/pokertable-terminals/")]
    assert len(secrets) == 4
    for path in ("/etc/pokertable/table.toml", *secrets):
        assert can_read(installed, controller, path), path


@pytest.mark.parametrize("terminal", ["console", "seat1", "seat3"])
def test_a_screen_user_reads_neither_the_configuration_nor_secrets_nor_the_journal(
    installed: pathlib.Path, terminal: str
) -> None:
    screen = Account(installed, f"pokertable-{terminal}")
    controller = Account(installed, "pokertable")
    assert screen.uid != controller.uid
    assert not (screen.gids & {controller.primary}), "a screen is in the controller's group"
    files = listing(installed)
    own = f"/etc/pokertable-terminals/{terminal}.secret"
    assert can_read(installed, screen, own), f"{screen.name} cannot read its own secret"
    for path in [
        "/etc/pokertable/table.toml",
        *(p for p in files if p.startswith("/etc/pokertable-terminals/") and p != own),
    ]:
        assert not can_read(installed, screen, path), f"{screen.name} can read {path}"
    assert not may(screen, files["/var/lib/pokertable"], 1), "a screen can enter the data folder"


def test_install_sh_configuration_passes_config_check(installed: pathlib.Path) -> None:
    text = (installed / "etc/pokertable/table.toml").read_text()
    # The file names the credential files where they will be on the Pi; here they
    # are under the test root.
    moved = text.replace('"/etc/pokertable-terminals/', f'"{installed}/etc/pokertable-terminals/')
    checked = installed.parent / "table-here.toml"
    checked.write_text(moved)
    result = subprocess.run(
        [sys.executable, "-m", "firmware.cli.main", "config", "check", str(checked)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert 'socket = "/run/pokertable/table.sock"' in text
    assert 'socket_group = "pokertable-screens"' in text


def test_install_sh_refuses_a_bad_seat_count() -> None:
    result = subprocess.run(
        ["bash", str(INSTALL), "--seats", "12"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 2 and "at most 10 seats" in result.stderr


def _exposure(unit: pathlib.Path) -> float:
    result = subprocess.run(
        ["systemd-analyze", "security", "--offline=yes", "--no-pager", str(unit)],
        capture_output=True,
        text=True,
        check=False,
    )
    found = re.search(r"Overall exposure level for \S+: ([0-9.]+)", result.stdout + result.stderr)
    assert found, result.stdout + result.stderr
    return float(found.group(1))


def _analyze_offline() -> bool:
    if shutil.which("systemd-analyze") is None:
        return False
    version = subprocess.run(
        ["systemd-analyze", "--version"], capture_output=True, text=True, check=False
    ).stdout
    found = re.search(r"systemd (\d+)", version)
    return found is not None and int(found.group(1)) >= 250  # --offline= came in 250


@pytest.mark.skipif(not _analyze_offline(), reason="needs systemd-analyze 250 or later")
@pytest.mark.parametrize("unit", UNITS, ids=[u.name for u in UNITS])
def test_every_unit_is_rated_ok_by_systemd_analyze_security(unit: pathlib.Path) -> None:
    assert _exposure(unit) <= THRESHOLD


@pytest.mark.skipif(not _analyze_offline(), reason="needs systemd-analyze 250 or later")
def test_the_security_check_fails_an_unhardened_unit(tmp_path: pathlib.Path) -> None:
    # The same check on the controller's unit without its sandboxing must fail:
    # the threshold means something.
    bare = tmp_path / "pokertable.service"
    keep = ("[", "Description", "ExecStart", "User", "Group", "Type")
    lines = (ROOT / "systemd" / "pokertable.service").read_text().splitlines()
    bare.write_text("\n".join(line for line in lines if line.startswith(keep)) + "\n")
    assert _exposure(bare) > THRESHOLD


def _settings(unit: str) -> dict[str, list[str]]:
    settings: dict[str, list[str]] = {}
    for line in (ROOT / "systemd" / unit).read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            key, _, value = line.partition("=")
            settings.setdefault(key, []).append(value)
    return settings


@pytest.mark.parametrize(
    ("unit", "secret"),
    [
        ("pokertable-seat@.service", "/etc/pokertable-terminals/seat%i.secret"),
        ("pokertable-console.service", "/etc/pokertable-terminals/console.secret"),
    ],
)
def test_a_screen_unit_gets_only_its_own_secret_and_no_data(unit: str, secret: str) -> None:
    s = _settings(unit)
    assert f"--secret-file {secret}" in s["ExecStart"][0]
    assert s["User"][0].startswith("pokertable-") and s["User"] != ["pokertable"]
    assert "--config" not in s["ExecStart"][0]  # it never reads table.toml
    hidden = s["InaccessiblePaths"][0].split()
    assert "-/var/lib/pokertable" in hidden and "-/etc/pokertable" in hidden
    assert s["DeviceAllow"] == ["char-drm rw", "char-input rw"]
    assert s["RestartPreventExitStatus"] == ["78"]


def test_the_controller_unit_keeps_its_hardware_and_stops_on_a_bad_configuration() -> None:
    s = _settings("pokertable.service")
    allowed = {line.split()[0] for line in s["DeviceAllow"]}
    assert {"char-ttyUSB", "char-gpiochip", "char-i2c"} <= allowed
    assert "dialout" in s["SupplementaryGroups"][0] and "gpio" in s["SupplementaryGroups"][0]
    assert s["StateDirectoryMode"] == ["0700"] and s["UMask"] == ["0077"]
    assert s["RestartPreventExitStatus"] == ["78"]
    assert "AF_UNIX" in s["RestrictAddressFamilies"][0]  # pcscd and the screens


def test_secret_files_and_data_folder_modes_are_not_world_readable(
    installed: pathlib.Path,
) -> None:
    for path, (mode, _, _) in listing(installed).items():
        if path.startswith(("/etc/pokertable", "/var/lib/pokertable")) and path != (
            "/etc/pokertable-terminals"  # 0711: it can be crossed, not listed
        ):
            assert not mode & stat.S_IROTH, path
