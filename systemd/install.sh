#!/usr/bin/env bash
# Install the table firmware on Raspberry Pi OS (Bookworm) as services.
# Run as root from a checkout: sudo bash systemd/install.sh [SEATS]
# Creates the pokertable user, a virtual environment under /opt/pokertable,
# the configuration under /etc/pokertable/ and the data directory under
# /var/lib/pokertable, then installs and enables the units.
set -euo pipefail
if [ "$(id -u)" -ne 0 ]; then
    echo "Run this script as root (sudo bash systemd/install.sh)." >&2
    exit 1
fi
SEATS="${1:-0}"
SRC="$(cd "$(dirname "$0")/.." && pwd)"

apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    python3-venv python3-dev gcc libpcsclite-dev pcscd

id pokertable >/dev/null 2>&1 || useradd --system --home /var/lib/pokertable \
    --shell /usr/sbin/nologin --groups dialout,gpio,video,input pokertable

install -d -o root -g root /opt/pokertable
python3 -m venv /opt/pokertable/venv
/opt/pokertable/venv/bin/pip install --upgrade pip
# The rules engine's hot modules are compiled with mypyc (about twice as fast;
# see setup.py and docs/benchmarks.md "Engine"); the pure-Python modules behave
# identically, so if compiling fails the table still runs, only slower.
/opt/pokertable/venv/bin/pip install "mypy>=1.10" setuptools
if ! POKERTABLE_MYPYC=1 /opt/pokertable/venv/bin/pip install --no-build-isolation "$SRC[hardware]"; then
    echo "WARNING: compiling the engine failed; installing the pure-Python engine" \
        "(same behaviour, about half the speed)." >&2
    /opt/pokertable/venv/bin/pip install "$SRC[hardware]"
fi
cp "$SRC/README.md" /opt/pokertable/README.md

install -d -o root -g pokertable -m 0750 /etc/pokertable
if [ ! -f /etc/pokertable/table.toml ]; then
    install -o root -g pokertable -m 0640 "$SRC/firmware/table/profiles/casino-cash.toml" \
        /etc/pokertable/table.toml
    echo "Edit /etc/pokertable/table.toml: profile, stakes and [devices]."
fi
install -d -o pokertable -g pokertable -m 0750 /var/lib/pokertable

install -m 0644 "$SRC"/systemd/*.service /etc/systemd/system/
install -m 0644 "$SRC/systemd/99-pokertable.rules" /etc/udev/rules.d/
udevadm control --reload-rules || true
systemctl daemon-reload
systemctl enable pokertable.service pokertable-console.service
for seat in $(seq 1 "$SEATS"); do
    systemctl enable "pokertable-seat@${seat}.service"
done
echo "Installed. Start with: systemctl start pokertable.service"
