"""scripts/setup.sh installs with uv, which does not read pip's configuration: scripts/uv_options.py passes on the
package sources pip would use."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "uv_options.py"


def _options(tmp_path, conf: str, **env) -> list[str]:
    """The script's output as setup.sh runs it, under a pip configuration file of the test's own."""
    (tmp_path / "pip.conf").write_text(conf)
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    clean.update(PIP_CONFIG_FILE=str(tmp_path / "pip.conf"), **env)
    return subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, env=clean, timeout=60,
                          check=True).stdout.split()


def test_pips_sources_become_uv_options(tmp_path):
    out = _options(tmp_path, "[global]\nindex-url = https://mirror.example/simple\n"
                             "extra-index-url = file:///srv/a/simple\n    file:///srv/b/simple\n"
                             "constraint = /srv/constraints.txt\n", PIP_FIND_LINKS="/srv/wheels")
    assert out[:2] == ["--index-url", "https://mirror.example/simple"]
    assert [out[i + 1] for i, o in enumerate(out) if o == "--extra-index-url"] == ["file:///srv/a/simple",
                                                                                   "file:///srv/b/simple"]
    assert [out[i + 1] for i, o in enumerate(out) if o == "--find-links"] == ["/srv/wheels"]
    # the test's file is read last, so its constraint is the one pip uses, as pip would
    assert [out[i + 1] for i, o in enumerate(out) if o == "--constraint"] == ["/srv/constraints.txt"]


def test_a_variable_overrides_the_file_as_in_pip(tmp_path):
    out = _options(tmp_path, "[global]\nindex-url = https://mirror.example/simple\n",
                   PIP_INDEX_URL="https://other.example/simple")
    assert out[:2] == ["--index-url", "https://other.example/simple"]
