"""A fake I2C bus holding MCP23017 register files, for the expander driver's tests.

Only the bus is simulated: :class:`drivers.mcp23017.ExpanderButtons` runs
unchanged on top of it. Each chip keeps its registers (directions, pull-ups,
output latches); :meth:`FakeI2CBus.set_input` moves a pin's level as a button
would (low while pressed), and :attr:`FakeI2CBus.fail` makes every transfer
raise ``OSError`` like a pulled cable.
"""

from __future__ import annotations

import errno

IODIRA, IODIRB, GPPUA, GPPUB, GPIOA, GPIOB, OLATA, OLATB = (
    0x00,
    0x01,
    0x0C,
    0x0D,
    0x12,
    0x13,
    0x14,
    0x15,
)


class FakeMcp23017:
    """The registers of one chip (IOCON.BANK = 0) and the levels outside its pins."""

    def __init__(self) -> None:
        self.registers = dict.fromkeys(range(0x16), 0)
        self.registers[IODIRA] = self.registers[IODIRB] = 0xFF  # reset: all inputs
        self.outside = 0xFFFF
        """Level each pin is driven to from outside (buttons released: pulled high)."""

    def levels(self) -> int:
        """What GPIOA/B read: outputs show their latch, inputs the outside level."""
        directions = self.registers[IODIRA] | self.registers[IODIRB] << 8
        latch = self.registers[OLATA] | self.registers[OLATB] << 8
        return (self.outside & directions) | (latch & ~directions & 0xFFFF)

    def read(self, register: int) -> int:
        if register in (GPIOA, GPIOB):
            levels = self.levels()
            return levels & 0xFF if register == GPIOA else levels >> 8
        return self.registers[register]

    def write(self, register: int, value: int) -> None:
        if register in (GPIOA, GPIOB):  # writing GPIO writes the latch
            register += OLATA - GPIOA
        self.registers[register] = value & 0xFF


class FakeI2CBus:
    """The subset of ``smbus2.SMBus`` the driver uses, over fake chips by address."""

    def __init__(self, chips: dict[int, FakeMcp23017] | None = None) -> None:
        self.chips = chips if chips is not None else {0x20: FakeMcp23017()}
        self.fail = False
        self.closed = False
        self.transfers = 0

    def _chip(self, address: int) -> FakeMcp23017:
        self.transfers += 1
        if self.fail or self.closed or address not in self.chips:
            raise OSError(errno.EREMOTEIO, "Remote I/O error")
        return self.chips[address]

    def read_byte_data(self, i2c_addr: int, register: int) -> int:
        return self._chip(i2c_addr).read(register)

    def write_byte_data(self, i2c_addr: int, register: int, value: int) -> None:
        self._chip(i2c_addr).write(register, value)

    def read_i2c_block_data(self, i2c_addr: int, register: int, length: int) -> list[int]:
        chip = self._chip(i2c_addr)
        return [chip.read(register + i) for i in range(length)]

    def close(self) -> None:
        self.closed = True

    def set_input(self, address: int, pin: str, high: bool) -> None:
        """Drive pin ``A0``..``B7`` of a chip high or low from outside."""
        bit = (0 if pin[0] == "A" else 8) + int(pin[1])
        chip = self.chips[address]
        chip.outside = chip.outside | (1 << bit) if high else chip.outside & ~(1 << bit)

    def latch_pin(self, address: int, pin: str) -> bool:
        """Whether an output pin of a chip is driven high."""
        bit = (0 if pin[0] == "A" else 8) + int(pin[1])
        return bool(self.chips[address].levels() >> bit & 1)
