"""The ways an administrator gets into a device, read from its configuration — apart from the rules.

A fix is safe to paste only if the device still lets its operator in afterwards. The rules cannot tell: a fix
that puts ``login local`` on a console with no local user makes CON-AUTH pass and locks the console. So this
module models management access as the device would enforce it, and ``keeps_access`` compares before and after:
every kind of way in the device had (the console; a remote one — VTY over telnet or SSH, ASA ssh/http/telnet, NX-OS
and IOS-XR SSH) must keep at least one. Where the configuration cannot say (an RSA key is not in the running
configuration; whether a TACACS+ server answers), the model takes the evidence an engineer would: any ``ip ssh`` or
domain-name line means the keys were made, a configured server group counts as a way. What it reads, per platform:

- IOS/IOS-XE lines: without ``aaa new-model``, ``login local`` needs a local user, ``login`` a password on the line,
  ``no login`` asks for nothing, and the defaults differ (a VTY asks for a password it does not have; a console
  asks for nothing); with it, the line's list (``login authentication X``, else ``default``, else the local users)
  needs one method an administrator can satisfy. A VTY's transports (``transport input``; absent: telnet and SSH);
  SSH needs its keys and a user name to log in with — a line password alone cannot answer it.
- ASA: ``ssh``/``http``/``telnet`` lines on an interface name the device has (``nameif``), ``http server enable``,
  and for SSH the ``aaa authentication ssh console`` method with a user behind it.
- NX-OS and IOS-XR: the console always (their local admin user cannot be removed by a fix here); SSH unless
  switched off (``no feature ssh``) or, on IOS-XR, unless an ``ssh server`` line or telnet server exists.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from assessment_engine.checks.config_parser import Line, ParsedConfig


@dataclass(frozen=True)
class Access:
    """The ways in that work (``console``; ``remote``: each described) and why each closed one is closed."""

    console: bool
    remote: tuple[str, ...] = ()
    closed: tuple[str, ...] = ()
    # (closed door, what would open it): 'user' (a local user), 'ssh-keys', 'login-local:<line block>' (SSH asks for
    # a user name), 'asa-ssh-aaa', 'asa-user', 'nx-ssh', 'xr-ssh' (SSH switched on)
    needs: tuple[tuple[str, str], ...] = ()

    def needs_to_restore(self, before: Access) -> list[str]:
        """What would open the doors closed here that were open in ``before`` — and, where every remote way in
        was lost (telnet removed, SSH never on), the remote doors that could replace it. Never a door closed
        before for a kind of access that is kept: a fix must not open a way in nobody had."""
        remote_lost = bool(before.remote) and not self.remote
        return list(dict.fromkeys(need for door, need in self.needs if door not in before.closed
                                  or (remote_lost and not door.startswith("console"))))


@dataclass
class _Aaa:
    on: bool
    lists: dict[str, list[str]] = field(default_factory=dict)  # login list name -> its methods
    users: bool = False
    enable: bool = False
    servers: bool = False

    def satisfiable(self, methods: list[str], line_password: bool) -> str | None:
        """None when one of ``methods`` lets an administrator in, else why none does."""
        for m in methods:
            if m == "none" or (m == "local" and self.users) or (m == "line" and line_password) \
                    or (m == "enable" and self.enable) or (m.startswith("group") and self.servers):
                return None
        return f"its methods ({' '.join(methods)}) have nothing to answer them (no local user, no server)" \
            if methods != ["local"] else "no local user to log in with"


_USER = re.compile(r"^username \S+ .*\b(?:password|secret|nopassword)\b")
_SERVER = re.compile(r"^(?:tacacs-server host|radius-server host|tacacs server|radius server|server-private) ")


def _aaa(cfg: ParsedConfig) -> _Aaa:
    top = [ln.text for ln in cfg.top]
    lists: dict[str, list[str]] = {}
    for t in top:
        m = re.match(r"^aaa authentication login (\S+) (.+)$", t)
        if m:
            methods = m.group(2).split()
            # 'group tacacs+' is one method of two words
            lists[m.group(1)] = [f"group {methods[i + 1]}" if w == "group" and i + 1 < len(methods) else w
                                 for i, w in enumerate(methods) if not (i and methods[i - 1] == "group")]
    return _Aaa(on="aaa new-model" in top, lists=lists, users=any(_USER.match(t) for t in top),
                enable=any(t.startswith(("enable secret ", "enable password ", "enable algorithm-type ")) for t in top),
                servers=any(_SERVER.match(t) for t in top) or any(ln.text.startswith("aaa group server ")
                                                                  and ln.children for ln in cfg.top))


def _line_auth(block: Line | None, aaa: _Aaa, console: bool) -> str | None:
    """None when the line lets an administrator authenticate, else why not (IOS/IOS-XE)."""
    texts = [c.text for c in block.children] if block is not None else []
    line_password = any(t.startswith(("password ", "secret ")) for t in texts)
    if aaa.on:
        named = next((t.split()[2] for t in texts if t.startswith("login authentication ")), "default")
        methods = aaa.lists.get(named) or aaa.lists.get("default") or ["local"]
        return aaa.satisfiable(methods, line_password)
    if "no login" in texts:
        return None
    if "login local" in texts:
        return None if aaa.users else "login local but no local user"
    if "login" in texts or not console:  # a VTY's default is 'login'
        return None if line_password else "login asks for a line password the line does not have"
    return None  # the console's default: no login


def _ssh_ready(cfg: ParsedConfig) -> bool:
    return any(ln.text.startswith(("ip ssh ", "ip domain name ", "ip domain-name ", "crypto key ")) for ln in cfg.top)


def _transports(block: Line) -> set[str]:
    line = next((c.text for c in block.children if c.text.startswith("transport input ")), None)
    if line is None:
        return {"telnet", "ssh"}  # the device's default
    words = set(line.split()[2:])
    if "all" in words:
        return {"telnet", "ssh"}
    return words & {"telnet", "ssh"}


def _ios(cfg: ParsedConfig) -> Access:
    aaa = _aaa(cfg)
    closed: list[str] = []
    needs: list[tuple[str, str]] = []

    def close(why: str, *opened_by: str) -> None:
        closed.append(why)
        needs.extend((why, n) for n in opened_by)

    console_block = next((ln for ln in cfg.top if re.match(r"^line con", ln.text)), None)
    why = _line_auth(console_block, aaa, console=True)
    if why:
        close(f"console: {why}", *(["user"] if not aaa.users else []))
    remote: list[str] = []
    for block in (ln for ln in cfg.top if ln.text.startswith("line vty ")):
        auth = _line_auth(block, aaa, console=False)
        transports = _transports(block)
        if not transports:
            close(f"{block.text}: transport input none")
            continue
        if auth:
            close(f"{block.text}: {auth}", *(["user"] if not aaa.users else []),
                  *([f"login-local:{block.text}"] if not aaa.on and "password" in auth else []))
            continue
        if "telnet" in transports:
            remote.append(f"telnet on {block.text}")
        if "ssh" in transports:
            texts = [c.text for c in block.children]
            username = aaa.on or "login local" in texts or "no login" in texts
            if not _ssh_ready(cfg):
                close(f"{block.text}: SSH has no keys (no 'ip ssh', domain name or 'crypto key' line)", "ssh-keys")
            if not username:
                close(f"{block.text}: SSH asks for a user name; the line has only a password",
                      f"login-local:{block.text}", *(["user"] if not aaa.users else []))
            if username and _ssh_ready(cfg):
                remote.append(f"SSH on {block.text}")
    return Access(console=why is None, remote=tuple(remote), closed=tuple(closed), needs=tuple(needs))


def _asa(cfg: ParsedConfig) -> Access:
    names = {c.text.split()[1] for ln in cfg.top if ln.text.startswith("interface ")
             for c in ln.children if c.text.startswith("nameif ") and len(c.text.split()) > 1}
    top = [ln.text for ln in cfg.top]
    users = any(t.startswith("username ") and " password " in t for t in top)
    servers = any(t.startswith("aaa-server ") for t in top)
    closed: list[str] = []
    needs: list[tuple[str, str]] = []
    console_method = next((t.split()[4] for t in top if re.match(r"^aaa authentication serial console \S+", t)), None)
    console = console_method is None or (console_method == "LOCAL" and users) or (console_method != "LOCAL" and servers)
    if not console:
        closed.append("console: its AAA method has no user or server behind it")
    ssh_method = next((t.split()[4] for t in top if re.match(r"^aaa authentication ssh console \S+", t)), None)
    ssh_auth = ssh_method is not None and ((ssh_method == "LOCAL" and users) or (ssh_method != "LOCAL" and servers))
    remote: list[str] = []
    for t in top:
        m = re.match(r"^(ssh|http|telnet) \d+\.\d+\.\d+\.\d+ \d+\.\d+\.\d+\.\d+ (\S+)$", t)
        if not m:
            continue
        service, nameif = m.groups()
        if nameif not in names:
            closed.append(f"'{t}': the device has no interface named {nameif}")
        elif service == "http" and "http server enable" not in top:
            closed.append(f"'{t}': no 'http server enable'")
        elif service == "ssh" and not ssh_auth:
            door = f"'{t}': no 'aaa authentication ssh console' method with a user behind it"
            closed.append(door)
            needs += [(door, n) for n in (["asa-ssh-aaa"] if ssh_method is None else [])
                      + (["asa-user"] if not users else [])]
        else:
            remote.append(f"{service} on {nameif}")
    return Access(console=console, remote=tuple(remote), closed=tuple(closed), needs=tuple(needs))


def _nx_xr(cfg: ParsedConfig) -> Access:
    top = [ln.text for ln in cfg.top]
    if cfg.platform == "nx-os":
        ssh = "no feature ssh" not in top
        remote = (["SSH"] if ssh else []) + (["telnet"] if "feature telnet" in top else [])
        need = "nx-ssh"
    else:
        ssh = any(t.startswith("ssh server") for t in top)
        remote = (["SSH"] if ssh else []) + (["telnet"] if any(re.match(r"^telnet (?:vrf \S+ )?ipv[46] server", t)
                                                              for t in top) else [])
        need = "xr-ssh"
    door = "SSH is not switched on"
    return Access(console=True, remote=tuple(remote), closed=() if ssh else (door,),
                  needs=() if ssh else ((door, need),))


def ways_in(cfg: ParsedConfig) -> Access:
    """How an administrator gets in to this device, as its configuration says — read once per parsed configuration
    (every fix of a device is compared with the same one)."""
    if "access" not in cfg.cache:
        read = _asa if cfg.platform == "asa" else _nx_xr if cfg.platform in ("nx-os", "ios-xr") else _ios
        cfg.cache["access"] = read(cfg)
    access: Access = cfg.cache["access"]
    return access


def lost_access(before: Access, after: Access) -> list[str]:
    """The kinds of way in the device had and the patched one has not, each with why it is closed now."""
    lost: list[str] = []
    if before.console and not after.console:
        lost.append("the console: " + "; ".join(c.removeprefix("console: ") for c in after.closed
                                                 if c.startswith("console")))
    if before.remote and not after.remote:
        lost.append("every remote way in (" + ", ".join(before.remote) + "): "
                    + "; ".join(c for c in after.closed if not c.startswith("console")))
    return lost


def keeps_access(before: ParsedConfig, after: ParsedConfig) -> str | None:
    """None when the patched configuration keeps a way in of every kind the device had, else what it loses."""
    lost = lost_access(ways_in(before), ways_in(after))
    return "it would lock the operator out of " + " and ".join(lost) if lost else None
