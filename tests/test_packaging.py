"""The wheel a user installs: its name, its version, its data files and its command.

Built here from the source tree (with the build tools of the dev extra, no download) and
installed without dependencies into a folder of its own, so what is checked is the wheel's own
content, not the editable install the other tests use."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = (
    "engram/embeddings/data/minilm-vocab.txt",
    "engram/embeddings/data/background.txt",
    "engram/embeddings/data/background-minilm.npy",
    "engram/web/templates/base.html",
    "engram/web/templates/memory.html",
)


def test_the_wheel_carries_the_package_its_data_and_the_engram_command(tmp_path: Path) -> None:
    pip = [sys.executable, "-m", "pip"]
    subprocess.run(
        [
            *pip,
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path / "dist"),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    assert wheel.name.startswith("engram_local-")  # `engram` on PyPI is another project
    names = set(zipfile.ZipFile(wheel).namelist())
    assert all(name in names for name in DATA), sorted(set(DATA) - names)
    info = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "engram = engram.cli.main:main" in zipfile.ZipFile(wheel).read(info).decode()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)

    target = tmp_path / "installed"
    subprocess.run(
        [*pip, "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1]); import engram, numpy;"
        "from click.testing import CliRunner; from engram.cli.main import cli;"
        "from engram.embeddings.background import SHIPPED_VECTORS;"
        "assert engram.__file__.startswith(sys.argv[1]), engram.__file__;"
        "assert numpy.load(SHIPPED_VECTORS).shape[1] == 384;"
        "print(CliRunner().invoke(cli, ['--version']).output)"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe, str(target)], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "engram, version 0.1.0"
