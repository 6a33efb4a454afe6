"""Knowledge documents in the chat: /docs lists what a user can use, /remove removes only their own."""

from __future__ import annotations

from pathlib import Path

import pytest

from chat_app.commands import parse, run
from knowledge_base.ingest import ingest_file
from orchestration.services import Services


def test_users_list_and_remove_only_their_own_documents(writable_warehouse: Path, tmp_path: Path, services: Services) -> None:
    doc = tmp_path / "notes.md"
    doc.write_text("# Notes\n\nOur lab routers use loopback0 as the NTP source.\n")
    assert ingest_file(services.knowledge(), doc, doc.name, owner="alice").status == "added"
    assert parse("/docs") and parse("/remove notes.md") and parse("docs please") is None
    alice, bob = run(services, "/docs", "alice", "t-docs").text, run(services, "/docs", "bob", "t-docs").text
    assert "| notes.md | Notes | 1 | you |" in alice and "| 1 | shared |" in alice
    assert "notes.md" not in bob
    assert "You have no document named" in run(services, "/remove notes.md", "bob", "t-docs").text
    assert "only be removed by an administrator" in run(services, "/remove standard-snmpv3.md", "alice", "t-docs").text
    assert "Removed **notes.md**" in run(services, "/remove notes.md", "alice", "t-docs").text
    assert "| notes.md |" not in run(services, "/docs", "alice", "t-docs").text


def test_a_documents_own_owner_field_never_hides_it_and_older_indexes_read_the_same(writable_warehouse: Path,
                                                                                     tmp_path: Path, services: Services) -> None:
    """Front matter ``owner:`` names the team responsible for a standard, not an uploader: such documents stay
    shared. An index written before ``uploaded_by`` existed (uploader stored as ``owner``) is read the same."""
    import sqlite3

    doc = tmp_path / "notes.md"
    doc.write_text("# Lab notes\n\nOur lab routers use loopback0 as the NTP source for chrony peers.\n")
    assert ingest_file(services.knowledge(), doc, doc.name, owner="alice").status == "added"
    question = "approved exception SNMPv2c legacy capacity monitoring DataCenter-1"
    for viewer in (None, "bob"):  # the seed exception document carries 'owner: Network Architecture Board'
        assert services.knowledge().retriever.search(question, viewer=viewer)[0].metadata["source"] == "exceptions-datacenter.md"

    with sqlite3.connect(services.knowledge().index.db_path) as con:  # rewrite the metadata as the previous version stored it
        con.execute("UPDATE chunks SET metadata = json_set(json_remove(metadata, '$.uploaded_by'), '$.owner', "
                    "CASE WHEN source LIKE 'alice/%' THEN 'alice' ELSE 'CISO Office' END)")
        con.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'version'")
    lab = "NTP source loopback0 chrony lab routers"
    assert services.knowledge().retriever.search(question, viewer="bob")[0].metadata["source"] == "exceptions-datacenter.md"
    assert services.knowledge().retriever.search(lab, viewer="alice")[0].metadata["source"] == "alice/notes.md"
    assert all(c.metadata["source"] != "alice/notes.md" for c in services.knowledge().retriever.search(lab, viewer="bob"))
    assert "| notes.md | Lab notes | 1 | you |" in run(services, "/docs", "alice", "t-docs").text
    assert "notes.md" not in run(services, "/docs", "bob", "t-docs").text and "exceptions-datacenter.md | Approved Exceptions" in run(
        services, "/docs", "bob", "t-docs").text


def test_documents_keep_versions_and_a_duplicate_never_deletes_one(writable_warehouse: Path, tmp_path: Path, services: Services) -> None:
    from orchestration.runtime import handle_turn

    doc = tmp_path / "lab-ntp.md"
    doc.write_text("# Lab NTP\n\nLab routers use loopback0 as the NTP source towards the chrony lab servers.\n")
    assert ingest_file(services.knowledge(), doc, doc.name).status == "added"
    doc.write_text("# Lab NTP\n\nLab routers use loopback0 as the NTP source towards the two chrony lab servers "
                   "with authentication key 7.\n")
    assert ingest_file(services.knowledge(), doc, doc.name).status == "replaced"
    history = services.knowledge().index.versions("lab-ntp.md")
    assert [h["version"] for h in history] == [1, 2] and all(h["ingested_at"] for h in history)
    answer = handle_turn("What NTP source do lab routers use towards the chrony lab servers?", services=services).final
    cited = [c for c in answer.citations if c.source == "lab-ntp.md"]
    assert cited and cited[0].version == "2" and "lab-ntp.md v2 —" in answer.answer
    # the content of another document under this name is no new version: the document stays as it was
    from knowledge_base.service import SEED_CORPUS

    doc.write_text((SEED_CORPUS / "standard-snmpv3.md").read_text())
    result = ingest_file(services.knowledge(), doc, doc.name)
    assert result.status == "error" and "already in standard-snmpv3.md; the previous version was kept" in result.message
    assert [h["version"] for h in services.knowledge().index.versions("lab-ntp.md")] == [1, 2]
    assert next(d for d in services.knowledge().index.sources() if d["source"] == "lab-ntp.md")["version"] == "2"


def test_documents_uploaded_together_are_embedded_together_under_their_names_for_their_uploader_only(
        writable_warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, services: Services) -> None:
    """A chat message with several documents: one model call for their chunks, each stored as ``<user>/<name>``
    under the name it was uploaded with (not the scratch file's), each reported, retrieved only by its uploader."""
    from knowledge_base import ingest

    scratch = []
    for i, topic in enumerate(["Quokka NTP peers use key 7", "Quokka syslog goes to 10.9.9.9"]):
        path = tmp_path / f"upload-{i:04d}.md"  # the chat keeps uploads under scratch names
        path.write_text(f"# Note {i}\n\n{topic} in the lab.\n")
        scratch.append(path)
    calls: list[int] = []
    embed = ingest._embed
    monkeypatch.setattr(ingest, "_embed", lambda embedder, plans, embedded: calls.append(
        sum(len(p.fresh) for p in plans)) or embed(embedder, plans, embedded))
    seen: list[str] = []
    report = ingest.ingest_paths(services.knowledge(), scratch, lambda name, i, n: seen.append(f"{i}/{n} {name}"),
                                 {scratch[0]: "ntp.md", scratch[1]: "syslog.md"}, "alice")
    assert [f.message for f in report.files] == ["alice/ntp.md: added 1 chunk", "alice/syslog.md: added 1 chunk"]
    assert calls == [2] and seen == ["1/2 alice/ntp.md", "2/2 alice/syslog.md"]
    hits = services.knowledge().retriever.search("Quokka syslog server", viewer="alice")
    assert hits[0].metadata["source"] == "alice/syslog.md"
    assert all(not h.metadata["source"].startswith("alice/") for h in services.knowledge().retriever.search("Quokka syslog server",
                                                                                              viewer="bob"))
