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

from assessment_engine.checks.config_parser import parse_config
from assessment_engine.checks.rule_engine import evaluate_config
from assessment_engine.warehouse.user_configs import assess_files
from assessment_engine.warehouse.versions import current_file
from chat_app.persistence import make_data_layer, masked_upload
from chat_app.security import REQUEST_USER
from foundation.config import get_settings
from foundation.secrets import mask_config, mask_prompt
from orchestration.runtime import handle_turn
from orchestration.services import Services
from orchestration.trace_export import thread_states, to_json, to_markdown
from tests.catalog import BUNDLED, RULES

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
    verdicts = {r.rule_id: r.status for r in evaluate_config(RULES, parse_config(masked))}
    assert verdicts["PWD-ENABLE-SECRET"] == "fail" and verdicts["PWD-USER-HASH"] == "fail"


def test_no_store_answer_export_or_log_holds_a_secret(writable_warehouse: Path, caplog: pytest.LogCaptureFixture,
                                                      tmp_path: Path, services: Services) -> None:
    caplog.set_level(logging.DEBUG)
    report = assess_files([("r-secrets.cfg", CONFIG.encode())], BUNDLED, get_settings(), owner="alice")
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
    answers = [handle_turn(q, thread_id=thread, user_id="alice", services=services).final.answer for q in (
        f"Show the failed checks with evidence for assessment {report.assessment_id}",
        "Which passwords and SNMP communities are weak on R-SECRETS?",
        # configuration lines pasted into questions: their values never reach memory, traces or answers
        f"is this line ok: snmp-server community {S['community']} RO",
        f"would these be fine?\nsnmp-server community {S['community rw']} RW\nenable password {S['enable password']}",
        f"why does 'tacacs-server key {S['tacacs key']}' fail on R-SECRETS?\nenable secret 5 {S['enable secret']}")]
    assert leaks("\n".join(answers)) == []
    states = thread_states(thread, "alice", services.memory())
    assert leaks(to_json(thread, states)) == [] and leaks(to_markdown(thread, states)) == []
    for stored in writable_warehouse.parent.rglob("*"):
        if stored.is_file() and stored.suffix != ".duckdb" and "duckdb" not in stored.name:
            assert leaks(stored.read_bytes().decode("latin-1")) == [], stored  # SQLite keeps text uncompressed
    assert leaks(caplog.text) == []


def test_a_question_keeps_the_secrets_of_a_pasted_line_out_and_its_own_words_in() -> None:
    assert mask_prompt(f"is this ok: snmp-server community {S['community']} RO") == \
        "is this ok: snmp-server community <community masked> RO"
    assert mask_prompt('does "username bob password cisco" pass?') == 'does "username bob password <password masked>" pass?'
    assert mask_prompt("check username ops password 0 lowercase") == \
        "check username ops password 0 <password type 0 masked>"  # a typed value is a password, whatever it reads
    assert leaks(mask_prompt(f"how do I rotate the tacacs-server key {S['tacacs key']}?")) == []
    pasted = mask_prompt(f"why does this fail?\ntacacs server TAC1\n address ipv4 10.9.9.10\n key 0 {S['tacacs block key']}")
    assert leaks(pasted) == [] and pasted.endswith(" key 0 <server key type 0 masked>")  # a block keeps its header
    for question in ("what is the enable password policy?", "how do I set the tacacs-server key on routers",
                     "is the enable secret strong on RTR-CORE-1", "which devices use snmp-server community strings?",
                     "our snmp community is public, is that bad?"):
        assert mask_prompt(question) == question


