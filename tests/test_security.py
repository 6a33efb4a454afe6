"""Secrets never leave the device config in clear text; feedback only on your own threads; the API answers only
the app's own origin."""

from __future__ import annotations

import asyncio
import logging
import re
import uuid
from pathlib import Path

import duckdb
import pytest

from chat_app.persistence import make_data_layer, masked_upload
from chat_app.security import REQUEST_USER
from orchestration.engines.config_parser import parse_config
from orchestration.engines.rule_engine import evaluate_config, get_rules
from orchestration.engines.secrets import mask_config
from orchestration.runtime import handle_turn
from orchestration.trace_export import thread_states, to_json, to_markdown
from orchestration.warehouse.user_configs import assess_files
from orchestration.warehouse.versions import current_file

# one value per secret kind; each must vanish from every store, answer, export and log
SECRETS = {
    "enable password": "EnPw0Clear", "enable secret": "$1$EnSe$cretHash5", "user password": "UsrPw0Clear",
    "user secret": "$9$UsrSecretHash9", "community": "CommRO77x", "community rw": "CommRW88x",
    "trap community": "TrapComm99x", "snmpv3 auth": "V3AuthKey11", "snmpv3 priv": "V3PrivKey22",
    "tacacs key": "TacKey33x", "tacacs block key": "TacBlk44x", "radius key": "RadKey55x",
    "key chain": "ChainKey66x", "ntp key": "NtpKey77x", "ospf key": "OspfKey88x", "hsrp key": "HsrpKey99x",
    "isakmp psk": "IsakmpPsk10x", "bgp password": "BgpPw11x", "line password": "LinePw12x",
}
S = SECRETS
CONFIG = f"""version 17.6
hostname R-SECRETS
enable password 0 {S['enable password']}
enable secret 5 {S['enable secret']}
username ops privilege 15 password 0 {S['user password']}
username adm privilege 15 secret 9 {S['user secret']}
snmp-server community {S['community']} RO
snmp-server community {S['community rw']} RW
snmp-server host 10.1.1.1 version 2c {S['trap community']}
snmp-server group NETOPS v3 priv
snmp-server user mon NETOPS v3 auth sha {S['snmpv3 auth']} priv aes 128 {S['snmpv3 priv']}
tacacs-server host 10.9.9.9 key 0 {S['tacacs key']}
tacacs server TAC1
 address ipv4 10.9.9.10
 key 0 {S['tacacs block key']}
radius-server key {S['radius key']}
key chain KC
 key 1
  key-string {S['key chain']}
ntp authentication-key 1 md5 {S['ntp key']}
interface GigabitEthernet1
 ip address 10.0.0.1 255.255.255.0
 ip ospf message-digest-key 1 md5 {S['ospf key']}
 standby 1 ip 10.0.0.254
 standby 1 authentication md5 key-string {S['hsrp key']}
crypto isakmp key {S['isakmp psk']} address 192.0.2.1
router ospf 1
 network 10.0.0.0 0.0.0.255 area 0
router bgp 65001
 neighbor 192.0.2.9 remote-as 65002
 neighbor 192.0.2.9 password 0 {S['bgp password']}
line vty 0 4
 password 7 {S['line password']}
 transport input telnet
"""


def leaks(text: str) -> list[str]:
    return [kind for kind, value in SECRETS.items() if value in text]


def test_every_secret_kind_is_masked_and_the_rules_still_see_what_they_judge() -> None:
    masked = mask_config(CONFIG)
    assert leaks(masked) == []
    assert len(masked.split("\n")) == len(CONFIG.split("\n"))  # line numbers in evidence stay right
    assert "enable password 0 <password type 0 masked>" in masked
    assert "username ops privilege 15 password 0 <password type 0 masked>" in masked
    verdicts = {r.rule_id: r.status for r in evaluate_config(get_rules(), parse_config(masked))}
    assert verdicts["PWD-ENABLE-SECRET"] == "fail" and verdicts["PWD-USER-HASH"] == "fail"


