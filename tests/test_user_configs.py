"""Users bring their own configs: a folder is assessed into a new assessment; bad files are reported."""

from __future__ import annotations

import subprocess
from pathlib import Path

from orchestration.tools.analysis_tool import analyse
from orchestration.warehouse.config_templates import DeviceSpec, render
from orchestration.warehouse.demo_network import CONTROLS
from orchestration.warehouse.store import close_warehouses, connect_reader, get_warehouse
from orchestration.warehouse.user_configs import MAX_CONFIG_BYTES, assess_folder
from tests.conftest import ASSESS


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


def test_folder_becomes_a_new_assessment_and_bad_files_are_reported(writable_warehouse: Path, tmp_path: Path) -> None:
    report = assess_folder(_folder(tmp_path), site="Branch-09")
    by_name = {f.name: f for f in report.files}
    assert by_name["rtr-new-1.cfg"].ok and by_name["rtr-new-1.cfg"].failures >= 20
    assert by_name["fw-new-1.txt"].ok and by_name["fw-new-1.txt"].failures == 0
    assert "not a network device configuration" in by_name["notes.txt"].message
    assert "empty" in by_name["empty.cfg"].message
    assert "limit" in by_name["huge.cfg"].message
    assert "binary" in by_name["image.bin"].message
    close_warehouses()
    latest = analyse(get_warehouse(), "summary")["metrics"]
    assert latest["assessment_id"] == report.assessment_id and latest["assets_assessed"] == 2
    con = connect_reader(writable_warehouse)
    assert con.execute("SELECT platform, site FROM assets WHERE asset_id = 'FW-NEW-1'").fetchone() == ("asa", "Branch-09")
    con.close()


def test_cli_assesses_a_folder(writable_warehouse: Path, tmp_path: Path) -> None:
    out = subprocess.run([ASSESS, "assess-configs", str(_folder(tmp_path))], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "2 of 6 files assessed into ASMT-" in out.stdout and "skip  notes.txt" in out.stdout


def test_a_folder_without_configs_writes_nothing(writable_warehouse: Path, tmp_path: Path) -> None:
    folder = tmp_path / "junk"
    folder.mkdir()
    (folder / "a.txt").write_text("nothing to see")
    out = subprocess.run([ASSESS, "assess-configs", str(folder)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 1 and "nothing was written" in out.stdout