def test_history_steps_are_written_together_merged_and_masked(tmp_path: Path) -> None:
    """Steps are written a moment later in one transaction (several updates of a step as one row); reading the
    history writes what is pending first; a user's message is kept with a pasted secret masked."""
    from chainlit.types import Pagination, ThreadFilter
    from chainlit.user import User

    async def scenario() -> None:
        layer = make_data_layer(f"sqlite:///{tmp_path / 'chainlit.sqlite'}")
        alice = await layer.create_user(User(identifier="alice"))
        await layer.update_thread("th-1", user_id=alice.id)
        write = type(layer).create_step.__wrapped__  # Chainlit's wrapper waits for a websocket session's first message
        base = {"threadId": "th-1", "streaming": False, "createdAt": "2026-11-27T10:00:00Z"}
        await write(layer, {**base, "id": "u1", "name": "alice", "type": "user_message",
                            "output": f"is this ok: snmp-server community {S['community']} RO"})
        await write(layer, {**base, "id": "s1", "name": "Planner", "type": "run", "output": "planning"})
        await write(layer, {**base, "id": "s1", "name": "Planner", "type": "run", "output": "planned",
                            "end": "2026-11-27T10:00:01Z", "input": None})
        assert await layer.execute_sql(query="SELECT id FROM steps", parameters={}) == []  # nothing written yet
        thread = await layer.get_thread("th-1")
        steps = {step["id"]: step for step in thread["steps"]}
        assert steps["s1"]["output"] == "planned" and steps["s1"]["end"] == "2026-11-27T10:00:01Z"
        assert steps["u1"]["output"] == "is this ok: snmp-server community <community masked> RO"
        await write(layer, {**base, "id": "s2", "name": "Reflector", "type": "run", "output": "checked"})
        await asyncio.sleep(0.3)  # the pending write goes out by itself
        assert await layer.execute_sql(query="SELECT id FROM steps WHERE id = 's2'", parameters={}) == [{"id": "s2"}]
        listed = await layer.list_threads(Pagination(first=5), ThreadFilter(userId=alice.id))
        assert [t["id"] for t in listed.data] == ["th-1"]
        await layer.close()

    asyncio.run(scenario())


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


def test_no_write_reaches_another_users_conversation(tmp_path: Path) -> None:
    """Every write of the chat history is checked against the thread's owner, whoever calls it: bob cannot add a
    step or an element to alice's thread, take over one of her steps or elements by its id, rename, share or delete
    her thread, or remove her element; each refusal is a PermissionError with the reason, and nothing changes."""
    import contextvars

    from chainlit.context import init_http_context
    from chainlit.element import Text
    from chainlit.user import User

    from chat_app.storage import LocalStorageClient

    async def scenario() -> None:
        storage = LocalStorageClient(tmp_path / "elements", "x" * 48)
        layer = make_data_layer(f"sqlite:///{tmp_path / 'chainlit.sqlite'}", storage)
        write = type(layer).create_step.__wrapped__
        alice, bob = await layer.create_user(User(identifier="alice")), await layer.create_user(User(identifier="bob"))
        step = {"streaming": False, "createdAt": "2026-11-28T10:00:00Z", "name": "x"}

        def as_user(user: User) -> None:  # a request of ``user`` (Chainlit's HTTP context, as its routes make it)
            init_http_context(user=user)

        as_user(alice)
        await layer.update_thread("th-a", name="alice's", user_id=alice.id)
        await write(layer, {**step, "id": "a-q", "threadId": "th-a", "type": "user_message", "output": "hers"})
        await layer.create_element(Text(id="el-a", name="notes.txt", content="her file", display="side",
                                        for_id="a-q", thread_id="th-a"))
        await layer.writes.flush()
        before = await layer.execute_sql(query='SELECT * FROM steps ORDER BY "id"', parameters={})
        before_el = await layer.execute_sql(query='SELECT * FROM elements ORDER BY "id"', parameters={})

        as_user(bob)
        await layer.update_thread("th-b", name="bob's", user_id=bob.id)
        attempts = [
            write(layer, {**step, "id": "b-1", "threadId": "th-a", "type": "user_message", "output": "injected"}),
            layer.create_element(Text(id="el-b", name="x", content="injected", display="side", for_id="a-q",
                                      thread_id="th-a")),
            layer.create_element(Text(id="el-a", name="notes.txt", content="replaced", display="side", for_id="b-1",
                                      thread_id="th-b")),  # her element's id, his thread
            layer.delete_element("el-a", "th-b"),
            layer.delete_element("el-a"),
            layer.update_thread("th-a", name="pwned"),
            layer.update_thread("th-a", metadata={"is_shared": True}),
            layer.delete_thread("th-a"),
            layer.delete_step("a-q"),
        ]
        for attempt in attempts:
            with pytest.raises(PermissionError, match="another|cannot be replaced"):
                await attempt
        # a step id of hers in his own thread: written nowhere (the upsert stays within its thread)
        await write(layer, {**step, "id": "a-q", "threadId": "th-b", "type": "user_message", "output": "taken"})
        await layer.writes.flush()
        assert await layer.execute_sql(query='SELECT * FROM steps ORDER BY "id"', parameters={}) == before
        assert await layer.execute_sql(query='SELECT * FROM elements ORDER BY "id"', parameters={}) == before_el
        assert (await layer.get_thread("th-a") or {}).get("name") == "alice's"
        assert storage.read(str(before_el[0]["objectKey"]))[0] == b"her file"  # type: ignore[index]
        # the server's own work (no request, no session) may
        await asyncio.create_task(layer.delete_thread("th-a"), context=contextvars.Context())
        assert await layer.get_thread("th-a") is None
        await layer.close()

    asyncio.run(scenario())


