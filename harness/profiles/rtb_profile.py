#!/usr/bin/env python3
"""A kernel's profile, from data to what its build applies.

    rtb_profile.py PORT_DIR PROFILE OUT_DIR [CONFIG_FILE CONFIG_NAME]

reads rules.toml (beside this file: the profiles and the rules every kernel
shares) and PORT_DIR/profiles.toml (the kernel's settings, each with its
profiles, value, reason and source), checks both, and writes into OUT_DIR:

  rtb_profile.h        (a C-configured kernel) a #define per setting rtbench
                       sets, each under #ifndef so that a variant image (a peer's
                       100 Hz tick) can set it first; only preprocessor lines,
                       so the kernel's assembly can include it
  rtb_profile.conf     (a Kconfig-configured kernel) a CONFIG_ line per setting
  rtb_profile_facts.h  RTB_PROFILE_FACTS: the profile and, per setting, the value
                       the kernel was compiled with (read back from the kernel's
                       own macros, not copied from the data), why and its source:
                       the port's target facts, which every sheet prints
  rtb_profile.cmake    RTB_PROFILE, the -O levels and the flags, for the CMake build

CONFIG_FILE is the engineer's own configuration (`rtbench run
--kernel-config`): a fragment in the kernel's form (#define lines for a
C-configured kernel, CONFIG_ lines for Kconfig), applied on top of the
profile; each of its settings is reported like the profile's, its reason
saying what it replaced, its source CONFIG_NAME:line. A setting the harness
needs (kind harness) cannot be changed.

A file is rewritten only when its text changes. Bad data is one line on
stderr and exit 2. Python's standard library only (tomllib: 3.11); the
harness's CMake runs it, and rtbench imports it to read the same data.
"""

from __future__ import annotations

import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
RULES = HERE / "rules.toml"
FORMS = ("define", "kconfig")
# harness: the harness cannot run otherwise; rule: a rule of rules.toml;
# speed: the vendor's own speed setting; shipped: the vendor's value, not
# set by rtbench, stated because a reader compares it.
# user: the engineer's own (--kernel-config), on top of the profile.
KINDS = ("harness", "rule", "speed", "shipped", "user")
KIND_WORDS = {"harness": "needed by the harness", "rule": "rtbench's rule for every kernel",
              "speed": "the vendor's speed setting", "shipped": "as the vendor ships it",
              "user": "the engineer's own (--kernel-config)"}
CONFIG_FACT = "kernel_config"  # the facts' key naming the engineer's fragment
KCONFIG_TYPES = ("bool", "int", "string")
SOURCE_RE = re.compile(r"^(https://\S+|[\w./+-]+:\d+(-\d+)?)( .*)?$")


class ProfileError(Exception):
    """Bad profile data: one line."""


@dataclass(frozen=True)
class Setting:
    name: str          # the kernel's symbol: configTICK_RATE_HZ, TX_DISABLE_..., CONFIG_...
    profiles: tuple[str, ...]
    kind: str          # KINDS
    why: str
    sources: tuple[str, ...]  # "file:line[-line] [note]" in the kernel's tree, or a URL
    set: str | None = None    # what rtbench sets ("" = a bare #define); None: left as shipped
    shipped: str | None = None  # the vendor's value, where it is stated (checked against the build)
    rule: str = ""     # the rules.toml rule it meets
    type: str = ""     # Kconfig: bool, int or string; C: "flag" for a symbol defined or not
    probe: str = ""    # the symbol whose compiled value is reported, when not `name`
    applied_by: str = ""  # "port": the port's code passes it (no configuration symbol)

    @property
    def reported(self) -> str:
        return self.probe or self.name

    def words(self) -> str:
        """Why, with its kind in words (the facts' and the sheets' text)."""
        return f"{KIND_WORDS[self.kind]}: {self.why}"


