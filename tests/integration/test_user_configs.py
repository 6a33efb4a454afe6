"""Users bring their own configs: a folder is assessed into a new assessment; bad files are reported."""

from __future__ import annotations

import subprocess
from datetime import datetime
from pathlib import Path

import pytest

from assessment_engine.warehouse.config_templates import DeviceSpec, render
from assessment_engine.warehouse.demo_network import CONTROLS
from assessment_engine.warehouse.migrate import migrate
from assessment_engine.warehouse.store import connect_reader
from assessment_engine.warehouse.user_configs import MAX_CONFIG_BYTES, assess_files, assess_folder
from assessment_engine.warehouse.versions import current_file
from foundation.config import get_settings
from orchestration.services import Services
from orchestration.tools.analysis_tool import analyse
from tests.catalog import BUNDLED, ONTOLOGY
from tests.conftest import ASSESS

FLEET_LATEST = "ASMT-2026-11-02"  # the demo network's latest run


def _config(hostname: str, platform: str, good: bool) -> str:
    spec = DeviceSpec(hostname, "Branch-09", "branch", "production", "router" if platform == "ios-xe" else "firewall",
                      "wan", "f", "m", platform, "high", "10.250.9.1", 9)
    return render(spec, "17.9.4" if platform == "ios-xe" else "9.18(3)", dict.fromkeys(CONTROLS, good), "now")


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "configs"
    folder.mkdir()
    (folder / "rtr-new-1.cfg").write_text(_config("RTR-NEW-1", "ios-xe", good=False))
    (folder / "fw-new-1.txt").write_text(_config("FW-NEW-1", "asa", good=True))
    (folder / "notes.txt").write_text("Shopping list:\nmilk\neggs\n")
    (folder / "empty.cfg").write_text("")
    (folder / "huge.cfg").write_bytes(b"hostname X\n" * (MAX_CONFIG_BYTES // 10))
    (folder / "image.bin").write_bytes(b"\x00\x01\x02\x03" * 100)
    return folder


def test_folder_becomes_a_new_assessment_and_bad_files_are_reported(writable_warehouse: Path, tmp_path: Path, services: Services) -> None:
    report = assess_folder(_folder(tmp_path), BUNDLED, get_settings(), site="Branch-09")
    by_name = {f.name: f for f in report.files}
    assert by_name["rtr-new-1.cfg"].ok and by_name["rtr-new-1.cfg"].failures >= 20
    assert by_name["fw-new-1.txt"].ok and by_name["fw-new-1.txt"].failures == 0
    assert "not a network device configuration" in by_name["notes.txt"].message
    assert "empty" in by_name["empty.cfg"].message
    assert "limit" in by_name["huge.cfg"].message
    assert "binary" in by_name["image.bin"].message
    # the upload is an assessment of its own collection: the fleet's latest is unchanged, the upload reachable by id
    assert analyse(services.warehouse(), "summary", catalog=BUNDLED)["metrics"]["assessment_id"] == FLEET_LATEST
    uploaded = analyse(services.warehouse(), "summary", assessment_id=str(report.assessment_id), catalog=BUNDLED)["metrics"]
    assert uploaded["assets_assessed"] == 2
    assert analyse(services.warehouse(), "summary", collection=str(report.collection), catalog=BUNDLED)["metrics"]["assessment_id"] == \
        report.assessment_id
    con = connect_reader(current_file(writable_warehouse))
    assert con.execute("SELECT platform, site, collection, source_file FROM assets WHERE asset_id = ?",
                       [f"{report.collection}/FW-NEW-1"]).fetchone() == ("asa", "Branch-09", report.collection,
                                                                        "fw-new-1.txt")
    con.close()


def test_cli_assesses_a_folder(writable_warehouse: Path, tmp_path: Path) -> None:
    out = subprocess.run([ASSESS, "assess-configs", str(_folder(tmp_path))], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "2 of 6 files assessed into ASMT-" in out.stdout and "skip  notes.txt" in out.stdout
    assert "the fleet's latest assessment is unchanged" in out.stdout
    named = subprocess.run([ASSESS, "assess-configs", str(tmp_path / "configs"), "--collection", "lab-east"],
                           capture_output=True, text=True, timeout=300)
    assert named.returncode == 0 and "(collection lab-east;" in named.stdout
    refused = subprocess.run([ASSESS, "assess-configs", str(tmp_path / "configs"), "--collection", "fleet"],
                             capture_output=True, text=True, timeout=300)
    assert refused.returncode == 2 and "cannot be added to the fleet" in refused.stderr


def test_a_folder_without_configs_writes_nothing(writable_warehouse: Path, tmp_path: Path) -> None:
    folder = tmp_path / "junk"
    folder.mkdir()
    (folder / "a.txt").write_text("nothing to see")
    out = subprocess.run([ASSESS, "assess-configs", str(folder)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 1 and "nothing was written" in out.stdout


def _lab_configs(n: int) -> list[tuple[str, bytes]]:
    return [(f"lab{i % 2}/d{i // 2}.cfg", _config(f"D{i // 2}", "ios-xe", good=i % 3 == 0).encode()) for i in range(n)]


def test_repeated_hostnames_stay_distinct_devices_with_warnings(writable_warehouse: Path) -> None:
    report = assess_files(_lab_configs(70), BUNDLED, get_settings())
    assert report.assessed == 70 and len(report.warnings) == 35
    assert "lab1/d0.cfg: hostname D0 is also in lab0/d0.cfg" in report.warnings[0]
    con = connect_reader(current_file(writable_warehouse))
    assert con.execute("SELECT COUNT(*) FROM assets WHERE collection = ?", [report.collection]).fetchone() == (70,)
    assert con.execute("SELECT COUNT(DISTINCT asset_id) FROM results WHERE assessment_id = ?",
                       [report.assessment_id]).fetchone() == (70,)
    # each device has one result per rule: nothing of another device's config was merged into it
    assert con.execute("SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM results WHERE assessment_id = ? "
                       "GROUP BY asset_id, rule_id)", [report.assessment_id]).fetchone() == (1,)
    con.close()
    again = assess_files(_lab_configs(4), BUNDLED, get_settings())  # the same hostnames in another batch: another collection
    assert again.collection != report.collection and again.assessed == 4


def test_a_new_collection_name_already_taken_is_refused_not_merged(writable_warehouse: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Two uploads that draw the same new collection name (a 32-bit suffix makes it rare, not impossible): the
    second is refused with a reason, and the first collection keeps only its own devices."""
    from assessment_engine.warehouse import user_configs
    from assessment_engine.warehouse.store import WarehouseUnavailable

    monkeypatch.setattr(user_configs, "collection_name", lambda files, now: "upload-lab-20261122-100000-0000")
    first = assess_files(_lab_configs(2), BUNDLED, get_settings(), owner="alice")
    with pytest.raises(WarehouseUnavailable, match="took the collection name upload-lab-20261122-100000-0000"):
        assess_files(_lab_configs(3), BUNDLED, get_settings(), owner="bob")
    con = connect_reader(current_file(writable_warehouse))
    assert con.execute("SELECT COUNT(*) FROM assets WHERE collection = ?", [first.collection]).fetchone() == (2,)
    assert con.execute("SELECT COUNT(*) FROM assessments WHERE collection = ?", [first.collection]).fetchone() == (1,)
    con.close()


def test_concurrent_uploads_get_distinct_ids_and_all_land(writable_warehouse: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    now = datetime(2026, 11, 22, 10, 0, 0)  # the same second for every upload
    with ThreadPoolExecutor(max_workers=8) as pool:
        reports = list(pool.map(lambda i: assess_files(_lab_configs(1), BUNDLED, get_settings(), now=now), range(20)))
    ids = {r.assessment_id for r in reports}
    assert len(ids) == 20 and None not in ids and len({r.collection for r in reports}) == 20
    con = connect_reader(current_file(writable_warehouse))
    assert con.execute("SELECT COUNT(*) FROM assessments WHERE started_at = ?", [now]).fetchone() == (20,)
    con.close()


def test_a_warehouse_from_before_collections_is_migrated_in_place(writable_warehouse: Path, services: Services) -> None:
    import duckdb

    def drop_collection_columns() -> None:
        con = duckdb.connect(str(writable_warehouse))
        for table, column in (("assessments", "owner"), ("assessments", "collection"), ("assets", "source_file"),
                              ("assets", "collection")):
            con.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
        con.close()

    drop_collection_columns()
    assert migrate(writable_warehouse, ONTOLOGY) == ["assets.collection", "assets.source_file", "assessments.collection",
                                           "assessments.owner"]
    assert migrate(writable_warehouse, ONTOLOGY) == []
    drop_collection_columns()  # and a reader that finds the columns missing has them added before it reads
    assert analyse(services.warehouse(), "summary", catalog=BUNDLED)["metrics"]["assessment_id"] == FLEET_LATEST
    services.close()
    assert migrate(writable_warehouse, ONTOLOGY) == []


def test_cli_keeps_repeated_hostnames_apart_and_says_so(writable_warehouse: Path, tmp_path: Path) -> None:
    folder = tmp_path / "two-labs"
    for lab in ("east", "west"):
        (folder / lab).mkdir(parents=True)
        (folder / lab / "r1.cfg").write_text(_config("R1", "ios-xe", good=lab == "east"))
    out = subprocess.run([ASSESS, "assess-configs", str(folder), "--collection", "labs"], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "ok    east/r1.cfg: labs/R1 (" in out.stdout and "ok    west/r1.cfg: labs/R1#2 (" in out.stdout
    assert "warn  west/r1.cfg: hostname R1 is also in east/r1.cfg; kept as a separate device labs/R1#2" in out.stdout
    assert "2 of 2 files assessed" in out.stdout


def test_uploads_never_disturb_concurrent_conversations(writable_warehouse: Path, services: Services) -> None:
    """20 conversations ask while 2 uploads are written: every turn answers (uploads publish a new version of the
    warehouse instead of closing the one the turns read), and the uploads are readable right after."""
    from concurrent.futures import ThreadPoolExecutor

    from orchestration.runtime import handle_turn

    questions = ["Summarize the latest configuration assessment", "Which sites have the most critical findings?"]

    def conversation(i: int) -> list[str]:
        thread = f"t-concurrent-{i}"
        return [handle_turn(q, thread_id=thread, user_id=f"user{i}", services=services).final.risk_of_error for q in questions]

    with ThreadPoolExecutor(max_workers=22) as pool:
        uploads = [pool.submit(assess_files, _lab_configs(2), services.catalog, services.settings) for _ in range(2)]
        turns = list(pool.map(conversation, range(20)))
        reports = [u.result() for u in uploads]
    assert [risk for conv in turns for risk in conv].count("high") == 0
    for report in reports:  # the open reader moves to the published version by itself
        assert analyse(services.warehouse(), "summary", collection=str(report.collection), catalog=BUNDLED)["metrics"]["assets_assessed"] == 2


def test_the_cli_uploads_while_a_server_has_the_warehouse_open(writable_warehouse: Path, tmp_path: Path, services: Services) -> None:
    reader = services.warehouse()  # what a running server holds
    assert analyse(reader, "summary", catalog=BUNDLED)["metrics"]["assessment_id"] == FLEET_LATEST
    out = subprocess.run([ASSESS, "assess-configs", str(_folder(tmp_path)), "--collection", "lab-west"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    assert analyse(reader, "summary", collection="lab-west", catalog=BUNDLED)["metrics"]["assets_assessed"] == 2
    assert analyse(reader, "summary", catalog=BUNDLED)["metrics"]["assessment_id"] == FLEET_LATEST


def test_rows_are_appended_in_one_statement_with_nulls_empty_strings_and_times_as_given() -> None:
    import duckdb

    from assessment_engine.warehouse.build import insert_rows

    con = duckdb.connect(":memory:")
    con.execute("CREATE TABLE t (a VARCHAR, b VARCHAR, seen TIMESTAMP, n INTEGER)")
    rows = [("x", None, datetime(2026, 11, 27, 1, 2, 3), 7), ("y\n'q'", "", datetime(2026, 1, 1), None)]
    insert_rows(con, "t", rows)
    insert_rows(con, "t", [])  # nothing to append is not an error
    assert con.execute("SELECT * FROM t ORDER BY a").fetchall() == rows


def test_a_configuration_cancelled_before_it_is_judged_is_left_out(writable_warehouse: Path) -> None:
    files = [(f"{h.lower()}.cfg", _config(h, "ios-xe", good=False).encode()) for h in ("RTR-C-1", "RTR-C-2")]
    report = assess_files(files, BUNDLED, get_settings(), owner="alice", cancelled=lambda name: name == "rtr-c-2.cfg")
    assert report.assessed == 1
    assert [(f.name, f.ok, f.message) for f in report.files][1] == ("rtr-c-2.cfg", False,
                                                                   "rtr-c-2.cfg: cancelled — not assessed")
    con = connect_reader(current_file(writable_warehouse))
    assert con.execute("SELECT asset_id FROM assets WHERE collection = ?", [report.collection]).fetchall() == [
        (f"{report.collection}/RTR-C-1",)]
    con.close()
    nothing = assess_files(files, BUNDLED, get_settings(), cancelled=lambda name: True)  # every file cancelled: no assessment at all
    assert nothing.assessed == 0 and nothing.assessment_id is None


def test_a_batch_assessed_in_worker_processes_writes_what_one_process_writes(writable_warehouse: Path) -> None:
    """The command line's worker processes: the same results, evidence, configurations and SLIC rows, the files in
    their order, a repeated hostname kept apart, and a bad file reported in its place."""
    from assessment_engine.warehouse.user_configs import PARALLEL_FROM

    files = _lab_configs(PARALLEL_FROM + 10)
    files.insert(7, ("notes.txt", b"Shopping list:\nmilk\neggs\n"))
    now = datetime(2026, 11, 27, 10, 0, 0)
    reports = [assess_files(files, BUNDLED, get_settings(), collection=f"lab-{workers}", now=now, workers=workers) for workers in (1, 2)]
    assert [(f.name, f.ok) for f in reports[0].files] == [(f.name, f.ok) for f in reports[1].files]
    assert reports[0].files[7].message == reports[1].files[7].message and not reports[1].files[7].ok
    assert [w.replace("lab-1", "lab-2") for w in reports[0].warnings] == reports[1].warnings and reports[1].warnings
    assert reports[1].files[0].judgement is not None and reports[1].files[0].judgement.results  # what --json prints
    con = connect_reader(current_file(writable_warehouse))
    try:
        def stored(report: object, table: str, columns: str) -> list[tuple[object, ...]]:
            rows = con.execute(f"SELECT {columns} FROM {table} WHERE assessment_id = ? ORDER BY ALL",
                               [report.assessment_id]).fetchall()  # type: ignore[attr-defined]
            collection = report.collection  # type: ignore[attr-defined]
            return [tuple(str(v).replace(f"{collection}/", "") for v in row) for row in rows]

        for table, columns in (("results", "asset_id, rule_id, status, severity, evidence, evidence_lines"),
                               ("configs", "asset_id, line_count, config_text"),
                               ("slic_results", "asset_id, signature_id, evidence")):
            one, two = (stored(r, table, columns) for r in reports)
            assert one == two and one, table
    finally:
        con.close()
