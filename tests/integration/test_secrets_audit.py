"""The masking audit: one planted secret per secret-bearing syntax of six platforms (``secret_corpus.py``, over 150
values), uploaded through the running app as a user would, asked about, exported — then every stored row of every
store is read with SQL (the DuckDB warehouse's every version, the memory, chat-history and knowledge databases), and
every other file the app wrote (attachments, exports, upload folders, logs) is searched byte for byte: 0 values."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from pathlib import Path

import duckdb

from assessment_engine.checks.secrets import RULES, TRIGGER, mask_config
from tests.browser import running_app
from tests.chat_client import ChatSession
from tests.conftest import TEST_OUTPUT
from tests.secret_corpus import plant


def test_every_planted_secret_is_masked_and_nothing_else_changes() -> None:
    planted = plant()
    assert len(planted.values) >= 150
    for name, text in planted.configs.items():
        masked = mask_config(text)
        assert planted.leaks(masked) == [], name
        for before, after in zip(text.split("\n"), masked.split("\n"), strict=True):  # line for line
            if not planted.leaks(before):
                assert after == before, (name, before)  # nothing but secrets changes
            else:
                assert after.count("masked>") == sum(before.count(v) for v in planted.values), (name, before)
                command = before.split(planted.leaks(before)[0])[0]
                assert after.startswith(command.rstrip('"')), (name, before)  # the command and its type stay


def test_every_masking_rule_needs_a_word_of_the_trigger_that_lets_other_lines_pass_untouched() -> None:
    # a rule whose pattern named none of the trigger's words could match a line the trigger lets through unmasked
    assert [rule.pattern.pattern for rule in RULES if not TRIGGER.search(rule.pattern.pattern)] == []
    planted = plant()
    secret_lines = [line for text in planted.configs.values() for line in text.split("\n") if planted.leaks(line)]
    assert secret_lines and all(TRIGGER.search(line) for line in secret_lines)


def _sql_rows(files: list[Path]) -> list[str]:
    """Every row of every table of these databases, as text (SQLite or DuckDB by the file)."""
    out = []
    for path in files:
        if path.suffix == ".duckdb":
            con = duckdb.connect(str(path), read_only=True)
            tables = [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()]
        else:
            con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)  # type: ignore[assignment]
            tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()]
        try:
            for table in tables:
                out += [f"{path.name}/{table}: " + " ".join(map(str, row))
                        for row in con.execute(f'SELECT * FROM "{table}"').fetchall()]
        finally:
            con.close()
    return out


def test_no_store_attachment_export_or_log_holds_a_planted_secret(demo_warehouse_dir: Path, tmp_path: Path) -> None:
    planted = plant()
    data = tmp_path / "audit-data"
    shutil.copytree(demo_warehouse_dir, data)
    folder = tmp_path / "configs"
    folder.mkdir()
    for name, text in planted.configs.items():
        (folder / name).write_text(text)

    async def conversation(url: str) -> list[str]:
        alice = ChatSession(url, "alice", "wonderland")
        await alice.login()
        await alice.connect()
        try:
            ids = [await alice.upload(path) for path in sorted(folder.iterdir())]
            results = await alice.ask("Please assess these configs.", files=ids)
            answers = [results.text]
            for question in ("Show the failed checks with evidence of the latest assessment",
                             "Which passwords and SNMP communities are weak on IOSXE-SECRETS-1?",
                             "What do the SLIC findings of the latest assessment mean?",
                             "/export json", "/export md"):
                answers.append((await alice.ask(question, timeout=180)).text)
            return answers
        finally:
            await alice.close()

    with running_app(data, ASSESS_AUTH_ENABLED="true", ASSESS_USERS="alice:wonderland") as url:
        answers = asyncio.run(conversation(url))
        log = max(TEST_OUTPUT.glob("app-*.log"), key=lambda p: p.stat().st_mtime)
    assert "assessment **" in answers[0] and answers[0].count("✓") == 4, answers[0]  # IOS-XE, NX-OS, IOS-XR, ASA
    assert "Juniper Junos" in answers[0] and "Arista EOS" in answers[0]  # refused by name, kept only masked
    assert "masked>" in answers[2]  # the device's evidence was shown, masked
    assert "Exported" in answers[4] and "Exported" in answers[5]
    databases = sorted(data.rglob("*.duckdb")) + [p for p in data.rglob("*.sqlite")]
    rows = _sql_rows(databases)
    assert any("<password type 0 masked>" in r for r in rows)  # the configurations were stored, masked
    assert [r[:160] for r in rows if planted.leaks(r)] == []
    files = [p for p in data.rglob("*") if p.is_file() and p.suffix not in (".duckdb",)] + [log]
    assert any("elements" in p.parts for p in files)  # attachments and exports were written
    leaked = {str(p.relative_to(data) if data in p.parents else p.name): planted.leaks(p.read_bytes().decode("latin-1"))
              for p in files}
    assert {k: v for k, v in leaked.items() if v} == {}
    assert planted.leaks("\n".join(answers)) == []