@dataclass(frozen=True)
class Rules:
    profiles: dict[str, dict]   # name -> {"means", "opt"}: opt, the kernel's -O level
    default: str
    harness_opt: str            # rtbench's own code's -O level, in every profile
    cflags: tuple[str, ...]     # the common code-generation flags
    cflag_sources: dict[str, str]
    rules: dict[str, str]       # id -> says

    def flags(self, profile: str) -> list[str]:
        """The kernel's flags in `profile`: its -O level, then the common flags."""
        return [self.profiles[profile]["opt"], *self.cflags]

    def words(self, profile: str) -> str:
        """The flags in words, as an image's record says them."""
        return (f"{' '.join(self.cflags)}, the kernel at {self.profiles[profile]['opt']}, "
                f"rtbench's code at {self.harness_opt}")


@dataclass(frozen=True)
class KernelProfiles:
    kernel: str
    form: str
    checked_against: str
    settings: tuple[Setting, ...]

    def of(self, profile: str) -> list[Setting]:
        return [s for s in self.settings if profile in s.profiles]

    def with_user(self, profile: str, user: list[Setting]) -> "KernelProfiles":
        """The profile's settings with the engineer's on top (in the image's
        order: the profile's, a replaced one where it stood, then the new)."""
        mine = {s.name: s for s in user}
        kept = [mine.pop(s.name, s) for s in self.of(profile)]
        return KernelProfiles(self.kernel, self.form, self.checked_against,
                              tuple(kept + list(mine.values())))


