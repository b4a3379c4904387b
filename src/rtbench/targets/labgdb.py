"""A labgrid place of a board rtbench loads through a GDB server (the
STM32F4): the place's resources name the server and the board's serial
port, and the place is then run exactly as `--gdb HOST:PORT --serial
DEVICE` runs a board on the desk (gdbboard.py): the same loader, the same
pyserial reader, the same figures.

labgrid has no resource class for a GDB server; its NetworkService
(labgrid.resource.networkservice: address and port, published by
labgrid-exporter as any other resource) is the one that carries a host
and port, so the lab publishes the probe's GDB server (OpenOCD, pyOCD,
J-Link's, st-util: docs/labgrid.md) as a NetworkService, named `gdb` when
the place has several; its username is not used. The console is the
place's NetworkSerialPort (ser2net in front of the ST-LINK's virtual COM
port; `raw` is read as socket://, `rfc2217` as rfc2217://) or, in a local
environment, a USBSerialPort or RawSerialPort (its device).
"""

from __future__ import annotations

from rtbench.errors import RtbenchError

GDB_RESOURCE = "gdb"  # the NetworkService's name when a place has more than one


def gdb_address(lg) -> str | None:
    """HOST:PORT of the place's GDB server, or None when it publishes none."""
    services = _resources(lg, "NetworkService")
    if not services:
        return None
    named = [r for r in services if r.name == GDB_RESOURCE]
    if len(services) > 1 and len(named) != 1:
        raise RtbenchError(f"the place publishes {len(services)} NetworkServices: name its GDB "
                           f"server's `{GDB_RESOURCE}`")
    svc = (named or services)[0]
    host = svc.address if ":" not in svc.address else f"[{svc.address}]"
    return f"{host}:{svc.port}"


def serial_url(lg) -> str:
    """The board's console as a pyserial URL."""
    for res in _resources(lg, "NetworkSerialPort"):
        scheme = "socket" if res.protocol == "raw" else res.protocol
        return f"{scheme}://{res.host}:{res.port}"
    for cls in ("USBSerialPort", "RawSerialPort"):
        for res in _resources(lg, cls):
            if res.port:
                return res.port
    raise RtbenchError("a place loaded through its GDB server needs its board's serial port "
                       "(a NetworkSerialPort, USBSerialPort or RawSerialPort resource)")


def _resources(lg, cls: str) -> list:
    from labgrid.factory import target_factory

    kind = target_factory.class_from_string(cls)
    return [r for r in lg.resources if isinstance(r, kind)]
