"""The labgrid side of a place: the environment file, the coordinator, and
acquiring and releasing a place (rtbench as a labgrid client).

Every error is an RtbenchError of one line (the CLI's exit 2): labgrid not
installed, an unreadable environment file, a coordinator that does not
answer, a place that does not exist or that someone else holds.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from rtbench.errors import RtbenchError

# Every child rtbench starts while a labgrid session is open (a farm's places,
# QEMU, an image build) execs at once and needs nothing of gRPC. gRPC's fork
# handlers, on by default in grpcio, restart its pollers in the child; Popen then
# closes their descriptors before exec and the child aborts ("epoll_wait error:
# Bad file descriptor", SIGABRT) about once in a hundred starts. gRPC reads this
# when it loads, so it is set before anything imports labgrid.remote.
os.environ["GRPC_ENABLE_FORK_SUPPORT"] = "false"

DEFAULT_COORDINATOR = "127.0.0.1:20408"  # labgrid's default (LG_COORDINATOR)
INSTALL = "pip install rtbench[labgrid]"


def require_labgrid() -> None:
    try:
        import labgrid  # noqa: F401
    except ImportError as exc:
        raise RtbenchError(f"--target labgrid needs labgrid, which is not installed: {INSTALL}") \
            from exc
    # labgrid reports through the root logger; Python's last-resort handler
    # would print those lines beside rtbench's own one-line errors.
    root = logging.getLogger()
    if not root.handlers:
        root.addHandler(logging.NullHandler())


def load_environment(path: Path, place: str | None = None):
    """labgrid's Environment for `path`. LG_PLACE is the place while the file
    is read, so one target can serve every place (`!template $LG_PLACE`)."""
    from labgrid import Environment

    if not path.is_file():
        raise RtbenchError(f"--env {path}: no such labgrid environment file")
    saved = os.environ.get("LG_PLACE")
    if place:
        os.environ["LG_PLACE"] = place
    try:
        return Environment(str(path))
    except Exception as exc:  # labgrid's config errors, YAML errors, a failing `imports:`
        raise RtbenchError(f"--env {path}: {one_line(exc)}") from exc
    finally:
        if saved is None:
            os.environ.pop("LG_PLACE", None)
        else:
            os.environ["LG_PLACE"] = saved


def coordinator_address(config) -> str:
    """As labgrid's own clients find it: the file's option, LG_COORDINATOR, the default."""
    return str(config.get_option("coordinator_address",
                                 os.environ.get("LG_COORDINATOR", DEFAULT_COORDINATOR)))


def remote_place_of(role_config: dict) -> str | None:
    """The place a target of the environment file stands for (its RemotePlace)."""
    from labgrid.factory import target_factory

    resources, _ = target_factory.normalize_config(role_config)
    names = list(resources.get("RemotePlace", {}))
    return names[0] if names else None


def pick_role(env, path: Path, place: str | None) -> tuple[str, str | None]:
    """(the environment's target to use, the coordinator's place or None for a
    target without one, e.g. a local QEMUDriver)."""
    roles = env.config.get_targets()
    if not roles:
        raise RtbenchError(f"--env {path} defines no targets")
    by_place = {remote_place_of(cfg or {}): role for role, cfg in roles.items()}
    if place:
        if place in by_place:
            return by_place[place], place
        if place in roles and remote_place_of(roles[place] or {}) is None:
            return place, None
        raise RtbenchError(f"--env {path} has no target for place {place} (a target whose "
                           f"RemotePlace is named {place})")
    if len(roles) > 1:
        raise RtbenchError(f"--env {path} defines several targets ({', '.join(roles)}): "
                           "choose one with --place")
    role = next(iter(roles))
    return role, remote_place_of(roles[role] or {})


class Coordinator:
    """A client session with the labgrid coordinator."""

    def __init__(self, address: str, env=None):
        from labgrid.remote.client import start_session

        self.address = address
        try:
            self.session = start_session(address, extra={"env": env} if env else None)
        except Exception as exc:
            raise RtbenchError(f"cannot reach the labgrid coordinator at {address}: "
                               f"{one_line(exc)}") from exc
        self.loop = self.session.loop
        self.acquired: str | None = None

    @property
    def me(self) -> str:
        return f"{self.session.gethostname()}/{self.session.getuser()}"

    def places(self) -> dict[str, Any]:
        return dict(self.session.places)

    def place(self, name: str):
        place = self.session.places.get(name)
        if place is None:
            known = ", ".join(sorted(self.session.places)) or "none"
            raise RtbenchError(f"no place {name} on the labgrid coordinator at {self.address} "
                               f"(places: {known})")
        return place

    def with_tag(self, key: str, value: str) -> list[str]:
        return sorted(n for n, p in self.session.places.items() if p.tags.get(key) == value)

    def acquire(self, name: str):
        """Acquire the place for this host and user; busy or missing: one line."""
        import grpc
        from labgrid.remote.generated import labgrid_coordinator_pb2 as pb2

        place = self.place(name)
        if place.acquired:
            mine = " (by you: labgrid-client -p {0} release)".format(name) \
                if place.acquired == self.me else ""
            raise RtbenchError(f"place {name} is busy: acquired by {place.acquired}{mine}")
        try:
            self.session.check_matches(place)
        except Exception as exc:
            raise RtbenchError(f"place {name}: {one_line(exc)} (is its exporter running?)") \
                from exc
        try:
            self.loop.run_until_complete(
                self.session.stub.AcquirePlace(pb2.AcquirePlaceRequest(placename=name)))
            self.loop.run_until_complete(self.session.sync_with_coordinator())
        except grpc.aio.AioRpcError as exc:
            raise RtbenchError(f"place {name} could not be acquired: {exc.details()}") from exc
        self.acquired = name
        return self.session.places[name]

    def attach(self) -> None:
        """Let labgrid's RemotePlace resources use this session (what
        labgrid-client does before it builds a place's target)."""
        from labgrid.resource.remote import RemotePlaceManager

        manager = RemotePlaceManager.get()
        manager.session, manager.loop = self.session, self.loop

    def release(self) -> str:
        """Release what this session acquired; "" or why it could not."""
        if not self.acquired:
            return ""
        from labgrid.remote.generated import labgrid_coordinator_pb2 as pb2

        name, self.acquired = self.acquired, None
        try:
            self.loop.run_until_complete(
                self.session.stub.ReleasePlace(pb2.ReleasePlaceRequest(placename=name)))
            self.loop.run_until_complete(self.session.sync_with_coordinator())
        except Exception as exc:
            return f"place {name} could not be released: {one_line(exc)}"
        return ""

    def close(self, target=None) -> None:
        """End the session; forget it (and `target`'s resources) in labgrid's
        process-wide RemotePlace manager, so a later run starts clean."""
        from labgrid.resource.remote import RemotePlaceManager

        manager = RemotePlaceManager.get()
        if manager.session is self.session:
            manager.session = manager.loop = None
        if target is not None:
            manager.resources = [r for r in manager.resources if r.target is not target]
            manager.unmanaged_resources = [r for r in manager.unmanaged_resources
                                           if r.target is not target]
        try:
            self.loop.run_until_complete(self.session.stop())
            self.loop.run_until_complete(self.session.close())
        except Exception:  # the coordinator may be gone already
            pass


def one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text.removeprefix("Error: ")
