"""The kernel profile a board image was built in, as its own records say:
the session's target facts carry `profile`, `profile_means` and, per
setting of the profile, `setting:NAME` (the value the kernel was compiled
with), `setting:NAME:why` and `setting:NAME:source`
(harness/profiles/rtb_profile.py writes them into the image; docs/profiles.md).
The sheets and comparisons read them here, never from the profile data of
the rtbench that renders them: a stored run says what it was.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SETTING = "setting:"
PROFILE = "profile"
MEANS = "profile_means"
CONFIG = "kernel_config"  # the engineer's own fragment on top (--kernel-config), when given
KEYS = (PROFILE, MEANS, CONFIG)  # facts of the profile itself, not of one setting
SHIPPED = "as the vendor ships it: "  # how a stated (not set) setting's reason begins
USER = "the engineer's own (--kernel-config): "  # how an engineer's setting's reason begins


@dataclass(frozen=True)
class Setting:
    name: str
    value: str   # as compiled: "1", "defined", "y"
    why: str     # its kind in words, then the reason
    source: str  # "file:line; https://..."

    @property
    def is_user(self) -> bool:
        """The engineer's own, on top of the profile (--kernel-config)."""
        return self.why.startswith(USER)

    @property
    def is_set(self) -> bool:
        """Set by rtbench (else stated: the vendor's value, left alone)."""
        return not self.why.startswith(SHIPPED)


def is_profile_key(key: str) -> bool:
    """A fact of the profile (its name, its meaning, a setting)."""
    return key in KEYS or key.startswith(SETTING)


def name(facts: dict[str, Any]) -> str:
    return str(facts.get(PROFILE, ""))


def means(facts: dict[str, Any]) -> str:
    return str(facts.get(MEANS, ""))


def config(facts: dict[str, Any]) -> str:
    """The engineer's fragment in words ("fr.h: 2 setting(s) on top of the
    speed profile"), or "" for an image built at its profile alone."""
    return str(facts.get(CONFIG, ""))


def differences(facts: dict[str, Any]) -> list[str]:
    """The engineer's settings as differences from rtbench's rule:
    "configUSE_TRACE_FACILITY=1 (replaces the vendor's '0')"."""
    return [f"{s.name}={s.value} ({s.why[len(USER):]})" for s in settings(facts) if s.is_user]


def settings(facts: dict[str, Any]) -> list[Setting]:
    """The profile's settings, in the image's order."""
    out = []
    for key, value in facts.items():
        if not key.startswith(SETTING):
            continue
        setting = key[len(SETTING):]
        if setting.endswith((":why", ":source")):
            continue
        out.append(Setting(setting, str(value), str(facts.get(f"{key}:why", "")),
                           str(facts.get(f"{key}:source", ""))))
    return out


def summary(facts: dict[str, Any]) -> str:
    """The settings rtbench sets, NAME=VALUE, and how many are stated as shipped."""
    found = settings(facts)
    set_ = [f"{s.name}={s.value}" for s in found if s.is_set]
    stated = len(found) - len(set_)
    return "; ".join(set_) + (f" (and {stated} stated as shipped)" if stated else "")
