"""The masking audit: a planted secret per secret-bearing syntax of six platforms (``secret_corpus.py``, over 150
values) and every documented syntax in each encryption type and value shape (``secret_syntaxes.py``, over 600), uploaded
through the running app as a user would — as configurations, and inside a text document after 210 KB of show output —
pasted into questions (on lines of their own, with their block headers; in a first message; in an edited one), asked
about, exported; then every stored row of every store is read with SQL (the DuckDB warehouse's every version, the
memory, chat-history and knowledge databases), and every other file the app wrote (attachments, exports, upload
folders, logs) is searched byte for byte: 0 values."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from pathlib import Path

import duckdb

from foundation.secrets import RULES, TRIGGER, mask_config, mask_prompt
from tests.browser import running_app
from tests.chat_client import ChatSession
from tests.conftest import TEST_OUTPUT
from tests.secret_corpus import plant
from tests.secret_syntaxes import SYNTAXES, plant_syntaxes


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


def test_every_documented_syntax_in_every_type_and_shape_is_masked_in_a_config_and_in_a_question() -> None:
    planted = plant_syntaxes()
    assert len(planted.values) >= 400 and len({s.platform for s in SYNTAXES}) == 6
    for name, text in planted.configs.items():
        masked = mask_config(text)
        assert planted.leaks(masked) == [], name
        for before, after in zip(text.split("\n"), masked.split("\n"), strict=True):
            if not planted.leaks(before):
                assert after == before, (name, before)  # nothing but secrets changes
    for variant in planted.variants:
        assert mask_config(variant.pasted).count("masked>") == variant.markers, variant.pasted  # one marker a value
        for question in (f"Check this line\n{variant.pasted}", f"is this ok: {variant.line.strip()}"):
            if variant.syntax.block and question.startswith("is this"):
                continue  # a line of a block needs its header above it
            assert planted.leaks(mask_prompt(question)) == [], question


def test_every_masking_rule_needs_a_word_of_the_trigger_that_lets_other_lines_pass_untouched() -> None:
    # a rule whose pattern named none of the trigger's words could match a line the trigger lets through unmasked
    assert [rule.pattern.pattern for rule in RULES if not TRIGGER.search(rule.pattern.pattern)] == []
    planted, syntaxes = plant(), plant_syntaxes()
    secret_lines = [line for text in [*planted.configs.values(), *syntaxes.configs.values()]
                    for line in text.split("\n") if planted.leaks(line) or syntaxes.leaks(line)]
    assert len(secret_lines) > 700 and all(TRIGGER.search(line) for line in secret_lines)


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


def _show_output(size: int) -> str:
    """Pages of ``show`` output, as a support bundle holds before the configuration."""
    lines, n = ["router#show ip interface brief", "Interface              IP-Address      OK? Method Status  Protocol"], 0
    while sum(len(x) + 1 for x in lines) < size:
        n += 1
        lines.append(f"GigabitEthernet0/{n:<6}     10.{n // 250 % 250}.{n % 250}.1     YES NVRAM  up      up")
    return "\n".join(lines) + "\n"


def _batches(texts: list[str], limit: int = 7_000) -> list[str]:
    """Pasted blocks gathered into messages under the prompt limit, each block on lines of its own."""
    out, current = [], "Check these lines:"
    for text in texts:
        if len(current) + len(text) + 1 > limit:
            out.append(current)
            current = "Check these lines:"
        current += "\n" + text
    return [*out, current]


def test_no_store_attachment_export_or_log_holds_a_planted_secret(demo_warehouse_dir: Path, tmp_path: Path) -> None:
    planted, syntaxes = plant(), plant_syntaxes()
    pasted, in_document = plant_syntaxes("Zp"), plant_syntaxes("Zd")
    data = tmp_path / "audit-data"
    shutil.copytree(demo_warehouse_dir, data)
    folder = tmp_path / "configs"
    folder.mkdir()
    for name, text in [*planted.configs.items(), *syntaxes.configs.items()]:
        (folder / name).write_text(text)
    bundle = tmp_path / "support-bundle.txt"  # a document whose configuration starts after 210 KB of show output
    bundle.write_text(_show_output(210_000) + "router#show running-config\n" + in_document.configs["ios-syntaxes-1.cfg"])
    first, edited = pasted.variants[0].pasted, pasted.variants[1].pasted

    async def conversation(url: str) -> list[str]:
        alice = ChatSession(url, "alice", "wonderland")
        await alice.login()
        await alice.connect()
        try:
            answers = [(await alice.ask(f"Check this line\n{first}")).text]  # the thread's first message names it
            ids = [await alice.upload(path) for path in sorted(folder.iterdir())]
            answers.append((await alice.ask("Please assess these configs.", files=ids, timeout=300)).text)
            answers.append((await alice.ask("Please add this document.", files=[await alice.upload(bundle)],
                                            timeout=300)).text)
            for message in _batches([v.pasted for v in pasted.variants[2:]]):
                answers.append((await alice.ask(message, timeout=180)).text)
            for question in ("Show the failed checks with evidence of the latest assessment",
                             "Which passwords and SNMP communities are weak on IOSXE-SECRETS-1?",
                             "What do the SLIC findings of the latest assessment mean?"):
                answers.append((await alice.ask(question, timeout=180)).text)
            answers.append(await alice.edit(f"Check this line\n{edited}"))
            for command in ("/export json", "/export md"):
                answers.append((await alice.ask(command, timeout=180)).text)
            return answers
        finally:
            await alice.close()

    with running_app(data, ASSESS_AUTH_ENABLED="true", ASSESS_USERS="alice:wonderland") as url:
        answers = asyncio.run(conversation(url))
        log = max(TEST_OUTPUT.glob("app-*.log"), key=lambda p: p.stat().st_mtime)
    results = answers[1]
    assert "assessment **" in results and results.count("✓") == 8, results  # IOS-XE, NX-OS, IOS-XR, ASA of both sets
    assert "Juniper Junos" in results and "Arista EOS" in results  # refused by name, kept only masked
    assert "support-bundle.txt" in answers[2] and "✓" in answers[2], answers[2]  # added as a document, masked
    assert any("masked>" in a for a in answers[3:])  # the device's evidence and the pasted lines were shown, masked
    assert "Exported" in answers[-1] and "Exported" in answers[-2]
    databases = sorted(data.rglob("*.duckdb")) + [p for p in data.rglob("*.sqlite")]
    rows = _sql_rows(databases)
    assert len(planted.values) + sum(len(p.values) for p in (syntaxes, pasted, in_document)) >= 1_800
    assert any("<password type 0 masked>" in r for r in rows)  # the configurations were stored, masked
    assert any("support-bundle" in r and "masked>" in r for r in rows)  # the document's configuration, masked
    everything = (planted, syntaxes, pasted, in_document)
    assert [r[:160] for r in rows if any(p.leaks(r) for p in everything)] == []
    files = [p for p in data.rglob("*") if p.is_file() and p.suffix not in (".duckdb",)] + [log]
    assert any("elements" in p.parts for p in files)  # attachments and exports were written
    leaked = {str(p.relative_to(data) if data in p.parents else p.name):
              [v for planted_set in everything for v in planted_set.leaks(p.read_bytes().decode("latin-1"))]
              for p in files}
    assert {k: v for k, v in leaked.items() if v} == {}
    assert [a[:200] for a in answers if any(p.leaks(a) for p in everything)] == []
