"""The docs: README.md is a front door into the site, and the site builds without a warning."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"

#: One guide per capability (issue 40), as docs/guides/<name>.md.
GUIDES = ("search", "evaluation", "curation", "graph", "decay", "map", "exchange", "importers",
          "app", "agents", "scaling")
#: The set-up commands README.md gives first; .ci/run runs the second.
SETUP = (
    "python -m pip install -e . && memlens serve",
    'python -m pip install -e ".[dev]" && python -m pytest -n auto --dist loadgroup',
)
LINK = re.compile(r"\]\(([^)\s]+)\)")


def nav_files(entries: object) -> list[str]:
    """Every file the mkdocs.yml nav names, however deeply nested."""
    if isinstance(entries, str):
        return [entries]
    if isinstance(entries, list):
        return [f for entry in entries for f in nav_files(entry)]
    if isinstance(entries, dict):
        return [f for value in entries.values() for f in nav_files(value)]
    return []


def test_readme_is_a_front_door_of_at_most_300_lines() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines; move detail into docs/"


def test_readme_starts_with_the_two_set_up_commands() -> None:
    blocks = re.findall(r"```bash\n(.*?)\n```", README.read_text(encoding="utf-8"), re.S)
    assert tuple(blocks[:2]) == SETUP
    assert SETUP[1] in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_every_guide_exists_and_is_in_the_nav() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["docs_dir"] == "docs"
    listed = nav_files(config["nav"])
    for name in GUIDES:
        page = f"guides/{name}.md"
        assert (ROOT / "docs" / page).is_file(), f"docs/{page} is missing"
        assert page in listed, f"docs/{page} is not in mkdocs.yml's nav"
    missing = [page for page in listed if not (ROOT / "docs" / page).is_file()]
    assert missing == [], f"mkdocs.yml's nav names files that do not exist: {missing}"


def test_readme_links_resolve_inside_the_repository() -> None:
    broken = []
    for target in LINK.findall(README.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # a URL or an anchor of README itself
        path = (ROOT / target.split("#")[0]).resolve()
        if not path.is_relative_to(ROOT) or not path.exists():
            broken.append(target)
    assert broken == [], f"README.md links outside the repository or to nothing: {broken}"


@pytest.mark.slow
def test_the_docs_site_builds_strictly(tmp_path: Path) -> None:
    """`mkdocs build --strict`: a broken link, a missing page, a docstring mkdocstrings cannot
    render or a CLI command mkdocs-click cannot document fails the build."""
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},  # mkdocs-material's notice, not ours
    )
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}\n{done.stderr}"
    assert (tmp_path / "site" / "reference" / "cli" / "index.html").is_file()
    assert "memlens search" in (tmp_path / "site" / "reference" / "cli" / "index.html").read_text(
        encoding="utf-8")