def _toml(path: Path) -> dict:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise ProfileError(f"{path}: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"{path}: not TOML: {exc}") from exc


def _text(where: str, table: dict, key: str, required: bool = True) -> str:
    value = table.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise ProfileError(f"{where}: '{key}' must be a non-empty string")
    return value


def load_rules(path: Path = RULES) -> Rules:
    data = _toml(path)
    profiles = data.get("profile")
    if not isinstance(profiles, dict) or not profiles:
        raise ProfileError(f"{path}: no [profile.NAME] tables")
    for name, p in profiles.items():
        _text(f"{path}: profile {name}", p, "means")
        if not re.fullmatch(r"-O[0-3sgz]", _text(f"{path}: profile {name}", p, "opt")):
            raise ProfileError(f"{path}: profile {name}: opt must be a -O level")
    default = _text(str(path), data, "default")
    if default not in profiles:
        raise ProfileError(f"{path}: default '{default}' is not a profile")
    harness_opt = _text(str(path), data, "harness_opt")
    if not re.fullmatch(r"-O[0-3sgz]", harness_opt):
        raise ProfileError(f"{path}: harness_opt must be a -O level")
    cflags, sources = [], {}
    for i, c in enumerate(data.get("cflag") or []):
        flag = _text(f"{path}: cflag {i + 1}", c, "flag")
        sources[flag] = _text(f"{path}: cflag {flag}", c, "source")
        cflags.append(flag)
    rules = {}
    for i, r in enumerate(data.get("rule") or []):
        rules[_text(f"{path}: rule {i + 1}", r, "id")] = _text(f"{path}: rule {i + 1}", r, "says")
    if not cflags or not rules:
        raise ProfileError(f"{path}: needs [[cflag]] and [[rule]] entries")
    return Rules(profiles, default, harness_opt, tuple(cflags), sources, rules)


def load_kernel(port_dir: Path, rules: Rules) -> KernelProfiles:
    path = Path(port_dir) / "profiles.toml"
    data = _toml(path)
    kernel = _text(str(path), data, "kernel")
    form = _text(str(path), data, "form")
    if form not in FORMS:
        raise ProfileError(f"{path}: form must be one of {', '.join(FORMS)}, not '{form}'")
    settings, seen = [], set()
    for i, t in enumerate(data.get("setting") or []):
        s = _setting(f"{path}: setting {i + 1}", t, form, rules)
        for p in s.profiles:
            if (s.name, p) in seen:
                raise ProfileError(f"{path}: {s.name} is given twice for profile {p}")
            seen.add((s.name, p))
        settings.append(s)
    if not settings:
        raise ProfileError(f"{path}: no [[setting]] entries")
    return KernelProfiles(kernel, form, _text(str(path), data, "checked_against"),
                          tuple(settings))


def _setting(where: str, t: dict, form: str, rules: Rules) -> Setting:
    known = {"name", "profiles", "kind", "why", "source", "set", "shipped", "rule", "type",
             "probe", "applied_by"}
    extra = sorted(set(t) - known)
    if extra:
        raise ProfileError(f"{where}: unknown key(s) {', '.join(extra)}")
    name = _text(where, t, "name")
    where = f"{where} ({name})"
    profiles = t.get("profiles")
    if not isinstance(profiles, list) or not profiles or any(p not in rules.profiles
                                                             for p in profiles):
        raise ProfileError(f"{where}: profiles must list some of {', '.join(rules.profiles)}")
    kind = _text(where, t, "kind")
    if kind not in KINDS:
        raise ProfileError(f"{where}: kind must be one of {', '.join(KINDS)}")
    source = t.get("source")
    sources = [source] if isinstance(source, str) else source
    if not isinstance(sources, list) or not sources or not all(
            isinstance(s, str) and SOURCE_RE.match(s) for s in sources):
        raise ProfileError(f"{where}: source must be 'file:line' in the kernel's tree or an "
                           "https:// address (or a list of them)")
    value = t.get("set")
    if value is not None and not isinstance(value, str):
        raise ProfileError(f"{where}: set must be a string")
    if (kind == "shipped") != (value is None):
        raise ProfileError(f"{where}: " + ("a shipped setting is stated, not set"
                                           if kind == "shipped" else f"a {kind} setting needs set"))
    rule = _text(where, t, "rule", required=False)
    if rule and rule not in rules.rules:
        raise ProfileError(f"{where}: rule '{rule}' is not in rules.toml")
    if kind == "rule" and not rule:
        raise ProfileError(f"{where}: a rule setting names its rule")
    type_ = _text(where, t, "type", required=False)
    applied_by = _text(where, t, "applied_by", required=False)
    if applied_by not in ("", "port"):
        raise ProfileError(f"{where}: applied_by can only be 'port'")
    if form == "kconfig" and not applied_by:
        if not name.startswith("CONFIG_"):
            raise ProfileError(f"{where}: a Kconfig setting is named CONFIG_...")
        type_ = type_ or _kconfig_type(value if value is not None else t.get("shipped"))
        if type_ not in KCONFIG_TYPES:
            raise ProfileError(f"{where}: give its type ({', '.join(KCONFIG_TYPES)})")
    elif type_ not in ("", "flag"):
        raise ProfileError(f"{where}: type of a C setting can only be 'flag'")
    return Setting(name, tuple(profiles), kind, _text(where, t, "why"), tuple(sources), value,
                   _text(where, t, "shipped", required=False) or None, rule, type_,
                   _text(where, t, "probe", required=False), applied_by)


def _kconfig_type(value: str | None) -> str:
    if value in ("y", "n"):
        return "bool"
    if value is not None and re.fullmatch(r"-?(0x[0-9a-fA-F]+|\d+)", value):
        return "int"
    if value is not None and value.startswith('"'):
        return "string"
    return ""


# ---- the engineer's own configuration ----

_DEFINE_RE = re.compile(r"^#\s*define\s+([A-Za-z_]\w*)(?:\s+(.*?))?$")
_KCONFIG_RE = re.compile(r"^(CONFIG_\w+)=(.*)$")
_NOT_SET_RE = re.compile(r"^#\s*(CONFIG_\w+) is not set$")


def _uncomment(line: str) -> str:
    """A C line without its comments (// to the end, /* ... */ on the line)."""
    line = re.sub(r"/\*.*?\*/", " ", line)
    return line.split("//", 1)[0].strip()


def load_user(path: Path, name: str, k: KernelProfiles, profile: str) -> list[Setting]:
    """The settings of the engineer's fragment `path` (called `name` on
    every page), each with what it replaces; ProfileError (one line,
    naming the line) for anything else in the file."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ProfileError(f"{name}: {getattr(exc, 'strerror', None) or exc}") from exc
    profile_settings = {s.name: s for s in k.of(profile)}
    out: dict[str, Setting] = {}
    for n, raw in enumerate(text.splitlines(), 1):
        where = f"{name}:{n}"
        if k.form == "define":
            line = _uncomment(raw)
            if not line:
                continue
            m = _DEFINE_RE.match(line)
            if re.match(r"^#\s*define\s+\w+\(", line):
                raise ProfileError(f"{where}: a function-like macro is no setting rtbench can "
                                   "report (its value is code): leave it in your own build")
            if not m:
                raise ProfileError(f"{where}: not a #define (a {k.kernel} configuration "
                                   "fragment holds #define NAME VALUE lines)")
            sym, value = m.group(1), (m.group(2) or "").strip()
        else:
            line = raw.strip()
            if (m := _NOT_SET_RE.match(line)):
                sym, value = m.group(1), "n"
            elif not line or line.startswith("#"):
                continue
            elif (m := _KCONFIG_RE.match(line)):
                sym, value = m.group(1), m.group(2).strip()
            else:
                raise ProfileError(f"{where}: not a CONFIG_NAME=value line (a {k.kernel} "
                                   "Kconfig fragment)")
        if sym in out:
            raise ProfileError(f"{where}: {sym} is given twice")
        old = profile_settings.get(sym)
        if old is not None and old.kind == "harness":
            raise ProfileError(f"{where}: {sym} is {old.words()}; --kernel-config cannot "
                               "change it")
        if old is not None and old.applied_by:
            raise ProfileError(f"{where}: {sym} is applied by rtbench's port, not by a "
                               "configuration symbol")
        why = (f"replaces rtbench's {old.set!r} ({KIND_WORDS[old.kind]})" if old and old.set
               is not None else f"replaces the vendor's {old.shipped!r}" if old and old.shipped
               else "replaces the vendor's default" if old else
               "a setting rtbench's profile leaves as shipped")
        type_ = (_kconfig_type(value) or "string") if k.form == "kconfig" else (
            "flag" if value == "" else "")
        out[sym] = Setting(sym, (profile,), "user", why, (where,), value, None, "", type_,
                           old.probe if old else "")
    return list(out.values())


# ---- what a build applies ----

def _c(text: str) -> str:
    """A C string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def config_header(k: KernelProfiles, profile: str) -> str:
    lines = [f"/* Generated by rtb_profile.py: {k.kernel}, profile {profile} "
             f"(harness/ports/<kernel>/profiles.toml). Do not edit. */",
             "#ifndef RTB_PROFILE_H", "#define RTB_PROFILE_H"]
    for s in k.of(profile):
        if s.set is None or s.applied_by:
            continue
        lines += [f"#ifndef {s.name}", f"#define {s.name} {s.set}".rstrip(), "#endif"]
    return "\n".join(lines + ["#endif", ""])


def kconfig_fragment(k: KernelProfiles, profile: str) -> str:
    lines = [f"# Generated by rtb_profile.py: {k.kernel}, profile {profile} "
             "(harness/ports/zephyr/profiles.toml). Do not edit."]
    lines += [f"{s.name}={s.set}" for s in k.of(profile) if s.set is not None and not s.applied_by]
    return "\n".join(lines + [""])


def facts_header(k: KernelProfiles, profile: str, rules: Rules, config: str = "") -> str:
    """RTB_PROFILE_FACTS: pairs of strings for the port's facts array. Each
    setting's value is what the kernel was compiled with: its macro,
    stringified after the kernel's own headers have given it its default."""
    pre = ["/* Generated by rtb_profile.py. Do not edit. Include after the kernel's own "
           "headers. */", "#ifndef RTB_PROFILE_FACTS_H", "#define RTB_PROFILE_FACTS_H",
           "#define RTB_PROFILE_STR2(x) #x", "#define RTB_PROFILE_STR(x) RTB_PROFILE_STR2(x)"]
    facts = [(_c("profile"), _c(profile)),
             (_c("profile_means"), _c(rules.profiles[profile]["means"]))]
    if config:
        facts.append((_c(CONFIG_FACT), _c(config)))
    for i, s in enumerate(k.of(profile)):
        if s.applied_by:
            value = _c(s.set or "")
        elif k.form == "kconfig":
            value = {"bool": f'(IS_ENABLED({s.reported}) ? "y" : "n")',
                     "int": f"RTB_PROFILE_STR({s.reported})",
                     "string": s.reported}[s.type]
        elif s.type == "flag" or s.set == "":
            macro = f"RTB_PROFILE_V{i}"
            pre += [f"#ifdef {s.reported}", f'#define {macro} "defined"', "#else",
                    f'#define {macro} "not defined"', "#endif"]
            value = macro
        else:
            value = f"RTB_PROFILE_STR({s.reported})"
        key = f"setting:{s.name}"
        facts += [(_c(key), value), (_c(key + ":why"), _c(s.words())),
                  (_c(key + ":source"), _c("; ".join(s.sources)))]
    body = " \\\n    ".join(f"{a}, {b}," for a, b in facts)
    return "\n".join(pre + [f"#define RTB_PROFILE_FACTS \\\n    {body}", "#endif", ""])


def cmake_vars(profile: str, rules: Rules) -> str:
    return "\n".join([
        "# Generated by rtb_profile.py. Do not edit.",
        f"set(RTB_PROFILE {profile})",
        f"set(RTB_PROFILE_OPT {rules.profiles[profile]['opt']})  # the kernel's",
        f"set(RTB_HARNESS_OPT {rules.harness_opt})  # rtbench's own code's",
        f'set(RTB_PROFILE_CFLAGS "{";".join(rules.cflags)}")',
        f'set(RTB_PROFILE_CFLAGS_WORDS "{rules.words(profile)}")', ""])


def write(port_dir: Path, profile: str, out: Path, config: Path | None = None,
          config_name: str = "") -> list[Path]:
    rules = load_rules()
    if profile not in rules.profiles:
        raise ProfileError(f"unknown kernel profile '{profile}' (one of: "
                           f"{', '.join(rules.profiles)})")
    k = load_kernel(port_dir, rules)
    said = ""
    if config is not None:
        user = load_user(config, config_name, k, profile)
        k = k.with_user(profile, user)
        said = f"{config_name}: {len(user)} setting(s) on top of the {profile} profile"
    files = {"rtb_profile_facts.h": facts_header(k, profile, rules, said),
             "rtb_profile.cmake": cmake_vars(profile, rules)}
    if k.form == "define":
        files["rtb_profile.h"] = config_header(k, profile)
    else:
        files["rtb_profile.conf"] = kconfig_fragment(k, profile)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in files.items():
        path = out / name
        if not path.is_file() or path.read_text() != text:
            path.write_text(text)
        paths.append(path)
    return paths


def main(argv: list[str]) -> int:
    if len(argv) not in (3, 5):
        print("usage: rtb_profile.py PORT_DIR PROFILE OUT_DIR [CONFIG_FILE CONFIG_NAME]",
              file=sys.stderr)
        return 2
    try:
        write(Path(argv[0]), argv[1], Path(argv[2]), *((Path(argv[3]), argv[4])
                                                        if len(argv) == 5 else ()))
    except ProfileError as exc:
        print(f"rtb_profile: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"rtb_profile: {argv[2]}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