def test_a_users_history_stays_within_the_quota_at_their_own_expense(tmp_path: Path) -> None:
    """A flood of one user's writes deletes their least recently used conversations, then trims the oldest steps of
    the one in hand (its newest kept), tells them, and leaves another user's history alone."""
    from chainlit.context import init_http_context
    from chainlit.element import Text
    from chainlit.user import User

    from chat_app.history_quota import KEPT_STEPS, TRIMMED, HistoryQuota
    from chat_app.storage import LocalStorageClient

    told: list[tuple[str, int, int]] = []

    async def on_trim(thread: str, done) -> None:  # type: ignore[no-untyped-def]
        told.append((thread, len(done.deleted_threads), done.trimmed_steps))

    async def scenario() -> None:
        storage = LocalStorageClient(tmp_path / "elements", "x" * 48)
        layer = make_data_layer(f"sqlite:///{tmp_path / 'chainlit.sqlite'}", storage, HistoryQuota(400_000), on_trim)
        write = type(layer).create_step.__wrapped__
        users = {name: await layer.create_user(User(identifier=name)) for name in ("alice", "bob")}

        async def steps(user: str, thread: str, count: int, size: int) -> None:
            init_http_context(user=users[user])
            await layer.update_thread(thread, name=thread, user_id=users[user].id)
            for i in range(count):
                await write(layer, {"id": f"{thread}-{i}", "threadId": thread, "name": "x", "type": "assistant_message",
                                    "streaming": False, "createdAt": f"2026-11-28T10:{len(told):02d}:{i:02d}.{thread}",
                                    "output": "a" * size})
            await layer.writes.flush()
            await asyncio.gather(*layer.reckonings)

        await steps("bob", "bob-1", 20, 10_000)
        await steps("alice", "old", 10, 10_000)
        await steps("alice", "middle", 10, 10_000)
        init_http_context(user=users["alice"])
        await layer.create_element(Text(name="big.json", content="j" * 50_000, display="side", for_id="current-0",
                                        thread_id="current"))
        await steps("alice", "current", 120, 5_000)  # 600 KB in the conversation in hand alone
        assert await layer.get_thread("old") is None and await layer.get_thread("middle") is None
        rows = await layer.execute_sql(query='SELECT "id", "output" FROM steps WHERE "threadId" = \'current\' '
                                             'ORDER BY "createdAt"', parameters={})
        assert [r["output"] for r in rows[-KEPT_STEPS:]] == ["a" * 5_000] * KEPT_STEPS  # the newest are whole
        assert rows[0]["output"] == TRIMMED and sum(r["output"] == TRIMMED for r in rows) >= 40
        text = sum(len(r["output"]) for r in rows)
        assert text <= 400_000 and await layer.execute_sql(query="SELECT id FROM elements", parameters={}) == []
        assert told and {t[0] for t in told} == {"current"} and sum(t[1] for t in told) == 2  # each deletion told once
        assert sum(t[2] for t in told) == sum(r["output"] == TRIMMED for r in rows)
        bob = await layer.execute_sql(query='SELECT COUNT(*) AS n FROM steps WHERE "threadId" = \'bob-1\'', parameters={})
        assert bob == [{"n": 20}] and (await layer.get_thread("bob-1")) is not None
        await layer.close()

    asyncio.run(scenario())


