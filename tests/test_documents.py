"""Knowledge documents in the chat: /docs lists what a user can use, /remove removes only their own."""

from __future__ import annotations

from pathlib import Path

from chat_app.documents import is_command, run_command
from knowledge_base.ingest import ingest_file


def test_users_list_and_remove_only_their_own_documents(writable_warehouse: Path, tmp_path: Path) -> None:
    doc = tmp_path / "notes.md"
    doc.write_text("# Notes\n\nOur lab routers use loopback0 as the NTP source.\n")
    assert ingest_file(doc, doc.name, owner="alice").status == "added"
    assert is_command("/docs") and is_command("/remove notes.md") and not is_command("docs please")
    alice, bob = run_command("/docs", "alice"), run_command("/docs", "bob")
    assert "| alice/notes.md | you |" in alice and "standard-snmpv3.md | shared" in alice
    assert "alice/notes.md" not in bob
    assert "You have no document named" in run_command("/remove notes.md", "bob")
    assert "only be removed by an administrator" in run_command("/remove standard-snmpv3.md", "alice")
    assert "Removed **alice/notes.md**" in run_command("/remove notes.md", "alice")
    assert "alice/notes.md" not in run_command("/docs", "alice")