def test_no_store_answer_export_or_log_holds_a_secret(writable_warehouse: Path, caplog: pytest.LogCaptureFixture,
                                                      tmp_path: Path) -> None:
    caplog.set_level(logging.DEBUG)
    report = assess_files([("r-secrets.cfg", CONFIG.encode())], owner="alice")
    assert report.assessed == 1
    con = duckdb.connect(str(current_file(writable_warehouse)), read_only=True)
    try:
        for (table,) in con.execute("SELECT table_name FROM information_schema.tables").fetchall():
            for row in con.execute(f"SELECT * FROM {table}").fetchall():
                assert leaks(" ".join(map(str, row))) == [], table
        evidence = con.execute("SELECT evidence FROM results WHERE rule_id = 'PWD-USER-HASH' AND asset_id LIKE "
                               "'%R-SECRETS'").fetchone()
    finally:
        con.close()
    assert evidence and re.search(r"\d+: username ops privilege 15 password 0 <password type 0 masked>", evidence[0])
    thread = f"t-{uuid.uuid4().hex[:8]}"
    answers = [handle_turn(q, thread_id=thread, user_id="alice").final.answer for q in (
        f"Show the failed checks with evidence for assessment {report.assessment_id}",
        "Which passwords and SNMP communities are weak on R-SECRETS?")]
    assert leaks("\n".join(answers)) == []
    states = thread_states(thread, "alice")
    assert leaks(to_json(thread, states)) == [] and leaks(to_markdown(thread, states)) == []
    for stored in writable_warehouse.parent.rglob("*"):
        if stored.is_file() and stored.suffix != ".duckdb" and "duckdb" not in stored.name:
            assert leaks(stored.read_bytes().decode("latin-1")) == [], stored  # SQLite keeps text uncompressed
    assert leaks(caplog.text) == []


def test_an_attached_config_is_kept_only_masked(tmp_path: Path) -> None:
    upload = tmp_path / "r.cfg"
    upload.write_text(CONFIG)
    assert leaks(masked_upload(upload).decode()) == []
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nplain text stays as it is\n")
    assert masked_upload(notes) == notes.read_bytes()


def test_feedback_only_on_your_own_threads(tmp_path: Path) -> None:
    from chainlit.types import Feedback
    from chainlit.user import User

    async def scenario() -> None:
        layer = make_data_layer(f"sqlite:///{tmp_path / 'chainlit.sqlite'}")
        alice = await layer.create_user(User(identifier="alice"))
        await layer.update_thread("th-alice", name="alice's", user_id=alice.id)
        # an answer step of alice's thread (create_step needs a websocket session; the row is what it writes)
        await layer.execute_sql(query='INSERT INTO steps ("id", "name", "type", "threadId", "streaming") '
                                      "VALUES ('st-1', 'answer', 'assistant_message', 'th-alice', false)", parameters={})
        token = REQUEST_USER.set("bob")
        try:
            with pytest.raises(PermissionError):
                await layer.upsert_feedback(Feedback(forId="st-1", value=0, comment="bob was here"))
        finally:
            REQUEST_USER.reset(token)
        token = REQUEST_USER.set("alice")
        try:
            feedback_id = await layer.upsert_feedback(Feedback(forId="st-1", value=1))
        finally:
            REQUEST_USER.reset(token)
        token = REQUEST_USER.set("bob")
        try:
            with pytest.raises(PermissionError):
                await layer.delete_feedback(feedback_id)
            with pytest.raises(PermissionError):  # overwriting alice's feedback by its id
                await layer.upsert_feedback(Feedback(forId="st-1", value=0, id=feedback_id))
        finally:
            REQUEST_USER.reset(token)
        rows = await layer.execute_sql(query='SELECT "value" FROM feedbacks', parameters={})
        assert rows == [{"value": 1}]

    asyncio.run(scenario())


def test_a_login_does_not_wait_for_the_conversations_writes(tmp_path: Path) -> None:
    """The conversations' steps share one connection; a login has its own, and a known user's login writes nothing:
    it completes while a conversation holds the steps' connection in an open write transaction."""
    from chainlit.user import User
    from sqlalchemy import text

    async def scenario() -> None:
        layer = make_data_layer(f"sqlite:///{tmp_path / 'chainlit.sqlite'}")
        first = await layer.create_user(User(identifier="alice", metadata={"provider": "local"}))
        async with layer.async_session() as busy:  # the steps' only connection, mid-write
            await busy.begin()
            await busy.execute(text("INSERT INTO threads (\"id\") VALUES ('th-busy')"))
            again = await asyncio.wait_for(layer.create_user(User(identifier="alice", metadata={"provider": "local"})),
                                           timeout=10)
            assert again is not None and again.id == first.id
            assert await asyncio.wait_for(layer.get_user("alice"), timeout=10) is not None
            await busy.rollback()
        changed = await layer.create_user(User(identifier="alice", metadata={"provider": "password"}))
        assert changed is not None and changed.metadata == {"provider": "password"} and changed.id == first.id

    asyncio.run(scenario())