def test_an_upload_is_held_in_memory_while_it_arrives_and_named_as_the_user_named_it(tmp_path: Path) -> None:
    """Starlette spools an upload over 1 MB to a temporary file as it arrives (a configuration raw on disk): the guards
    raise that to the upload limit. A parser's message about a stored upload names the user's file, not its id."""
    from starlette.formparsers import MultiPartParser

    from chat_app.files_dir import install_upload_guards
    from knowledge_base.loaders import named_as

    install_upload_guards()
    assert MultiPartParser.spool_max_size >= 25 * 1024 * 1024
    stored = tmp_path / "0f4c2a9e-1b7d-4e55-9a0b-6c1d2e3f4a5b.pdf"
    message = f"{stored.name}: not a readable PDF (PdfReadError: {stored} is damaged)"
    assert named_as(message, stored, "policies.pdf") == "policies.pdf: not a readable PDF (PdfReadError: policies.pdf is damaged)"


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


def test_a_step_written_while_others_are_being_written_goes_out_by_itself() -> None:
    """A row added during a flush is written by the same timer's next round, with no later write to start one."""
    from chat_app.step_writes import StepWrites

    written: list[list[str]] = []

    class SlowSession:  # the database's part of a flush, slowed so that a row arrives in the middle of it
        async def __aenter__(self) -> SlowSession:
            return self

        async def __aexit__(self, *_: object) -> None:
            return None

        def begin(self) -> SlowSession:
            return self

        async def execute(self, _sql: object, params: list[dict[str, str]]) -> None:
            await asyncio.sleep(0.2)
            written.append([p["id"] for p in params])

    async def scenario() -> None:
        writes = StepWrites(SlowSession, delay=0.01)  # type: ignore[arg-type]
        writes.add({"id": "a", "output": "1"})
        await asyncio.sleep(0.1)  # the first flush is writing "a"
        writes.add({"id": "b", "output": "2"})
        await asyncio.sleep(0.6)
        assert written == [["a"], ["b"]] and writes.pending == {}

    asyncio.run(scenario())


def test_message_limits_count_presses_and_messages_and_questions_in_progress_per_key() -> None:
    from chat_app.limits import MessageLimits

    now = [0.0]
    limits = MessageLimits(per_session=3, per_user=4, in_flight=1, clock=lambda: now[0])
    assert [limits.refusal("tab-1", "alice") for _ in range(3)] == [None] * 3
    assert "more than 3 messages" in (limits.refusal("tab-1", "alice") or "")  # the tab's minute is spent
    assert limits.refusal("tab-2", "alice") is None  # another tab: the user's fourth
    assert "more than 4 messages" in (limits.refusal("tab-3", "alice") or "")
    assert limits.refusal("tab-9", "bob") is None  # nobody else is held back
    now[0] = 61.0
    with limits.answering("alice"):  # a question of alice's in progress (signed-in users: counted per user)
        assert "still answering" in (limits.refusal("tab-1", "alice", "alice") or "")
        assert limits.refusal("tab-1", "alice") is None  # a press starts no question: only its rate counts
        assert limits.refusal("tab-5", "local", "tab-5") is None  # the local user's sessions are counted each
    assert limits.refusal("tab-1", "alice", "alice") is None
